package instancetypes

import (
	"testing"

	"github.com/karpsim/karpsim/apis"
)

// TestLaunchSettingsCompatibility checks each rule of compatibility.go on
// real types: a type the node class's settings rule out keeps its
// offerings, none available.
func TestLaunchSettingsCompatibility(t *testing.T) {
	pick := func(names ...string) []EC2Facts {
		var out []EC2Facts
		for _, f := range EmbeddedFacts() {
			for _, n := range names {
				if f.InstanceType == n {
					out = append(out, f)
				}
			}
		}
		return out
	}
	efaOnly := func(card, device int32) *apis.NetworkInterface {
		return &apis.NetworkInterface{NetworkCardIndex: card, DeviceIndex: device, InterfaceType: apis.InterfaceTypeEFAOnly}
	}
	primary := &apis.NetworkInterface{InterfaceType: apis.InterfaceTypeInterface}
	for _, tc := range []struct {
		name     string
		alias    string
		change   func(nc *apis.EC2NodeClass)
		strategy string
		want     map[string]bool
	}{
		{"a1 on AL2023", "al2023@latest", nil, "", map[string]bool{"a1.large": false, "m5.large": true}},
		{"a1 on Bottlerocket", "bottlerocket@latest", nil, "", map[string]bool{"a1.large": true}},
		{"EFA-only interfaces", "al2023@latest", func(nc *apis.EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []*apis.NetworkInterface{primary, efaOnly(0, 1), efaOnly(1, 0)}
		}, "", map[string]bool{"m6idn.32xlarge": true, "g4dn.8xlarge": false, "m5.large": false}},
		{"ENA", "al2023@latest", func(nc *apis.EC2NodeClass) { nc.Spec.NetworkInterfaces = []*apis.NetworkInterface{primary} },
			"", map[string]bool{"c4.large": false, "m5.large": true}},
		{"device index", "al2023@latest", func(nc *apis.EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []*apis.NetworkInterface{primary, {DeviceIndex: 3, InterfaceType: apis.InterfaceTypeInterface}}
		}, "", map[string]bool{"m5.large": false, "m5.xlarge": true}},
		{"cluster placement", "al2023@latest", nil, apis.PlacementStrategyCluster, map[string]bool{"t3.large": false, "m5.large": true}},
		{"nested virtualization", "al2023@latest", func(nc *apis.EC2NodeClass) {
			on := apis.NestedVirtualizationEnabled
			nc.Spec.CPUOptions = &apis.CPUOptions{NestedVirtualization: &on}
		}, "", map[string]bool{"m5.large": false}},
		{"connection tracking", "al2023@latest", func(nc *apis.EC2NodeClass) {
			s := int32(60)
			nc.Spec.ConnectionTracking = &apis.ConnectionTracking{UDPStreamTimeout: &s}
		}, "", map[string]bool{"m5.large": true, "m5.metal": false, "m4.large": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := &apis.EC2NodeClass{Spec: apis.EC2NodeClassSpec{AMISelectorTerms: []apis.AMISelectorTerm{{Alias: tc.alias}}}}
			if tc.change != nil {
				tc.change(nc)
			}
			var names []string
			for n := range tc.want {
				names = append(names, n)
			}
			c, err := NewAWS(pick(names...), AWSOptions{NodeClass: nc, PlacementGroupStrategy: tc.strategy})
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tc.want {
				it := mustGet(t, c, name)
				available := 0
				for _, o := range it.Offerings {
					if o.Available {
						available++
					}
				}
				if len(it.Offerings) == 0 || (available > 0) != want || (want && available != len(it.Offerings)) {
					t.Errorf("%s: %d of %d offerings available, want compatible %v", name, available, len(it.Offerings), want)
				}
			}
		})
	}
}

func TestLaunchSettingsErrors(t *testing.T) {
	nc := &apis.EC2NodeClass{Spec: apis.EC2NodeClassSpec{AMISelectorTerms: []apis.AMISelectorTerm{{Alias: "al2023@latest"}},
		NetworkInterfaces: []*apis.NetworkInterface{nil}}}
	nc.Name = "gpu"
	if _, err := NewAWS(nil, AWSOptions{NodeClass: nc}); err == nil || err.Error() != `invalid AWS options: EC2NodeClass "gpu": networkInterfaces[0]: empty` {
		t.Errorf("NewAWS: %v", err)
	}
	if _, err := NewAWS(nil, AWSOptions{PlacementGroupStrategy: "host"}); err == nil || err.Error() != `invalid AWS options: PlacementGroupStrategy "host" is not cluster, partition or spread` {
		t.Errorf("NewAWS: %v", err)
	}
}

func TestPlacementStrategyFor(t *testing.T) {
	name := "g"
	plain := &apis.EC2NodeClass{}
	grouped := &apis.EC2NodeClass{Spec: apis.EC2NodeClassSpec{PlacementGroupSelector: &apis.PlacementGroupSelector{Name: &name}}}
	if got := PlacementStrategyFor(plain, apis.PlacementStrategyCluster); got != "" {
		t.Errorf("a class without a selector got strategy %q", got)
	}
	if got := PlacementStrategyFor(nil, apis.PlacementStrategyCluster); got != "" {
		t.Errorf("no class got strategy %q", got)
	}
	if got := PlacementStrategyFor(grouped, apis.PlacementStrategyCluster); got != apis.PlacementStrategyCluster {
		t.Errorf("a class with a selector got strategy %q", got)
	}
}
