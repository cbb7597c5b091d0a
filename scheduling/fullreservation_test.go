package scheduling

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// A capacity reservation with no instance left, through the AWS model: the
// AWS provider v1.15.0 keeps it available with no capacity, so Karpenter
// v1.15.0's provisioning (reserved offerings strict) waits for a
// reserved-only NodePool's reservation and does not fall through to a
// lighter NodePool (nodeclaim.go offeringsToReserve); with a unit left the
// pod launches into it, and a pool that may also buy on-demand launches
// on-demand in that pool.
func TestAFullReservationFromTheAWSModelIsWaitedFor(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var facts []instancetypes.EC2Facts
	for _, f := range instancetypes.EmbeddedFacts() {
		if f.InstanceType == "m5.large" {
			facts = append(facts, f)
		}
	}
	require.Len(t, facts, 1)
	class := &apis.EC2NodeClass{Spec: apis.EC2NodeClassSpec{AMISelectorTerms: []apis.AMISelectorTerm{{Alias: "al2023@latest"}}},
		Status: apis.EC2NodeClassStatus{CapacityReservations: []apis.CapacityReservation{{ID: "cr-1", AvailabilityZone: "us-east-1a", InstanceType: "m5.large"}}}}
	class.Name = "default"
	catalog := func(units int) instancetypes.Catalog {
		counts := &instancetypes.ReservationAvailability{}
		counts.Sync("cr-1", units, at)
		c, err := instancetypes.NewAWS(facts, instancetypes.AWSOptions{NodeClass: class, Reservations: counts, Now: at})
		require.NoError(t, err)
		return c
	}
	pools := func(c instancetypes.Catalog, reservedTypes ...string) []Pool {
		return []Pool{
			{NodePool: newPool("reserved", withWeight(50), withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, reservedTypes...)), InstanceTypes: c},
			{NodePool: newPool("fallback", withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand)), InstanceTypes: c},
		}
	}
	pod := []*corev1.Pod{newPod("web", "500m", "1Gi")}

	r := Solve(Input{Pods: pod, NodePools: pools(catalog(0), apis.CapacityTypeReserved)})
	assert.Empty(t, r.NodeClaims, "the lighter pool is not fallen through to")
	require.Len(t, r.Unschedulable, 1)
	assert.Contains(t, r.Unschedulable[0].Reason, "reserved")

	r = Solve(Input{Pods: pod, NodePools: pools(catalog(1), apis.CapacityTypeReserved)})
	require.Len(t, r.NodeClaims, 1)
	assert.Equal(t, "reserved", r.NodeClaims[0].NodePool)
	assert.Equal(t, apis.CapacityTypeReserved, r.NodeClaims[0].CapacityType)

	r = Solve(Input{Pods: pod, NodePools: pools(catalog(0), apis.CapacityTypeReserved, apis.CapacityTypeOnDemand)})
	require.Len(t, r.NodeClaims, 1)
	assert.Equal(t, "reserved", r.NodeClaims[0].NodePool)
	assert.Equal(t, apis.CapacityTypeOnDemand, r.NodeClaims[0].CapacityType)
}
