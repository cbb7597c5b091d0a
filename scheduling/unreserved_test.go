package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// A pool narrowing one whose options have reserved offerings works out
// its own (template.unreserved, which a narrowing of a pool without any
// inherits): its solves launch into the reservation as a fresh compile's
// do.
func TestNarrowingOfReservedPoolKeepsItsReservations(t *testing.T) {
	catalog, err := instancetypes.NewCatalog(append(append([]*instancetypes.InstanceType{}, fake...), reservedCatalog(t)...)...)
	require.NoError(t, err)
	def := newPool("default")
	narrowed := newPool("default", withRequirement(instancetypes.FakeLabelSize, corev1.NodeSelectorOpNotIn, "large"))
	in := Input{Pods: pods(3, "web", "3", "1Gi")}
	c := NewCompiler(nil, Options{})
	base := []Pool{{NodePool: def, InstanceTypes: catalog}}
	c.Prepare(base).Solve(in)
	pools := []Pool{{NodePool: narrowed, InstanceTypes: catalog}}
	got := c.PrepareNarrowing(pools, map[*apis.NodePool]*apis.NodePool{narrowed: def}).Solve(in)
	want := Solve(Input{Pods: in.Pods, NodePools: pools})
	require.NotEmpty(t, want.NodeClaims)
	assert.Equal(t, apis.CapacityTypeReserved, want.NodeClaims[0].CapacityType, "%v", claimsByType(want))
	assert.Equal(t, want, got)
}
