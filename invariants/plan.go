package invariants

import (
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// CheckPlan checks a provisioning decision against its input: every pod
// placed or refused exactly once; no node or new NodeClaim overcommitted
// (DaemonSet overhead included); every placement within the pod's
// nodeSelector, required node affinity, tolerations, required pod affinity
// and anti-affinity and DoNotSchedule topology spread; every new
// NodeClaim's launch choice one of its options, on an available offering,
// within its NodePool's requirements and minValues; and no NodePool past
// its limits. It returns every violation, sorted; nil when there is none.
func CheckPlan(in scheduling.Input, r scheduling.Result) []Violation {
	return checkPlan(in, r, nil)
}

// checkPlan is CheckPlan for a decision that also places unknown pods
// where the checker is not told (see world.unknown).
func checkPlan(in scheduling.Input, r scheduling.Result, unknown []*corev1.Pod) []Violation {
	w := newWorld(in.DaemonSets)
	w.unknown = unknown
	for _, n := range in.Nodes {
		if n != nil {
			w.add(existingNode(n))
		}
	}
	pools := map[string]scheduling.Pool{}
	for _, p := range in.NodePools {
		if p.NodePool != nil {
			pools[p.NodePool.Name] = p
		}
	}
	var out []Violation
	for i := range r.NodeClaims {
		n, vs := claimNode(&r.NodeClaims[i], pools, in.Options)
		out = append(out, vs...)
		w.add(n)
	}
	out = append(out, place(w, in.Pods, r)...)
	for _, n := range w.nodes {
		if len(n.placed) > 0 {
			out = append(out, w.checkResources(n)...)
			for _, p := range n.placed {
				out = append(out, checkPlacement(p, n)...)
			}
		}
	}
	out = append(out, w.checkPodAffinity()...)
	out = append(out, w.checkTopologySpread()...)
	out = append(out, checkLimits(w, pools)...)
	return sorted(out)
}

// place puts the result's pods where it says, and reports a pod placed or
// refused twice, never accounted for, or unknown to the input.
func place(w *world, pods []*corev1.Pod, r scheduling.Result) []Violation {
	byKey := map[string]*corev1.Pod{}
	for _, p := range pods {
		if p != nil {
			byKey[apis.PodKey(p)] = p
		}
	}
	var out []Violation
	seen := map[string]string{}
	account := func(key, where string) *corev1.Pod {
		if before, dup := seen[key]; dup {
			out = append(out, Violation{Rule: RuleConservation, Pod: key, Detail: fmt.Sprintf("in the result twice: %s and %s", before, where)})
			return nil
		}
		seen[key] = where
		p := byKey[key]
		if p == nil {
			out = append(out, Violation{Rule: RuleConservation, Pod: key, Detail: where + ", but it is not one of the input's pods"})
		}
		return p
	}
	for _, b := range r.Bindings {
		n := w.byName[b.Node]
		if p := account(b.Pod, "bound to "+b.Node); p != nil {
			if n == nil || n.isNew {
				out = append(out, Violation{Rule: RuleConservation, Pod: b.Pod, Node: b.Node, Detail: "bound to a node that is not in the input"})
				continue
			}
			n.placed = append(n.placed, p)
		}
	}
	for _, c := range r.NodeClaims {
		n := w.byName[c.Name]
		for _, key := range c.Pods {
			if p := account(key, "placed on new NodeClaim "+c.Name); p != nil {
				n.placed = append(n.placed, p)
			}
		}
	}
	for _, u := range r.Unschedulable {
		account(u.Pod, "unschedulable")
	}
	for _, key := range sortedKeys(byKey) {
		if _, ok := seen[key]; !ok {
			out = append(out, Violation{Rule: RuleConservation, Pod: key, Detail: "neither placed nor refused"})
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// claimNode is the node a new NodeClaim launches as, and what is wrong with
// its launch choice.
func claimNode(c *scheduling.NodeClaim, pools map[string]scheduling.Pool, opts scheduling.Options) (*wnode, []Violation) {
	n := &wnode{name: c.Name, pool: c.NodePool, isNew: true, labels: map[string]string{}}
	bad := func(rule, format string, args ...any) Violation {
		return Violation{Rule: rule, Node: c.Name, NodePool: c.NodePool, Detail: fmt.Sprintf(format, args...)}
	}
	pool, ok := pools[c.NodePool]
	if !ok {
		return n, []Violation{bad(RuleNodePoolRequirements, "NodePool %q is not in the input", c.NodePool)}
	}
	np := pool.NodePool
	var out []Violation
	if !slices.Contains(c.InstanceTypeOptions, c.InstanceType) {
		out = append(out, bad(RuleInstanceType, "launches %s, which is not among its %d instance-type options", c.InstanceType, len(c.InstanceTypeOptions)))
	}
	it, ok := pool.InstanceTypes.Get(c.InstanceType)
	if !ok {
		return n, append(out, bad(RuleInstanceType, "launches %s, which NodePool %s's catalog does not have", c.InstanceType, c.NodePool))
	}
	n.labels = c.LaunchLabels(it, np)
	n.taints = np.Spec.Template.Spec.Taints
	n.allocatable, n.capacity, n.sized = it.Allocatable(), it.Capacity, true
	out = append(out, checkOffering(c, it)...)
	for _, r := range c.Requirements {
		// A key the node has no label for (a custom key with several
		// values left) says nothing about the launch.
		if _, defined := n.labels[r.Key]; defined && !requirementHolds(r, n.labels) {
			out = append(out, bad(RuleInstanceType, "the launch (%s, %s, %s) breaks the claim's requirement %s", c.InstanceType, c.Zone, c.CapacityType, requirementString(r)))
		}
	}
	for _, r := range np.Spec.Template.Spec.Requirements {
		nsr := corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values}
		if _, defined := n.labels[r.Key]; defined && !requirementHolds(nsr, n.labels) {
			out = append(out, bad(RuleNodePoolRequirements, "the launch (%s, %s, %s) breaks the NodePool's requirement %s", c.InstanceType, c.Zone, c.CapacityType, requirementString(nsr)))
		}
		if r.MinValues != nil && !opts.MinValuesBestEffort {
			if got := distinctValues(c, pool.InstanceTypes, r.Key); got < *r.MinValues {
				out = append(out, bad(RuleNodePoolRequirements, "its instance-type options have %d distinct values of %s, the NodePool's minValues is %d", got, r.Key, *r.MinValues))
			}
		}
	}
	return n, out
}

// checkOffering reports a launch on an offering the type does not have,
// one that is not available, or a price that is not the offering's.
func checkOffering(c *scheduling.NodeClaim, it *instancetypes.InstanceType) []Violation {
	for _, o := range it.Offerings {
		if o.Zone != c.Zone || o.CapacityType != c.CapacityType {
			continue
		}
		if !o.Available {
			continue
		}
		if math.Abs(o.Price-c.PricePerHour) > 1e-9 && c.CapacityType != apis.CapacityTypeReserved {
			return []Violation{{Rule: RuleInstanceType, Node: c.Name, NodePool: c.NodePool,
				Detail: fmt.Sprintf("priced $%.6f/h, the offering %s %s %s costs $%.6f/h", c.PricePerHour, c.InstanceType, c.Zone, c.CapacityType, o.Price)}}
		}
		return nil
	}
	return []Violation{{Rule: RuleInstanceType, Node: c.Name, NodePool: c.NodePool,
		Detail: fmt.Sprintf("launches %s in %s as %s, which is not an available offering", c.InstanceType, c.Zone, c.CapacityType)}}
}

// distinctValues counts the values of key among the claim's instance-type
// options: the types' own labels, or for zone and capacity type the
// available offerings the claim's requirements allow.
func distinctValues(c *scheduling.NodeClaim, catalog instancetypes.Catalog, key string) int {
	values := map[string]bool{}
	for _, name := range c.InstanceTypeOptions {
		it, ok := catalog.Get(name)
		if !ok {
			continue
		}
		switch key {
		case apis.LabelTopologyZone, apis.LabelCapacityType:
			for _, o := range it.Offerings {
				if !o.Available {
					continue
				}
				l := map[string]string{apis.LabelTopologyZone: o.Zone, apis.LabelCapacityType: o.CapacityType}
				if !slices.ContainsFunc(c.Requirements, func(r corev1.NodeSelectorRequirement) bool {
					_, offeringKey := l[r.Key]
					return offeringKey && !requirementHolds(r, l)
				}) {
					values[l[key]] = true
				}
			}
		default:
			if v, ok := it.Labels()[key]; ok {
				values[v] = true
			}
		}
	}
	return len(values)
}

func requirementString(r corev1.NodeSelectorRequirement) string {
	return fmt.Sprintf("%s %s [%s]", r.Key, r.Operator, strings.Join(r.Values, ","))
}

// checkLimits reports a NodePool that gets new NodeClaims and ends up with
// more capacity than its limits: its nodes' capacity (each node also
// counting as one of resource "nodes") with the new claims' launched types.
func checkLimits(w *world, pools map[string]scheduling.Pool) []Violation {
	var out []Violation
	for _, name := range sortedKeys(pools) {
		np := pools[name].NodePool
		if len(np.Spec.Limits) == 0 {
			continue
		}
		var used resources.Vector
		nodes, grew := int64(0), false
		for _, n := range w.nodes {
			if n.pool != name {
				continue
			}
			used = used.Add(n.capacity)
			nodes++
			grew = grew || n.isNew
		}
		if !grew {
			continue
		}
		out = append(out, overLimits(np, used, nodes, "with its new NodeClaims")...)
	}
	return out
}

// overLimits reports each limited resource of the pool that used exceeds.
func overLimits(np *apis.NodePool, used resources.Vector, nodes int64, when string) []Violation {
	var out []Violation
	limits := resources.FromList(np.Spec.Limits)
	for _, res := range slices.Sorted(func(yield func(corev1.ResourceName) bool) {
		for k := range np.Spec.Limits {
			if !yield(k) {
				return
			}
		}
	}) {
		have := used.Get(res)
		if res == "nodes" {
			have = nodes
		}
		if have > limits.Get(res) {
			q := np.Spec.Limits[res]
			out = append(out, Violation{Rule: RuleNodePoolLimits, NodePool: np.Name,
				Detail: fmt.Sprintf("%s: %d used %s, the limit is %s", res, have, when, q.String())})
		}
	}
	return out
}
