package scheduling

import (
	"strings"
	"testing"

	"github.com/karpsim/karpsim/requirements"
)

// refusingDevices claims every pod and allocates on no node, narrowing
// nothing.
type refusingDevices struct{}

func (refusingDevices) Claims(string) bool { return true }

func (refusingDevices) Node(string, string, map[string]string) any { return nil }

func (refusingDevices) Allocate(state any, _, _, _ string, _ DeviceHoldings, _ requirements.Requirements) (any, requirements.Requirements, bool) {
	return state, requirements.Requirements{}, false
}

// A pod whose device claims no instance type can allocate is unschedulable
// with that reason, not one about requirements, resources or offerings
// every type met.
func TestUnallocatableClaimsSayWhy(t *testing.T) {
	r := Solve(Input{Pods: pods(1, "gpu", "1", "1Gi"), NodePools: []Pool{pool(newPool("default"))},
		Options: Options{DRA: true, Devices: refusingDevices{}}})
	if len(r.Unschedulable) != 1 || !strings.Contains(r.Unschedulable[0].Reason, "could allocate the pod's device claims") {
		t.Fatalf("unschedulable %+v, want the pod refused for its device claims", r.Unschedulable)
	}
}
