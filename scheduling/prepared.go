package scheduling

import (
	corev1 "k8s.io/api/core/v1"
)

// Prepared is a set of NodePools and DaemonSets compiled once, for callers
// that solve many variations of one cluster: consolidation simulates
// removing each candidate in turn, with the same NodePools every time.
// Compiling (matching the catalogs to each NodePool, working out DaemonSet
// overhead per instance type, ordering by price) is then done once instead
// of per solve. A Prepared is not safe for concurrent use.
type Prepared struct {
	daemons   []*podInfo
	templates []*template
	opts      Options
	// nodes holds what each node offers before any pod is placed, by
	// pointer, once RememberNodes was called.
	nodes map[*Node]*nodeBase
	// memo keeps what solves work out from the templates alone.
	memo *solveMemo
	// reads are the pods solves read before, shared by the Prepareds of
	// one Compiler; nil for Prepare's.
	reads *podReads
}

// RememberNodes makes the solves that follow read each Node (its labels,
// taints, bound pods and the room they leave) once, remembering it by
// pointer: for a caller that solves many times over Nodes it does not
// change, as consolidation does. A Node that changed must then be passed
// as a new *Node.
func (p *Prepared) RememberNodes() {
	if p.nodes == nil {
		p.nodes = map[*Node]*nodeBase{}
	}
}

// Clone returns a Prepared sharing p's compiled NodePools and DaemonSets,
// without the nodes p remembered: for a caller that keeps a preparation
// across solves of Nodes that may have changed.
func (p *Prepared) Clone() *Prepared {
	return &Prepared{daemons: p.daemons, templates: p.templates, opts: p.opts, memo: &solveMemo{}, reads: p.reads}
}

// WithOptions returns a Prepared sharing p's compiled NodePools and
// DaemonSets and the nodes it remembers, solving with opts: for a search
// that solves one cluster with several packings or price caps. The
// NodePools stay compiled with p's MinValuesBestEffort, which opts cannot
// change.
func (p *Prepared) WithOptions(opts Options) *Prepared {
	opts.MinValuesBestEffort = p.opts.MinValuesBestEffort
	return &Prepared{daemons: p.daemons, templates: p.templates, opts: opts, nodes: p.nodes, memo: p.memo, reads: p.reads}
}

// Prepare compiles the NodePools and DaemonSets with the options.
func Prepare(pools []Pool, daemonSets []*corev1.Pod, opts Options) *Prepared {
	daemons := readDaemons(daemonSets, opts.DRA)
	return &Prepared{daemons: daemons, templates: compileTemplates(pools, daemons, opts.MinValuesBestEffort), opts: opts, memo: &solveMemo{}}
}

// Solve is Solve with the input's NodePools, DaemonSets and Options taken
// from the preparation: only its pods, nodes and volumes are read.
func (p *Prepared) Solve(in Input) Result {
	r, _ := p.SolveBelow(in, 0)
	return r
}

// SolveBelow is Solve offering new NodeClaims only the instance types whose
// cheapest offering the NodePool allows costs less than maxPrice (all when
// maxPrice is 0), as a consolidation that must find something cheaper
// does. A NodePool keeps all its types when none would be left or more
// than a NodeClaim keeps (the answer would then read or truncate
// differently). It reports whether any type was left out.
func (p *Prepared) SolveBelow(in Input, maxPrice float64) (Result, bool) {
	in.Options = p.opts
	if p.memo == nil {
		p.memo = &solveMemo{}
	}
	templates := make([]*template, len(p.templates))
	narrowed := false
	for i, t := range p.templates {
		fresh := *t
		fresh.claims, fresh.limits = 0, newLimits(t.limitList)
		if maxPrice > 0 {
			n := cheaperCount(t.options, maxPrice)
			if n > 0 && n < len(t.options) && n < p.opts.maxInstanceTypes() {
				fresh.options, narrowed = t.options[:n], true
			}
		}
		fresh.memo = p.memo.view(t, len(fresh.options))
		fresh.priced, fresh.prices = fresh.memo.priced, fresh.memo.prices
		templates[i] = &fresh
	}
	s := newSolverWith(in, p.daemons, templates, p.nodes, p.reads)
	s.run()
	return s.result(), narrowed
}

// cheaperCount is how many options, in price order, cost less than price.
func cheaperCount(options []*typeOption, price float64) int {
	n := 0
	for n < len(options) && options[n].price < price {
		n++
	}
	return n
}
