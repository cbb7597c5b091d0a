package optimize_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

// launchedOfferings names every offering of every type the NodePool's
// requirements admit, read the slow way, one offering at a time: what
// ChangesLaunches must agree with.
func launchedOfferings(np *apis.NodePool, catalog instancetypes.Catalog) string {
	reqs, err := requirements.FromNodePool(np.Spec.Template)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, it := range catalog {
		if it == nil || it.Requirements.Intersects(reqs) != nil {
			continue
		}
		for _, o := range it.Offerings {
			if o.Compatible(reqs) {
				fmt.Fprintf(&b, "%s/%s/%s/%s;", it.Name, o.Zone, o.CapacityType, o.ReservationID)
			}
		}
	}
	return b.String()
}

// ChangesLaunches, which reads again only the offerings a restriction can
// take away, agrees with reading the whole catalog before and after the
// edit, for every narrowing edit of the default NodePool and for edits of
// every action on keys of types and of offerings.
func TestChangesLaunchesAgreesWithReadingTheCatalog(t *testing.T) {
	for _, capacityType := range []string{"", apis.CapacityTypeOnDemand} {
		pool := defaultPool()[0]
		if capacityType != "" {
			pool.NodePool = pool.NodePool.DeepCopy()
			reqs := pool.NodePool.Spec.Template.Spec.Requirements
			for i := range reqs {
				if reqs[i].Key == apis.LabelCapacityType {
					reqs[i].Values = []string{capacityType}
				}
			}
		}
		in := scheduling.Input{Pods: pods(40, "app", "3", "5Gi"), NodePools: []scheduling.Pool{pool}}
		base := scheduling.Solve(in)
		edits := optimize.NarrowingEdits(in, base, 1<<20)
		// NarrowingEdits leaves out the edits that change nothing: weigh
		// them again, with others that do not narrow.
		var extra []optimize.Edit
		for _, op := range []optimize.EditOp{
			{Action: optimize.ActionRestrict, Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpNotIn, Value: "us-east-1a"},
			{Action: optimize.ActionRestrict, Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpNotIn, Value: apis.CapacityTypeSpot},
			{Action: optimize.ActionRestrict, Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpNotIn, Value: apis.CapacityTypeOnDemand},
			{Action: optimize.ActionRestrict, Key: apis.LabelInstanceCPU, Operator: corev1.NodeSelectorOpLt, Value: "1"},
			{Action: optimize.ActionRestrict, Key: apis.LabelInstanceCPU, Operator: corev1.NodeSelectorOpGt, Value: "100000"},
			{Action: optimize.ActionRestrict, Key: apis.LabelInstanceFamily, Operator: corev1.NodeSelectorOpNotIn, Value: "no-such-family"},
			{Action: optimize.ActionWiden, Key: apis.LabelCapacityType, Value: apis.CapacityTypeSpot},
			{Action: optimize.ActionWiden, Key: apis.LabelInstanceCategory, Value: "t"},
			{Action: optimize.ActionDropUpperBounds, Key: apis.LabelInstanceGeneration},
		} {
			extra = append(extra, optimize.Edit{Kind: "test", NodePool: pool.NodePool.Name, Op: op})
		}
		before := launchedOfferings(pool.NodePool, pool.InstanceTypes)
		if before == "" {
			t.Fatal("the default NodePool launches nothing")
		}
		changed := 0
		for _, e := range append(edits, extra...) {
			edited := pool.NodePool.DeepCopy()
			e.Apply(edited)
			after := launchedOfferings(edited, pool.InstanceTypes)
			want := after != before && after != ""
			if got := optimize.ChangesLaunches(pool, e); got != want {
				t.Errorf("capacity type %q, %s %+v: ChangesLaunches %t, reading the catalog %t", capacityType, e, e.Op, got, want)
			}
			if want {
				changed++
			}
		}
		if changed == 0 || changed == len(edits)+len(extra) {
			t.Errorf("capacity type %q: %d of %d edits change launches: the test weighs both answers", capacityType, changed, len(edits)+len(extra))
		}
	}
}
