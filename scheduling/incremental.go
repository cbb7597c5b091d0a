package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// Compiler compiles NodePools for a caller that solves one cluster under
// many variations of its NodePools, as a search of NodePool edits does:
// each variation changes one or two NodePools and keeps the others. A
// Pool compiled before, the same *apis.NodePool with the same catalog
// (the same instance types, in the same order), keeps its compiled form,
// and a catalog's label keys are read once. The Pools, their NodePools
// and catalogs must not change once compiled. The solves of its
// Prepareds also read each pod once, remembering it by pointer (unless
// the input has volumes or default spread constraints): the pods must not
// change between them either. A Compiler is not safe for concurrent use.
type Compiler struct {
	daemons []*podInfo
	opts    Options
	pools   map[*apis.NodePool][]compiledPool
	// keys are the catalogs read, by their first type and length.
	keys map[catalogKey][]catalogKeys
	// reads are the pods its Prepareds' solves read.
	reads *podReads
	// memo is what its Prepareds' solves work out from the templates,
	// which they share.
	memo *solveMemo
}

type compiledPool struct {
	catalog  instancetypes.Catalog
	template *template
}

type catalogKey struct {
	first *instancetypes.InstanceType
	n     int
}

type catalogKeys struct {
	catalog   instancetypes.Catalog
	undefined requirements.Undefined
}

// NewCompiler returns a Compiler of NodePools with the DaemonSets and
// options, as Prepare compiles them.
func NewCompiler(daemonSets []*corev1.Pod, opts Options) *Compiler {
	return &Compiler{daemons: readDaemons(daemonSets, opts.DRA), opts: opts, pools: map[*apis.NodePool][]compiledPool{}, keys: map[catalogKey][]catalogKeys{}, reads: &podReads{}, memo: &solveMemo{}}
}

// Prepare is Prepare(pools, daemonSets, opts) of the Compiler's, compiling
// only the pools it has not compiled before.
func (c *Compiler) Prepare(pools []Pool) *Prepared {
	templates := compileTemplatesWith(pools, c.compile, c.opts.MinValuesBestEffort)
	return &Prepared{daemons: c.daemons, templates: templates, opts: c.opts, memo: c.memo, reads: c.reads}
}

// PrepareNarrowing is Prepare of pools some of whose NodePools narrow
// others: narrows maps each such NodePool to the one it narrows, which it
// must equal but for its weight and for requirements that admit no
// instance type the other's do not and leave the offerings' keys (zone,
// capacity type, reservation) as they were, as a search of narrowing
// edits makes them. Such a NodePool with the same catalog is compiled from
// the other's options, not from the whole catalog: the options come out
// the same, for a fraction of the work.
func (c *Compiler) PrepareNarrowing(pools []Pool, narrows map[*apis.NodePool]*apis.NodePool) *Prepared {
	templates := compileTemplatesWith(pools, func(p Pool) *template { return c.compileNarrowing(p, narrows) }, c.opts.MinValuesBestEffort)
	return &Prepared{daemons: c.daemons, templates: templates, opts: c.opts, memo: c.memo, reads: c.reads}
}

func (c *Compiler) compileNarrowing(p Pool, narrows map[*apis.NodePool]*apis.NodePool) *template {
	base, ok := narrows[p.NodePool]
	if !ok || base == nil || p.NodePool == nil {
		return c.compile(p)
	}
	if t, ok := c.compiled(p); ok {
		return t
	}
	bt := c.compile(Pool{NodePool: base, InstanceTypes: p.InstanceTypes})
	if bt.refused != "" || bt.variants {
		// A type of several variants shares its name among them, which
		// the price order does not tell apart.
		return c.compile(p)
	}
	t := compileTemplate(p, c.daemons, c.undefined(p.InstanceTypes), bt)
	c.pools[p.NodePool] = append(c.pools[p.NodePool], compiledPool{catalog: p.InstanceTypes, template: t})
	return t
}

// compiled returns the pool's template when it was compiled before.
func (c *Compiler) compiled(p Pool) (*template, bool) {
	same := func(cp compiledPool) bool { return slices.Equal(cp.catalog, p.InstanceTypes) }
	if i := slices.IndexFunc(c.pools[p.NodePool], same); i >= 0 {
		return c.pools[p.NodePool][i].template, true
	}
	return nil, false
}

func (c *Compiler) compile(p Pool) *template {
	if t, ok := c.compiled(p); ok {
		return t
	}
	t := compileTemplate(p, c.daemons, c.undefined(p.InstanceTypes), nil)
	c.pools[p.NodePool] = append(c.pools[p.NodePool], compiledPool{catalog: p.InstanceTypes, template: t})
	return t
}

// undefined is what a claim may leave undefined with the catalog
// (catalogUndefined), kept per catalog.
func (c *Compiler) undefined(catalog instancetypes.Catalog) requirements.Undefined {
	var k catalogKey
	if len(catalog) > 0 {
		k = catalogKey{catalog[0], len(catalog)}
	}
	for _, known := range c.keys[k] {
		if slices.Equal(known.catalog, catalog) {
			return known.undefined
		}
	}
	u := catalogUndefined(catalog)
	c.keys[k] = append(c.keys[k], catalogKeys{catalog: catalog, undefined: u})
	return u
}

// catalogUndefined is what a claim may leave undefined with the catalog:
// the well-known labels of its cloud, which its types' provider registers
// (a key of another cloud's domain is a custom label there, which a claim
// must define), and the catalog's label keys.
func catalogUndefined(catalog instancetypes.Catalog) requirements.Undefined {
	return requirements.AllowUndefinedOnly(append(catalog.WellKnownLabels(), catalog.LabelKeys()...)...)
}
