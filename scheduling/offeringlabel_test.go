package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

// scopedCatalog is one type with a regional offering in zone "0" and a
// zonal one in zone-1 at the same price, the zonal one preferred, as the
// Azure model builds them.
func scopedCatalog(t *testing.T) instancetypes.Catalog {
	t.Helper()
	const key = "example.com/placement"
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:     "scoped",
		Labels:   map[string]string{apis.LabelArch: apis.ArchitectureAmd64, apis.LabelOS: "linux"},
		Capacity: resources.New(4000, 8<<30, 100),
		Offerings: []instancetypes.Offering{
			{Zone: "0", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true,
				Label: instancetypes.OfferingLabel{Key: key, Value: "regional"}, Preference: 1},
			{Zone: "zone-1", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true,
				Label: instancetypes.OfferingLabel{Key: key, Value: "zonal"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := instancetypes.NewCatalog(it)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOfferingLabelAndPreference(t *testing.T) {
	c := scopedCatalog(t)
	for _, tc := range []struct {
		name      string
		opts      []podOption
		zone, lbl string
	}{
		{"preferred at equal prices", nil, "zone-1", "zonal"},
		{"selected by its label", []podOption{withNodeSelector("example.com/placement", "regional")}, "0", "regional"},
	} {
		np := newPool("default")
		res := Solve(Input{Pods: []*corev1.Pod{newPod("p", "1", "1Gi", tc.opts...)}, NodePools: []Pool{{NodePool: np, InstanceTypes: c}}})
		if len(res.NodeClaims) != 1 {
			t.Fatalf("%s: %d claims: %+v", tc.name, len(res.NodeClaims), res.Unschedulable)
		}
		claim := res.NodeClaims[0]
		labels := claim.LaunchLabels(c[0], np)
		if claim.Zone != tc.zone || labels["example.com/placement"] != tc.lbl || labels[apis.LabelTopologyZone] != tc.zone {
			t.Errorf("%s: zone %s, labels %v; want zone %s labelled %s", tc.name, claim.Zone, labels, tc.zone, tc.lbl)
		}
	}
	// Zonal in zone 0 is no offering.
	np := newPool("default")
	res := Solve(Input{Pods: []*corev1.Pod{newPod("p", "1", "1Gi", withNodeSelector("example.com/placement", "zonal", apis.LabelTopologyZone, "0"))},
		NodePools: []Pool{{NodePool: np, InstanceTypes: c}}})
	if len(res.NodeClaims) != 0 || len(res.Unschedulable) != 1 {
		t.Errorf("zonal in zone 0: claims %+v", res.NodeClaims)
	}
}
