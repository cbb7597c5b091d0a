package azure

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
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

// quotaRun is the instance suite's quota scenario: pods provisioned in
// rounds, each NodeClaim launched in turn on the cheapest available
// offering of its instance types (as the provider's Create picks among
// the claim's), and the suite's fake Azure refusing a launch that takes
// the standardDSv3Family (series Ds_v3) past limit cores with the family
// quota error. A claim launched binds its pods; one that fails is
// deleted, its pods provisioned again in the next round.
type quotaRun struct {
	t       *T
	w       *iceWorld
	pools   []*apis.NodePool
	limit   int64
	used    int64
	pending []*corev1.Pod
	nodes   map[string]int
}

var errICE = errors.New("insufficient capacity: no offering of the NodeClaim's instance types is available")

func (q *quotaRun) schedule() []scheduling.NodeClaim {
	c := q.w.at(now).catalog
	pools := make([]scheduling.Pool, len(q.pools))
	for i, np := range q.pools {
		pools[i] = scheduling.Pool{NodePool: np, InstanceTypes: c}
	}
	return scheduling.Solve(scheduling.Input{Pods: q.pending, NodePools: pools}).NodeClaims
}

// deploy launches the claim: its size, or the launch's error.
func (q *quotaRun) deploy(claim scheduling.NodeClaim) (string, error) {
	c := q.w.at(now).catalog
	reqs, err := requirements.FromNodeSelectorRequirements(claim.Requirements...)
	if err != nil {
		q.t.Fatalf("claim %s requirements: %v", claim.Name, err)
	}
	var best *instancetypes.InstanceType
	var offering instancetypes.Offering
	for _, name := range claim.InstanceTypeOptions {
		it, ok := c.Get(name)
		if !ok {
			continue
		}
		if o, ok := it.CheapestOffering(reqs); ok && (best == nil || o.Price < offering.Price) {
			best, offering = it, o
		}
	}
	if best == nil {
		return "", errICE
	}
	labels := best.Labels()
	if labels[azure.LabelSKUSeries] == "Ds_v3" {
		vcpus := best.Capacity.Get(corev1.ResourceCPU) / 1000
		if q.used+vcpus > q.limit {
			return best.Name, q.w.fail(azure.ErrFamilyQuota, map[string]string{apis.LabelInstanceType: best.Name,
				apis.LabelTopologyZone: offering.Zone, apis.LabelCapacityType: offering.CapacityType})
		}
		q.used += vcpus
	}
	return best.Name, nil
}

// bind places the claim's pods on its node of the size.
func (q *quotaRun) bind(claim scheduling.NodeClaim, size string) {
	q.nodes[size]++
	q.pending = slices.DeleteFunc(q.pending, func(p *corev1.Pod) bool { return slices.Contains(claim.Pods, apis.PodKey(p)) })
}

func (q *quotaRun) expectClaims(claims []scheduling.NodeClaim, n int) {
	q.t.Helper()
	if len(claims) != n {
		q.t.Fatalf("%d NodeClaims, want %d", len(claims), n)
	}
}

// expectDeploy launches the claim and checks the outcome: the size, or a
// quota error on the size (quota), or insufficient capacity (ice).
func (q *quotaRun) expectDeploy(claim scheduling.NodeClaim, want string) {
	q.t.Helper()
	size, err := q.deploy(claim)
	switch {
	case want == "ice" && !errors.Is(err, errICE):
		q.t.Fatalf("claim %s: %s, %v, want insufficient capacity", claim.Name, size, err)
	case strings.HasPrefix(want, "quota "):
		var f *azure.LaunchFailure
		if !errors.As(err, &f) || f.Err != azure.ErrFamilyQuota || size != strings.TrimPrefix(want, "quota ") {
			q.t.Fatalf("claim %s: %s, %v, want the family quota on %s", claim.Name, size, err, strings.TrimPrefix(want, "quota "))
		}
	case want != "ice" && !strings.HasPrefix(want, "quota "):
		if err != nil || size != want {
			q.t.Fatalf("claim %s: %s, %v, want %s", claim.Name, size, err, want)
		}
		q.bind(claim, size)
	}
}

func newQuotaRun(t *T, pools ...*apis.NodePool) *quotaRun {
	return &quotaRun{t: t, w: newICEWorld(t, fakeRegion), pools: pools, limit: 50, nodes: map[string]int{},
		pending: replicas(50, "p", requesting(corev1.ResourceCPU, "1500m"))}
}

var _ = register("quota",
	conformanceCase{Name: "family-fallback", Run: func(t *T) {
		q := newQuotaRun(t, nodePool(in(azure.LabelSKUSeries, "Ds_v3", "D_v5"), in(apis.LabelCapacityType, apis.CapacityTypeOnDemand)))
		claims := q.schedule()
		q.expectClaims(claims, 2)
		q.expectDeploy(claims[0], "quota Standard_D64s_v3")
		for _, c := range claims {
			q.expectDeploy(c, "ice")
		}
		claims = q.schedule()
		q.expectClaims(claims, 25)
		for _, c := range claims[:12] {
			q.expectDeploy(c, "Standard_D4s_v3")
		}
		q.expectDeploy(claims[12], "quota Standard_D4s_v3")
		for _, c := range claims[12:] {
			q.expectDeploy(c, "ice")
		}
		claims = q.schedule()
		q.expectClaims(claims, 26)
		q.expectDeploy(claims[0], "Standard_D2s_v3")
		q.expectDeploy(claims[1], "quota Standard_D2s_v3")
		for _, c := range claims[1:] {
			q.expectDeploy(c, "Standard_D2_v5")
		}
		q.expectAllPlaced(map[string]int{"Standard_D4s_v3": 12, "Standard_D2s_v3": 1, "Standard_D2_v5": 25})
	}},
	conformanceCase{Name: "nodepool-fallback", Run: func(t *T) {
		a := nodePool(in(azure.LabelSKUSeries, "Ds_v3"), in(apis.LabelCapacityType, apis.CapacityTypeOnDemand))
		a.Name, a.Spec.Weight = "a", ptr(int32(100))
		b := nodePool(in(azure.LabelSKUSeries, "D_v5"), in(apis.LabelCapacityType, apis.CapacityTypeOnDemand))
		b.Name, b.Spec.Weight = "b", ptr(int32(10))
		q := newQuotaRun(t, a, b)
		claims := q.schedule()
		q.expectClaims(claims, 2)
		q.expectDeploy(claims[0], "quota Standard_D64s_v3")
		for _, c := range claims {
			q.expectDeploy(c, "ice")
		}
		claims = q.schedule()
		q.expectClaims(claims, 25)
		for _, c := range claims[:12] {
			q.expectDeploy(c, "Standard_D4s_v3")
		}
		q.expectDeploy(claims[12], "quota Standard_D4s_v3")
		for _, c := range claims[12:] {
			q.expectDeploy(c, "ice")
		}
		claims = q.schedule()
		q.expectClaims(claims, 26)
		q.expectDeploy(claims[0], "Standard_D2s_v3")
		q.expectDeploy(claims[1], "quota Standard_D2s_v3")
		for _, c := range claims[1:] {
			q.expectDeploy(c, "ice")
		}
		claims = q.schedule()
		if len(claims) == 0 {
			t.Fatalf("no NodeClaims for the %d pods left", len(q.pending))
		}
		for _, c := range claims {
			if c.NodePool != "b" {
				t.Errorf("claim %s of NodePool %s, want b", c.Name, c.NodePool)
			}
			q.expectDeploy(c, "Standard_D2_v5")
		}
		q.expectAllPlaced(map[string]int{"Standard_D4s_v3": 12, "Standard_D2s_v3": 1, "Standard_D2_v5": 25})
	}},
)

func (q *quotaRun) expectAllPlaced(want map[string]int) {
	q.t.Helper()
	if len(q.pending) != 0 {
		q.t.Errorf("%d pods left pending", len(q.pending))
	}
	for _, zone := range suiteZones {
		q.w.expectUnavailable("Standard_D2s_v3", zone, apis.CapacityTypeOnDemand)
	}
	if !maps.Equal(q.nodes, want) {
		q.t.Errorf("nodes %v, want %v", q.nodes, want)
	}
}
