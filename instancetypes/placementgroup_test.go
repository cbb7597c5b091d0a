package instancetypes

import (
	"testing"

	"github.com/karpsim/karpsim/apis"
)

// A class selecting its placement group by ID gives the types that ID as
// the placement-group-id label (provider v1.15.0); by name the ID is
// EC2's, so the label stays undefined, as the partition does.
func TestAWSPlacementGroupID(t *testing.T) {
	id, name := "pg-0123456789abcdef0", "my-group"
	byID := classWithStatus(apis.EC2NodeClassStatus{})
	byID.Spec.PlacementGroupSelector = &apis.PlacementGroupSelector{ID: &id}
	it := awsTypeFor(t, AWSOptions{NodeClass: byID, PlacementGroupStrategy: apis.PlacementStrategyCluster}, "m5.large")
	if got := it.Labels()[apis.LabelPlacementGroupID]; got != id {
		t.Errorf("placement-group-id %q, want %q (requirements %s)", got, id, it.Requirements)
	}
	if r, ok := it.Requirements.Lookup(apis.LabelPlacementGroupPartition); ok {
		t.Errorf("partition %s, want undefined", r)
	}
	byName := classWithStatus(apis.EC2NodeClassStatus{})
	byName.Spec.PlacementGroupSelector = &apis.PlacementGroupSelector{Name: &name}
	it = awsTypeFor(t, AWSOptions{NodeClass: byName, PlacementGroupStrategy: apis.PlacementStrategyCluster}, "m5.large")
	if r, ok := it.Requirements.Lookup(apis.LabelPlacementGroupID); ok {
		t.Errorf("selected by name: placement-group-id %s, want undefined", r)
	}
}
