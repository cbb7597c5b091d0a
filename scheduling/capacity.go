package scheduling

import (
	"errors"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// PoolCapacity is a NodePool as a solve compiles it, seen as capacity for
// sale rather than as a place for pods: which instance types it may
// launch, with the room each leaves pods once the DaemonSets the pool's
// nodes run are counted. Package optimize bounds the cost of plans with
// it.
type PoolCapacity struct {
	// Name is the NodePool's name.
	Name string
	// Types are the instance types the pool may launch (its requirements
	// allow them and they have an available offering it allows), cheapest
	// first.
	Types []TypeCapacity
	// Refused says why the pool can launch nothing at all, or "".
	Refused string

	tmpl *template
}

// TypeCapacity is an instance type in one NodePool.
type TypeCapacity struct {
	InstanceType *instancetypes.InstanceType
	// Room is the type's allocatable less the DaemonSet overhead its nodes
	// carry in this pool: what pods may request on one node.
	Room resources.Vector
}

// Capacity returns the prepared NodePools, in the order a solve tries
// them. The types are shared with the preparation: not to be changed.
func (p *Prepared) Capacity() []PoolCapacity {
	out := make([]PoolCapacity, 0, len(p.templates))
	for _, t := range p.templates {
		pc := PoolCapacity{Name: t.name, Refused: t.refused, tmpl: t}
		for _, o := range t.options {
			pc.Types = append(pc.Types, TypeCapacity{InstanceType: o.it, Room: o.room})
		}
		out = append(out, pc)
	}
	return out
}

// errNoPool is Requirements' refusal when the PoolCapacity did not come
// from Capacity.
var errNoPool = errors.New("no compiled NodePool")

// Requirements returns what a node of this pool must satisfy to host the
// pod: the pool's requirements intersected with the pod's required node
// selector and affinity. It fails when no node of the pool could host the
// pod whatever its type: the pod is invalid, does not tolerate a taint
// (PreferNoSchedule taints excepted, which Karpenter tolerates as its last
// relaxation), or requires labels the pool rules out. Preferences are left
// out: a solve may relax them all. The answer is a superset of where a
// solve may put the pod, which is what a lower bound needs.
func (c PoolCapacity) Requirements(pod *corev1.Pod) (requirements.Requirements, error) {
	t := c.tmpl
	if t == nil {
		return requirements.Requirements{}, errNoPool
	}
	info := newPodInfo(pod, requirements.StrictOnly)
	if err := info.invalid(); err != nil {
		return requirements.Requirements{}, err
	}
	taints := slices.DeleteFunc(slices.Clone(t.taints), func(taint corev1.Taint) bool {
		return taint.Effect == corev1.TaintEffectPreferNoSchedule
	})
	if err := tolerates(taints, pod.Spec.Tolerations); err != nil {
		return requirements.Requirements{}, err
	}
	if err := t.requirements.Compatible(info.reqs, t.undefined); err != nil {
		return requirements.Requirements{}, err
	}
	return t.requirements.Intersect(info.reqs), nil
}
