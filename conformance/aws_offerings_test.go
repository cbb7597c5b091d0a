package conformance

import (
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// The AWS provider's offerings: one per zone and capacity type, reserved
// ones from the EC2NodeClass's capacity reservations, tenancy chosen at
// launch, zones from the node class's subnets and zonal shifts. These
// cases build the same situations with instancetypes.NewAWS.

// tenancyOf is the tenancy label the node launched for the pod's claim
// carries.
func tenancyOf(t *T, w *schedWorld, p *corev1.Pod) string {
	t.Helper()
	c := claimOf(t, w.solve(p), p)
	it, ok := w.catalog.Get(c.InstanceType)
	require.True(t, ok, c.InstanceType)
	labels := c.LaunchLabels(it, w.in.NodePools[0].NodePool)
	tenancy, ok := labels[apis.LabelInstanceTenancy]
	require.True(t, ok, "no tenancy label in %v", labels)
	return tenancy
}

// tenancyViolation checks that a pod asking for one tenancy does not
// schedule through a NodePool that allows only the other.
func tenancyViolation(pool, pod string) func(t *T) {
	return func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{}, onlyRequirement(apis.LabelInstanceTenancy, corev1.NodeSelectorOpIn, pool))
		p := unschedPod("p", "", nodeSelector(apis.LabelInstanceTenancy, pod))
		expectNotScheduled(t, w.solve(p), p)
	}
}

// capacityBlockClass is the capacity-block specs' node class: one
// capacity block for c6g.large in us-east-1a, in the given state.
func capacityBlockClass(state string) *apis.EC2NodeClass {
	nc := awsNodeClass("al2023@latest", nil)
	nc.Status.CapacityReservations = []apis.CapacityReservation{{
		AvailabilityZone: "us-east-1a", ID: "cr-123", InstanceType: "c6g.large",
		ReservationType: apis.CapacityReservationTypeCapacityBlock, State: state,
	}}
	return nc
}

// capacityBlockCase checks the one reserved offering of the capacity
// block: its requirements, its availability (none while expiring) and the
// reservation's count.
func capacityBlockCase(state string) func(t *T) {
	return func(t *T) {
		counts := &instancetypes.ReservationAvailability{}
		counts.Sync("cr-123", 1, now)
		it := awsType(t, capacityBlockClass(state), instancetypes.AWSOptions{Reservations: counts, Now: now}, "c6g.large")
		var reserved []instancetypes.Offering
		for _, o := range it.Offerings {
			if o.CapacityType == apis.CapacityTypeReserved {
				reserved = append(reserved, o)
			}
		}
		require.Len(t, reserved, 1, "%+v", it.Offerings)
		o := reserved[0]
		reqs := o.Requirements()
		for key, want := range map[string]string{
			apis.LabelCapacityType:            apis.CapacityTypeReserved,
			apis.LabelTopologyZone:            "us-east-1a",
			apis.LabelCapacityReservationType: apis.CapacityReservationTypeCapacityBlock,
			apis.LabelCapacityReservationID:   "cr-123",
		} {
			r, ok := reqs.Lookup(key)
			require.True(t, ok, key)
			require.Equal(t, []string{want}, r.Values(), key)
		}
		require.Equal(t, state != apis.CapacityReservationStateExpiring, o.Available)
		require.Equal(t, 1, o.ReservationCapacity)
	}
}

// availableIn counts the type's available offerings and those in zone.
func availableIn(it *instancetypes.InstanceType, zone string) (all, inZone int) {
	for _, o := range it.Offerings {
		if o.Available {
			all++
			if o.Zone == zone {
				inZone++
			}
		}
	}
	return all, inZone
}

// subnetsWithZoneIDs is a node class whose status lists one subnet per
// zone of us-east-1, with the zone IDs ARC names zones by.
func subnetsWithZoneIDs() *apis.EC2NodeClass {
	nc := awsNodeClass("al2023@latest", nil)
	nc.Status.Subnets = []apis.Subnet{
		{ID: "subnet-a", Zone: "us-east-1a", ZoneID: "use1-az1"},
		{ID: "subnet-b", Zone: "us-east-1b", ZoneID: "use1-az2"},
		{ID: "subnet-c", Zone: "us-east-1c", ZoneID: "use1-az4"},
	}
	return nc
}

var _ = register("aws-offerings",
	conformanceCase{Name: "one-per-zone-and-capacity-type", Run: func(t *T) {
		// Built twice, as upstream lists twice (cache miss, then hit): the
		// same offerings, one per type, zone and capacity type.
		first := awsCatalog(t, awsNodeClass("al2023@latest", nil), instancetypes.AWSOptions{})
		second := awsCatalog(t, awsNodeClass("al2023@latest", nil), instancetypes.AWSOptions{})
		type pool struct{ instanceType, zone, capacityType string }
		for i, c := range []instancetypes.Catalog{first, second} {
			seen := map[pool]bool{}
			for _, it := range c {
				for _, o := range it.Offerings {
					p := pool{it.Name, o.Zone, o.CapacityType}
					require.False(t, seen[p], "listing %d: %+v twice", i, p)
					seen[p] = true
				}
				require.Len(t, it.Offerings, 6, it.Name) // 3 zones × on-demand and spot
			}
		}
		require.True(t, reflect.DeepEqual(first, second))
	}},
	conformanceCase{Name: "tenancy-default-when-unspecified", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		require.Equal(t, apis.TenancyDefault, tenancyOf(t, w, unschedPod("p", "")))
	}},
	conformanceCase{Name: "tenancy-default-when-both-allowed", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{}, onlyRequirement(apis.LabelInstanceTenancy, corev1.NodeSelectorOpIn, apis.TenancyDefault, apis.TenancyDedicated))
		require.Equal(t, apis.TenancyDefault, tenancyOf(t, w, unschedPod("p", "")))
	}},
	conformanceCase{Name: "tenancy-default-required", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		require.Equal(t, apis.TenancyDefault, tenancyOf(t, w, unschedPod("p", "", nodeSelector(apis.LabelInstanceTenancy, apis.TenancyDefault))))
	}},
	conformanceCase{Name: "tenancy-dedicated-required", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		require.Equal(t, apis.TenancyDedicated, tenancyOf(t, w, unschedPod("p", "", nodeSelector(apis.LabelInstanceTenancy, apis.TenancyDedicated))))
	}},
	conformanceCase{Name: "tenancy-dedicated-pool-default-pod", Run: tenancyViolation(apis.TenancyDedicated, apis.TenancyDefault)},
	conformanceCase{Name: "tenancy-default-pool-dedicated-pod", Run: tenancyViolation(apis.TenancyDefault, apis.TenancyDedicated)},
	conformanceCase{Name: "capacity-block-active", Run: capacityBlockCase(apis.CapacityReservationStateActive)},
	conformanceCase{Name: "capacity-block-expiring", Run: capacityBlockCase(apis.CapacityReservationStateExpiring)},
	conformanceCase{Name: "zonal-shift", Run: func(t *T) {
		nc := subnetsWithZoneIDs()
		before := awsType(t, nc, instancetypes.AWSOptions{}, "m5.large")
		all, _ := availableIn(before, "us-east-1a")
		require.Equal(t, 6, all) // 3 zones × 2 capacity types
		// ARC names the zone by its ID.
		during := awsType(t, nc, instancetypes.AWSOptions{ZonalShifts: []string{"use1-az1"}}, "m5.large")
		all, inZone := availableIn(during, "us-east-1a")
		require.Equal(t, 4, all)
		require.Zero(t, inZone)
		after := awsType(t, nc, instancetypes.AWSOptions{ZonalShifts: nil}, "m5.large")
		all, _ = availableIn(after, "us-east-1a")
		require.Equal(t, 6, all)
	}},
	conformanceCase{Name: "local-zone", Run: func(t *T) {
		const local = "us-east-1-bos-1a"
		nc := awsNodeClass("al2023@latest", nil)
		nc.Status.Subnets = []apis.Subnet{{ID: "subnet-test1", Zone: local}}
		w := awsWorld(t, nc, instancetypes.AWSOptions{})
		p := unschedPod("p", "", nodeRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, local)))
		require.Equal(t, local, claimOf(t, w.solve(p), p).Zone)
	}},
)

// learnedClass is the capacity controller suite's node class: a standard
// AMI for amd64 types without GPUs and an NVIDIA AMI for those with, in
// the given order.
func learnedClass(nvidiaFirst bool) *apis.EC2NodeClass {
	standard := apis.AMI{ID: "ami-standard-test", Name: "standard-ami", Requirements: []corev1.NodeSelectorRequirement{
		{Key: apis.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.ArchitectureAmd64}},
		{Key: apis.LabelInstanceGPUCount, Operator: corev1.NodeSelectorOpDoesNotExist},
	}}
	nvidia := apis.AMI{ID: "ami-nvidia-test", Name: "nvidia-ami", Requirements: []corev1.NodeSelectorRequirement{
		{Key: apis.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.ArchitectureAmd64}},
		{Key: apis.LabelInstanceGPUCount, Operator: corev1.NodeSelectorOpExists},
	}}
	nc := awsNodeClass("al2023@latest", nil)
	nc.Status.AMIs = []apis.AMI{standard, nvidia}
	if nvidiaFirst {
		nc.Status.AMIs = []apis.AMI{nvidia, standard}
	}
	return nc
}

// registeredNode is the labels of a registered node of the type.
func registeredNode(instanceType string) map[string]string {
	return map[string]string{apis.LabelInstanceType: instanceType, apis.LabelArch: apis.ArchitectureAmd64, apis.LabelNodeRegistered: "true"}
}

var _ = register("aws-capacity",
	conformanceCase{Name: "memory-learned-from-node", Run: func(t *T) {
		nc := learnedClass(false)
		learned := &instancetypes.LearnedMemory{}
		const reported = 3840 << 20
		require.True(t, learned.Observe(nc, registeredNode("t3.medium"), "ami-standard-test", reported))
		it := awsType(t, nc, instancetypes.AWSOptions{LearnedMemory: learned}, "t3.medium")
		require.Equal(t, int64(reported), it.Capacity.Memory())
		// Under other AMIs the estimate is back.
		other := learnedClass(false)
		other.Status.AMIs[0].ID = "ami-new-test-id"
		estimate := awsType(t, other, instancetypes.AWSOptions{}, "t3.medium")
		require.Equal(t, estimate.Capacity.Memory(), awsType(t, other, instancetypes.AWSOptions{LearnedMemory: learned}, "t3.medium").Capacity.Memory())
		require.NotEqual(t, int64(reported), estimate.Capacity.Memory())
	}},
	conformanceCase{Name: "memory-learned-for-matching-ami", Run: func(t *T) {
		// The NVIDIA AMI comes first but does not suit a type without GPUs;
		// the node launched with the standard AMI, the one the class picks.
		nc := learnedClass(true)
		learned := &instancetypes.LearnedMemory{}
		const reported = 4 << 30
		require.True(t, learned.Observe(nc, registeredNode("m5.large"), "ami-standard-test", reported))
		require.Equal(t, int64(reported), awsType(t, nc, instancetypes.AWSOptions{LearnedMemory: learned}, "m5.large").Capacity.Memory())
		// A node launched with an AMI the class would not pick teaches nothing.
		require.False(t, learned.Observe(nc, registeredNode("m5.xlarge"), "ami-nvidia-test", reported))
	}},
)

var _ = register("aws-reservations",
	conformanceCase{Name: "listed-counts", Run: func(t *T) {
		// Two reservations of m5.large in one zone, reported with 10 and
		// 15 instances free: the counts, and the offerings, carry them.
		counts := &instancetypes.ReservationAvailability{}
		reported := map[string]int{"cr-m5large1a1": 10, "cr-m5large1a2": 15}
		nc := awsNodeClass("al2023@latest", nil)
		for _, id := range []string{"cr-m5large1a1", "cr-m5large1a2"} {
			counts.Sync(id, reported[id], now)
			nc.Status.CapacityReservations = append(nc.Status.CapacityReservations, apis.CapacityReservation{
				AvailabilityZone: "us-east-1a", ID: id, InstanceType: "m5.large", OwnerID: "012345678901",
				InstanceMatchCriteria: "targeted", State: apis.CapacityReservationStateActive,
				EndTime: &metav1.Time{Time: now.Add(time.Hour)},
			})
		}
		for id, n := range reported {
			require.Equal(t, n, counts.Available(id), id)
		}
		got := map[string]int{}
		for _, o := range awsType(t, nc, instancetypes.AWSOptions{Reservations: counts, Now: now}, "m5.large").Offerings {
			if o.ReservationID != "" {
				got[o.ReservationID] = o.ReservationCapacity
				require.True(t, o.Available, o.ReservationID)
			}
		}
		require.Equal(t, reported, got)
	}},
	conformanceCase{Name: "launch-lowers-count", Run: func(t *T) {
		counts := &instancetypes.ReservationAvailability{}
		counts.Sync("cr-test", 5, now)
		counts.MarkLaunched("cr-test-2", now)
		require.Equal(t, 5, counts.Available("cr-test"))
		counts.MarkLaunched("cr-test", now)
		require.Equal(t, 4, counts.Available("cr-test"))
	}},
	conformanceCase{Name: "termination-raises-count", Run: func(t *T) {
		counts := &instancetypes.ReservationAvailability{}
		counts.Sync("cr-test", 5, now)
		counts.MarkTerminated("cr-test-2", "i-1", now)
		require.Equal(t, 5, counts.Available("cr-test"))
		counts.MarkTerminated("cr-test", "i-2", now)
		require.Equal(t, 6, counts.Available("cr-test"))
	}},
)
