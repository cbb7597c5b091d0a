package invariants

import (
	"fmt"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
)

// CheckCluster checks a cluster at one instant: no node's pods and
// DaemonSet overhead exceed its allocatable or max pods. When pods is not
// nil it is every pod the cluster should hold ("namespace/name": each
// created and not yet gone for a reason), and each must be bound to
// exactly one node or pending, and no other pod bound or pending.
// CapacityBuffer virtual pods (apis.IsBufferPod) are no pods of the
// cluster: pending ones are not counted, and one bound to a node is a
// violation. It returns every violation, sorted; nil when there is none.
func CheckCluster(c consolidation.Cluster, pods []string) []Violation {
	w := newWorld(c.DaemonSets)
	var out []Violation
	where := map[string]string{}
	record := func(key, at string) {
		if before, dup := where[key]; dup {
			out = append(out, Violation{Rule: RuleConservation, Pod: key, Detail: fmt.Sprintf("in two places at once: %s and %s", before, at)})
			return
		}
		where[key] = at
	}
	for _, n := range c.Nodes {
		if n == nil || n.Node == nil {
			continue
		}
		wn := existingNode(n.Node)
		w.add(wn)
		out = append(out, w.checkResources(wn)...)
		for _, p := range wn.pods {
			if apis.IsBufferPod(p) {
				out = append(out, Violation{Rule: RuleConservation, Pod: apis.PodKey(p), Node: wn.name,
					Detail: "a CapacityBuffer's virtual pod bound to a node: virtual pods hold room and never run"})
				continue
			}
			if !apis.IsDaemonSetPod(p) && !apis.IsMirrorPod(p) {
				record(apis.PodKey(p), "bound to "+wn.name)
			}
		}
	}
	for _, p := range c.Pending {
		if p != nil && !apis.IsBufferPod(p) {
			record(apis.PodKey(p), "pending")
		}
	}
	if pods == nil {
		return sorted(out)
	}
	want := map[string]bool{}
	for _, key := range pods {
		want[key] = true
		if _, ok := where[key]; !ok {
			out = append(out, Violation{Rule: RuleConservation, Pod: key, Detail: "lost: neither bound nor pending, and not gone for a reason"})
		}
	}
	for _, key := range sortedKeys(where) {
		if !want[key] {
			out = append(out, Violation{Rule: RuleConservation, Pod: key, Detail: where[key] + ", but the cluster does not hold it"})
		}
	}
	return sorted(out)
}
