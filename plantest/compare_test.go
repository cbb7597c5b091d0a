package plantest

import (
	"strings"
	"testing"

	"github.com/karpsim/karpsim/scheduling"
)

func plan(claims ...scheduling.NodeClaim) scheduling.Result {
	r := scheduling.Result{NodeClaims: claims}
	for _, c := range claims {
		r.Summary.PricePerHour += c.PricePerHour
	}
	r.Summary.NodeClaims = len(claims)
	return r
}

// PlanCostIncreaseWithin holds within the bound, and past it names the
// rise and both plans' cost by NodePool, capacity type and instance type,
// dearest first.
func TestPlanCostIncreaseWithin(t *testing.T) {
	before := plan(scheduling.NodeClaim{NodePool: "default", CapacityType: "spot", InstanceType: "c6a.4xlarge", PricePerHour: 0.16})
	within := plan(scheduling.NodeClaim{NodePool: "default", CapacityType: "spot", InstanceType: "c7i.4xlarge", PricePerHour: 0.168})
	var ok fakeTB
	if !PlanCostIncreaseWithin(&ok, before, within, 0.05) || len(ok.errors) != 0 {
		t.Errorf("a 5%% rise within 5%% fails: %v", ok.errors)
	}
	after := plan(
		scheduling.NodeClaim{NodePool: "default", CapacityType: "on-demand", InstanceType: "m5.xlarge", PricePerHour: 0.192},
		scheduling.NodeClaim{NodePool: "default", CapacityType: "spot", InstanceType: "c5ad.xlarge", PricePerHour: 0.044},
		scheduling.NodeClaim{NodePool: "gpu", CapacityType: "spot", InstanceType: "c5ad.xlarge", PricePerHour: 0.044},
	)
	var f fakeTB
	if PlanCostIncreaseWithin(&f, before, after, 0.05) || len(f.errors) != 1 {
		t.Fatalf("a 75%% rise passes: %v", f.errors)
	}
	for _, want := range []string{
		"from $0.1600/hour to $0.2800/hour, +75.0%, over the allowed +5.0% ($0.1680/hour)",
		"before: by NodePool: default $0.1600 (1 node); by capacity type: spot $0.1600 (1 node); by instance type: c6a.4xlarge $0.1600 (1 node)",
		"after:  by NodePool: default $0.2360 (2 nodes), gpu $0.0440 (1 node); by capacity type: on-demand $0.1920 (1 node), spot $0.0880 (2 nodes); by instance type: m5.xlarge $0.1920 (1 node), c5ad.xlarge $0.0880 (2 nodes)",
	} {
		if !strings.Contains(f.errors[0], want) {
			t.Errorf("the message lacks %q:\n%s", want, f.errors[0])
		}
	}
}
