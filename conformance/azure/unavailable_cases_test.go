package azure

import (
	"errors"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/instancetypes"
)

// The launch-error cases: a launch fails with an error of Azure's, the
// provider marks offerings unavailable (azure.UnavailableOfferings), and
// the next provisioning runs on the catalog with those marks. The suite's
// pricing provider starts, as it runs, with spot priced as on-demand (its
// static list has no spot prices), so these cases price spot so too.

// suitePricing is the catalog with each spot offering at the on-demand
// price of its zone.
func suitePricing(c instancetypes.Catalog) instancetypes.Catalog {
	out := make(instancetypes.Catalog, len(c))
	for i, it := range c {
		offerings := slices.Clone(it.Offerings)
		for j := range offerings {
			if offerings[j].CapacityType != apis.CapacityTypeSpot {
				continue
			}
			for _, o := range it.Offerings {
				if o.Zone == offerings[j].Zone && o.CapacityType == apis.CapacityTypeOnDemand {
					offerings[j].Price = o.Price
				}
			}
		}
		cp := *it
		cp.Offerings = offerings
		out[i] = &cp
	}
	return out
}

// iceWorld is the suite's world in region under the marks of u at the
// given time.
type iceWorld struct {
	t      *T
	region string
	pool   *apis.NodePool
	u      *azure.UnavailableOfferings
}

func newICEWorld(t *T, region string, reqs ...requirement) *iceWorld {
	return &iceWorld{t: t, region: region, pool: nodePool(reqs...), u: &azure.UnavailableOfferings{}}
}

func (w *iceWorld) at(now time.Time) world {
	return world{w.u.Apply(suitePricing(catalogOf(w.t, w.region, azure.Settings{})), now), w.pool}
}

// fail answers the launch the labels describe with the error kind.
func (w *iceWorld) fail(kind azure.LaunchError, labels map[string]string) *azure.LaunchFailure {
	w.t.Helper()
	c := catalogOf(w.t, w.region, azure.Settings{})
	f, err := w.u.HandleLaunchError(kind, sizeOf(w.t, c, labels[apis.LabelInstanceType]), labels[apis.LabelTopologyZone], labels[apis.LabelCapacityType], now)
	if err != nil {
		w.t.Fatalf("HandleLaunchError: %v", err)
	}
	return f
}

func (w *iceWorld) expectUnavailable(size, zone, capacityType string) {
	w.t.Helper()
	if !w.u.IsUnavailable(size, zone, capacityType, now) {
		w.t.Errorf("%s %s in zone %s is available", capacityType, size, zone)
	}
}

func bothCapacityTypes() requirement {
	return in(apis.LabelCapacityType, apis.CapacityTypeOnDemand, apis.CapacityTypeSpot)
}

// markBoth marks a size in a zone unavailable, both capacity types.
func (w *iceWorld) markBoth(size string, zones ...string) {
	for _, zone := range zones {
		for _, ct := range []string{apis.CapacityTypeSpot, apis.CapacityTypeOnDemand} {
			w.u.Mark(size, zone, ct, now, azure.UnavailableTTL)
		}
	}
}

var suiteZones = []string{fakeRegion + "-1", fakeRegion + "-2", fakeRegion + "-3"}

var _ = register("unavailable",
	conformanceCase{Name: "low-priority-quota", Run: func(t *T) {
		w := newICEWorld(t, fakeRegion, bothCapacityTypes())
		first := w.at(now).launch(t, pendingPod("p"))[0]
		expectLabel(t, first, apis.LabelCapacityType, apis.CapacityTypeSpot)
		w.fail(azure.ErrLowPriorityQuota, first)
		expectLabel(t, w.at(now.Add(time.Second)).launch(t, pendingPod("p"))[0], apis.LabelCapacityType, apis.CapacityTypeOnDemand)
	}},
	conformanceCase{Name: "overconstrained-zonal", Run: func(t *T) {
		w := newICEWorld(t, fakeRegion, bothCapacityTypes())
		first := w.at(now).launch(t, pendingPod("p"))[0]
		w.fail(azure.ErrOverconstrainedZonalAllocation, first)
		w.expectUnavailable(first[apis.LabelInstanceType], first[apis.LabelTopologyZone], apis.CapacityTypeSpot)
		second := w.at(now).launch(t, pendingPod("p"))[0]
		expectLabel(t, second, apis.LabelInstanceType, first[apis.LabelInstanceType])
		expectLabel(t, second, apis.LabelCapacityType, first[apis.LabelCapacityType])
		expectLabel(t, second, azure.LabelPlacementScope, azure.PlacementScopeZonal)
		if second[apis.LabelTopologyZone] == first[apis.LabelTopologyZone] {
			t.Errorf("launched again in zone %s", first[apis.LabelTopologyZone])
		}
	}},
	conformanceCase{Name: "overconstrained", Run: func(t *T) {
		w := newICEWorld(t, fakeRegion, bothCapacityTypes(), in(azure.LabelPlacementScope, azure.PlacementScopeZonal))
		first := w.at(now).launch(t, pendingPod("p"))[0]
		w.fail(azure.ErrOverconstrainedAllocation, first)
		second := w.at(now).launch(t, pendingPod("p"))[0]
		expectLabel(t, second, apis.LabelInstanceType, first[apis.LabelInstanceType])
		expectLabel(t, second, apis.LabelCapacityType, apis.CapacityTypeOnDemand)
		expectLabel(t, second, azure.LabelPlacementScope, azure.PlacementScopeZonal)
		if first[apis.LabelCapacityType] == apis.CapacityTypeOnDemand {
			t.Errorf("the first launch was already on-demand")
		}
	}},
	conformanceCase{Name: "allocation-failure-other-scope", Run: func(t *T) {
		w := newICEWorld(t, fakeRegion, in(apis.LabelInstanceType, "Standard_D2_v3", "Standard_D64s_v3"))
		first := w.at(now).launch(t, pendingPod("p"))[0]
		w.fail(azure.ErrAllocationFailed, first)
		w.expectUnavailable(first[apis.LabelInstanceType], first[apis.LabelTopologyZone], apis.CapacityTypeSpot)
		second := w.at(now).launch(t, pendingPod("p"))[0]
		expectLabel(t, second, apis.LabelInstanceType, first[apis.LabelInstanceType])
		expectLabel(t, second, apis.LabelTopologyZone, azure.RegionalZone)
	}},
	conformanceCase{Name: "allocation-failure-no-regional", Run: func(t *T) {
		w := newICEWorld(t, fakeRegion, in(apis.LabelInstanceType, "Standard_D2_v3"))
		w.markBoth("Standard_D2_v3", azure.RegionalZone)
		first := w.at(now).launch(t, pendingPod("p"))[0]
		w.fail(azure.ErrAllocationFailed, first)
		for _, zone := range []string{first[apis.LabelTopologyZone], azure.RegionalZone} {
			w.expectUnavailable("Standard_D2_v3", zone, apis.CapacityTypeSpot)
			w.expectUnavailable("Standard_D2_v3", zone, apis.CapacityTypeOnDemand)
		}
		w.at(now).expectNotScheduled(t, pendingPod("p"))
	}},
	conformanceCase{Name: "family-quota", Run: func(t *T) { familyQuota(t, azure.ErrFamilyQuota, azure.LowQuotaTTL) }},
	conformanceCase{Name: "family-quota-zero", Run: func(t *T) { familyQuota(t, azure.ErrFamilyQuotaZero, azure.QuotaReachedTTL) }},
	conformanceCase{Name: "regional-quota", Run: func(t *T) {
		w := newICEWorld(t, fakeRegion)
		first := w.at(now).launch(t, pendingPod("p"))[0]
		f := w.fail(azure.ErrRegionalQuota, first)
		if !errors.Is(f, azure.ErrInsufficientCapacity) {
			t.Errorf("%v is not an insufficient-capacity error", f)
		}
		if w.u.IsUnavailable(first[apis.LabelInstanceType], first[apis.LabelTopologyZone], first[apis.LabelCapacityType], now) {
			t.Errorf("the offering launched is marked unavailable")
		}
	}},
	conformanceCase{Name: "zone-marked-unavailable", Run: func(t *T) {
		w := newICEWorld(t, fakeRegion, in(apis.LabelInstanceType, "Standard_D2_v2"))
		w.markBoth("Standard_D2_v2", fakeZone1)
		labels := w.at(now).launch(t, pendingPod("p"))[0]
		expectLabel(t, labels, apis.LabelInstanceType, "Standard_D2_v2")
		if labels[apis.LabelTopologyZone] == fakeZone1 {
			t.Errorf("launched in %s, which is marked unavailable", fakeZone1)
		}
	}},
	conformanceCase{Name: "zonal-allocation-failure", Run: func(t *T) {
		w := newICEWorld(t, fakeRegion, in(apis.LabelInstanceType, "Standard_D2_v2"))
		first := w.at(now).launch(t, pendingPod("p"))[0]
		zone := first[apis.LabelTopologyZone]
		w.fail(azure.ErrZonalAllocationFailed, first)
		// The provider also blocks the family's larger sizes in the zone.
		for _, it := range catalogOf(t, fakeRegion, azure.Settings{}) {
			if it.Labels()[azure.LabelSKUSeries] != "D_v2" {
				continue
			}
			w.expectUnavailable(it.Name, zone, apis.CapacityTypeSpot)
			w.expectUnavailable(it.Name, zone, apis.CapacityTypeOnDemand)
		}
		if second := w.at(now).launch(t, pendingPod("p"))[0]; second[apis.LabelTopologyZone] == zone {
			t.Errorf("launched again in zone %s", zone)
		}
	}},
	conformanceCase{Name: "list-zonal", Run: func(t *T) { unavailableList(t, fakeRegion, suiteZones) }},
	conformanceCase{Name: "list-non-zonal", Run: func(t *T) { unavailableList(t, nonZonalRegion, []string{azure.RegionalZone}) }},
	conformanceCase{Name: "preferred-zone-unavailable", Run: func(t *T) {
		w := newICEWorld(t, fakeRegion)
		w.markBoth("Standard_D2_v2", fakeZone1)
		p := pendingPod("p", selecting(apis.LabelInstanceType, "Standard_D2_v2"))
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{fakeZone1}}}},
		}}}}
		labels := w.at(now).launch(t, p)[0]
		expectLabel(t, labels, apis.LabelInstanceType, "Standard_D2_v2")
		if labels[apis.LabelTopologyZone] == fakeZone1 {
			t.Errorf("launched in %s, which is marked unavailable", fakeZone1)
		}
	}},
	conformanceCase{Name: "smaller-after-ice", Run: func(t *T) {
		w := newICEWorld(t, fakeRegion, in(apis.LabelInstanceType, "Standard_DS2_v2", "Standard_F16s_v2"))
		w.markBoth("Standard_F16s_v2", fakeZone1)
		pods := []*corev1.Pod{
			pendingPod("a", requesting(corev1.ResourceCPU, "1"), selecting(apis.LabelTopologyZone, fakeZone1)),
			pendingPod("b", requesting(corev1.ResourceCPU, "1"), selecting(apis.LabelTopologyZone, fakeZone1)),
		}
		res := w.at(now).solve(pods...)
		if len(res.NodeClaims) != 2 {
			t.Fatalf("%d NodeClaims, want 2: %+v", len(res.NodeClaims), res.NodeClaims)
		}
		for _, c := range res.NodeClaims {
			if c.InstanceType != "Standard_DS2_v2" || len(c.Pods) != 1 {
				t.Errorf("claim %s: %s with %v, want Standard_DS2_v2 with one pod", c.Name, c.InstanceType, c.Pods)
			}
		}
	}},
	conformanceCase{Name: "expiry-zonal", Run: func(t *T) { unavailableExpiry(t, fakeRegion, append([]string{azure.RegionalZone}, suiteZones...)) }},
	conformanceCase{Name: "expiry-non-zonal", Run: func(t *T) { unavailableExpiry(t, nonZonalRegion, []string{azure.RegionalZone}) }},
	conformanceCase{Name: "sku-not-available-spot", Run: func(t *T) { skuNotAvailable(t, apis.CapacityTypeSpot) }},
	conformanceCase{Name: "sku-not-available-on-demand", Run: func(t *T) { skuNotAvailable(t, apis.CapacityTypeOnDemand) }},
)

// familyQuota: the launch fails on the family's quota; the size's
// offerings of the capacity type stay unavailable for ttl, and another
// pod launches on something else meanwhile.
func familyQuota(t *T, kind azure.LaunchError, ttl time.Duration) {
	w := newICEWorld(t, fakeRegion)
	first := w.at(now).launch(t, pendingPod("p"))[0]
	size, ct := first[apis.LabelInstanceType], first[apis.LabelCapacityType]
	w.fail(kind, first)
	for _, o := range sizeOf(t, catalogOf(t, fakeRegion, azure.Settings{}), size).Offerings {
		if o.CapacityType != ct {
			continue
		}
		w.expectUnavailable(size, o.Zone, ct)
		if w.u.IsUnavailable(size, o.Zone, ct, now.Add(ttl+time.Second)) {
			t.Errorf("%s still unavailable in %s after %v", size, o.Zone, ttl)
		}
	}
	second := w.at(now).launch(t, pendingPod("q"))[0]
	if second[apis.LabelInstanceType] == size && second[apis.LabelCapacityType] == ct {
		t.Errorf("launched %s %s again", ct, size)
	}
}

// unavailableList: with Standard_D2_v2 marked in every zone, only its
// regional offerings are left, in a region without zones none; every
// other size keeps an available offering.
func unavailableList(t *T, region string, zones []string) {
	w := newICEWorld(t, region)
	w.markBoth("Standard_D2_v2", zones...)
	seen := false
	for _, it := range w.at(now).catalog {
		var available []string
		for _, o := range it.Offerings {
			if o.Available {
				available = append(available, o.Zone)
			}
		}
		switch {
		case it.Name != "Standard_D2_v2":
			if len(available) == 0 {
				t.Errorf("%s has no available offering", it.Name)
			}
		case region == fakeRegion:
			seen = true
			if want := []string{azure.RegionalZone, azure.RegionalZone}; !slices.Equal(available, want) {
				t.Errorf("Standard_D2_v2 available in %v, want %v", available, want)
			}
		default:
			seen = true
			if len(available) != 0 {
				t.Errorf("Standard_D2_v2 available in %v, want none", available)
			}
		}
	}
	if !seen {
		t.Errorf("Standard_D2_v2 is not in the catalog of %s", region)
	}
}

// unavailableExpiry: with every offering of Standard_D2_v2 marked, its pod
// waits; once the marks are gone it launches.
func unavailableExpiry(t *T, region string, zones []string) {
	w := newICEWorld(t, region)
	w.markBoth("Standard_D2_v2", zones...)
	p := pendingPod("p", selecting(apis.LabelInstanceType, "Standard_D2_v2"))
	w.at(now).expectNotScheduled(t, p)
	w.u.Flush()
	expectLabel(t, w.at(now).launch(t, p)[0], apis.LabelInstanceType, "Standard_D2_v2")
}

// skuNotAvailable: the size is not available to the subscription with the
// capacity type; the provider marks it so in every zone.
func skuNotAvailable(t *T, capacityType string) {
	w := newICEWorld(t, fakeRegion, in(apis.LabelInstanceType, "Standard_D2_v3"), in(apis.LabelCapacityType, capacityType))
	first := w.at(now).launch(t, pendingPod("p"))[0]
	w.fail(azure.ErrSKUNotAvailable, first)
	for _, zone := range suiteZones {
		w.expectUnavailable("Standard_D2_v3", zone, capacityType)
	}
}
