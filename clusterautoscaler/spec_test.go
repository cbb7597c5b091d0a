package clusterautoscaler

import (
	"errors"
	"strings"
	"testing"

	"github.com/karpsim/karpsim/instancetypes"
)

func TestSpecValidate(t *testing.T) {
	half, tooMuch := 0.5, 1.5
	tests := []struct {
		name string
		spec Spec
		want string // a fragment of the error, "" for none
	}{
		{"zero value", Spec{}, ""},
		{"chained expanders", Spec{Expander: "priority,least-waste", Priorities: map[int][]string{10: {"spot-.*"}}}, ""},
		{"unknown expander", Spec{Expander: "cheapest"}, `expander "cheapest"`},
		{"priority without priorities", Spec{Expander: "priority"}, "needs priorities"},
		{"bad regexp", Spec{Expander: "priority", Priorities: map[int][]string{1: {"("}}}, "priorities[1]"},
		{"threshold", Spec{ScaleDownUtilizationThreshold: &tooMuch}, "not in [0, 1]"},
		{"threshold ok", Spec{ScaleDownUtilizationThreshold: &half}, ""},
		{"group sizes", Spec{NodeGroups: []NodeGroup{{Name: "g", InstanceTypes: []string{"m5.large"}, Min: 3, Max: 2}}}, "min 3 and max 2"},
		{"group name", Spec{NodeGroups: []NodeGroup{{InstanceTypes: []string{"m5.large"}, Max: 2}}}, "name is required"},
		{"duplicate", Spec{NodeGroups: []NodeGroup{{Name: "g", InstanceTypes: []string{"m5.large"}, Max: 1}, {Name: "g", InstanceTypes: []string{"m5.large"}, Max: 1}}}, "a second node group"},
		{"capacity type", Spec{NodeGroups: []NodeGroup{{Name: "g", InstanceTypes: []string{"m5.large"}, CapacityType: "reserved", Max: 1}}}, "capacityType"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate() = %v, want an error with %q", err, tt.want)
			case err != nil && !errors.Is(err, ErrInvalidSpec):
				t.Fatalf("Validate() = %v, does not wrap ErrInvalidSpec", err)
			}
		})
	}
}

func TestGroupsAgainstCatalog(t *testing.T) {
	catalog, err := instancetypes.NewAWS(instancetypes.EmbeddedFacts(), instancetypes.AWSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zones := Zones(catalog)
	if strings.Join(zones, ",") != "us-east-1a,us-east-1b,us-east-1c" {
		t.Fatalf("Zones = %v", zones)
	}
	err = checkGroups([]NodeGroup{{Name: "g", InstanceTypes: []string{"m5.huge"}, Zones: []string{"us-west-2a"}, Max: 1}}, catalog, zones)
	for _, want := range []string{"m5.huge is not in the catalog", "zone us-west-2a"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("checkGroups = %v, want %q", err, want)
		}
	}
	if err := checkGroups(DefaultNodeGroups(zones), catalog, zones); err != nil {
		t.Errorf("the default node groups: %v", err)
	}
}
