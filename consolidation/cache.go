package consolidation

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// Cache keeps what Evaluate compiles from the NodePools, their catalogs and
// the DaemonSets — each pool's launchable types with their prices, and the
// scheduling preparation — from one evaluation to the next, for a caller
// that evaluates a changing cluster again and again over the same NodePools,
// as a controller loop does every 10 seconds. Compiling is most of an
// evaluation of a small cluster.
//
// The cache recognises its inputs by identity: the same *NodePool, the same
// catalog slice, the same DaemonSet pod slice, and equal scheduling
// options. Replace an object to change it; one modified in place is not
// noticed. The zero value is an empty cache; it is not safe for concurrent
// use.
type Cache struct {
	key      cacheKey
	priced   []priced
	prepared *scheduling.Prepared
	// daemonsIn and daemonsOut are the last DaemonSet pods given and their
	// simulation copies (simulationDaemons).
	daemonsIn  sliceID[*corev1.Pod]
	daemonsOut []*corev1.Pod
}

// simulationDaemons are the DaemonSet pods as simulations take them:
// tolerating simulationTaint, which marks nodes only to keep moved pods off
// them and must not keep a node's DaemonSets from their room there. The
// copies are kept while the same pods are given, so that the compilation
// cached from them holds.
func (c *Cache) simulationDaemons(ds []*corev1.Pod) []*corev1.Pod {
	if c != nil && c.daemonsOut != nil && c.daemonsIn == idOf(ds) {
		return c.daemonsOut
	}
	out := withToleration(ds, simulationTaint)
	if c != nil {
		c.daemonsIn, c.daemonsOut = idOf(ds), out
	}
	return out
}

// cacheKey names the inputs of a compilation.
type cacheKey struct {
	pools   []poolKey
	daemons sliceID[*corev1.Pod]
	opts    scheduling.Options
}

type poolKey struct {
	np      *apis.NodePool
	catalog sliceID[*instancetypes.InstanceType]
}

// sliceID is a slice's identity: where it starts and how long it is.
type sliceID[T any] struct {
	first *T
	n     int
}

func idOf[T any](s []T) sliceID[T] {
	if len(s) == 0 {
		return sliceID[T]{}
	}
	return sliceID[T]{first: &s[0], n: len(s)}
}

func (k cacheKey) equal(o cacheKey) bool {
	return k.daemons == o.daemons && k.opts.Equal(o.opts) && slices.Equal(k.pools, o.pools)
}

// compiled returns the evaluation's priced NodePools (static ones left out:
// they keep their replicas and provision nothing; so are those being
// deleted or whose Ready condition is not True, which Karpenter's
// NewScheduler ignores) and a scheduling
// preparation over them with no node labels remembered: from the cache when
// its inputs are the same, else compiled (and kept, when c is not nil).
func (c *Cache) compiled(e *evaluation) ([]priced, *scheduling.Prepared) {
	key := cacheKey{daemons: idOf(e.cluster.DaemonSets), opts: e.opts.Scheduling}
	var pools []*poolInfo
	for _, name := range sortedKeys(e.pools) {
		if p := e.pools[name]; p.launches() {
			pools = append(pools, p)
			key.pools = append(key.pools, poolKey{np: p.np, catalog: idOf(p.catalog)})
		}
	}
	if c != nil && c.prepared != nil && c.key.equal(key) {
		return c.priced, c.prepared.Clone()
	}
	out := make([]priced, 0, len(pools))
	var base []scheduling.Pool
	for _, p := range pools {
		pr := newPriced(p)
		out = append(out, pr)
		base = append(base, scheduling.Pool{NodePool: p.np, InstanceTypes: pr.catalog})
	}
	prepared := scheduling.Prepare(base, e.daemons, e.opts.Scheduling)
	if c != nil {
		c.key, c.priced, c.prepared = key, out, prepared
		return out, prepared.Clone()
	}
	return out, prepared
}
