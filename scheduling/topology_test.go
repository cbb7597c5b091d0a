package scheduling

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

func withLabels(kv ...string) podOption {
	return func(p *corev1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func withSpread(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, opts ...func(*corev1.TopologySpreadConstraint)) podOption {
	return func(p *corev1.Pod) {
		c := corev1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}}}
		for _, o := range opts {
			o(&c)
		}
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c)
	}
}

func podAffinityTerm(key, app string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}
}

func withPodAffinity(key, app string) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, podAffinityTerm(key, app))
	}
}

func withPodAntiAffinity(key, app string) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, podAffinityTerm(key, app))
	}
}

func affinity(p *corev1.Pod) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	return p.Spec.Affinity
}

// zonesOf counts the pods of a result per zone of their claim.
func zonesOf(r Result) map[string]int {
	out := map[string]int{}
	for _, c := range r.NodeClaims {
		out[c.Zone] += len(c.Pods)
	}
	return out
}

func onDemandPool() Pool {
	return pool(newPool("default", withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand)))
}

func TestZoneSpreadBalancesPodsAcrossZones(t *testing.T) {
	web := pods(6, "web", "1", "1Gi", withLabels("app", "web"), withSpread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule))
	r := Solve(Input{Pods: web, NodePools: []Pool{onDemandPool()}})
	assert.Empty(t, r.Unschedulable)
	assert.Equal(t, map[string]int{"test-zone-1": 2, "test-zone-2": 2, "test-zone-3": 2}, zonesOf(r))
	assert.Len(t, r.NodeClaims, 3, "one claim per zone, each collapsed to its zone")
}

// Karpenter's domain universe intersects pool and instance-type
// requirements key by key, so a zone the types are sold in only on-demand
// is still a domain of a spot-only pool: spread counts it as an empty zone
// no pod can reach, and pods beyond maxSkew stay pending.
func TestZoneSpreadCountsZonesThePoolCannotReach(t *testing.T) {
	web := pods(4, "web", "1", "1Gi", withLabels("app", "web"), withSpread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule))
	spot := pool(newPool("spot", withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot)))
	r := Solve(Input{Pods: web, NodePools: []Pool{spot}})
	assert.Equal(t, map[string]int{"test-zone-1": 1, "test-zone-2": 1}, zonesOf(r))
	assert.Len(t, r.Unschedulable, 2)

	// Restricting the pool to the zones it can serve fixes it.
	served := pool(newPool("spot", withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot),
		withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2")))
	r = Solve(Input{Pods: web, NodePools: []Pool{served}})
	assert.Equal(t, map[string]int{"test-zone-1": 2, "test-zone-2": 2}, zonesOf(r))
}

func TestHostnameSpreadPutsEachPodOnItsOwnNode(t *testing.T) {
	web := pods(4, "web", "100m", "128Mi", withLabels("app", "web"), withSpread(apis.LabelHostname, 1, corev1.DoNotSchedule))
	r := Solve(Input{Pods: web, NodePools: []Pool{pool(newPool("default"))}})
	assert.Len(t, r.NodeClaims, 4, "the global minimum of hostname spread is always 0")
}

func TestSpreadThatAlreadyViolatesMaxSkewFillsTheEmptiestZones(t *testing.T) {
	var bound []*corev1.Pod
	for i := range 3 {
		bound = append(bound, newPod(fmt.Sprintf("old-%d", i), "100m", "128Mi", withLabels("app", "web")))
	}
	node := makeNode("node-z1", "default", true, "1", "2Gi", bound...)
	web := pods(2, "web", "1", "1Gi", withLabels("app", "web"), withSpread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule))
	r := Solve(Input{Pods: web, Nodes: []*Node{node}, NodePools: []Pool{onDemandPool()}})
	assert.Equal(t, map[string]int{"test-zone-2": 1, "test-zone-3": 1}, zonesOf(r))
}

func TestMinDomainsForcesTheMinimumToZero(t *testing.T) {
	five := int32(5)
	web := pods(4, "web", "1", "1Gi", withLabels("app", "web"), withSpread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule,
		func(c *corev1.TopologySpreadConstraint) { c.MinDomains = &five }))
	r := Solve(Input{Pods: web, NodePools: []Pool{onDemandPool()}})
	// Three zones are fewer than five, so each zone may hold at most one pod.
	assert.Equal(t, map[string]int{"test-zone-1": 1, "test-zone-2": 1, "test-zone-3": 1}, zonesOf(r))
	require.Len(t, r.Unschedulable, 1)
	assert.Contains(t, r.Unschedulable[0].Reason, "unsatisfiable topology spread on topology.kubernetes.io/zone")
}

func TestNodeTaintsPolicyHonorNarrowsDomainsByPoolTaints(t *testing.T) {
	honor := corev1.NodeInclusionPolicyHonor
	zone12 := pool(newPool("zone12", withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2")))
	tainted := pool(newPool("tainted", withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-3"), withTaint("dedicated", corev1.TaintEffectNoSchedule)))
	spread := func(policy *corev1.NodeInclusionPolicy) []*corev1.Pod {
		return pods(4, "web", "1", "1Gi", withLabels("app", "web"), withSpread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule,
			func(c *corev1.TopologySpreadConstraint) { c.NodeTaintsPolicy = policy }))
	}
	r := Solve(Input{Pods: spread(&honor), NodePools: []Pool{zone12, tainted}})
	assert.Equal(t, map[string]int{"test-zone-1": 2, "test-zone-2": 2}, zonesOf(r), "the untolerated pool's zone is not a domain")
	r = Solve(Input{Pods: spread(nil), NodePools: []Pool{zone12, tainted}})
	assert.Equal(t, map[string]int{"test-zone-1": 1, "test-zone-2": 1}, zonesOf(r), "ignored taints: test-zone-3 is a domain no pod can reach")
	assert.Len(t, r.Unschedulable, 2)
}

func TestSelfAffinityBootstrapsOneEmptyDomain(t *testing.T) {
	web := pods(5, "web", "1", "1Gi", withLabels("app", "web"), withPodAffinity(apis.LabelTopologyZone, "web"))
	r := Solve(Input{Pods: web, NodePools: []Pool{onDemandPool()}})
	assert.Equal(t, map[string]int{"test-zone-1": 5}, zonesOf(r))
}

func TestAffinityToAnotherAppFollowsItsPods(t *testing.T) {
	db := newPod("db", "100m", "128Mi", withLabels("app", "db"))
	node := makeNode("node-z1", "default", true, "1", "2Gi", db)
	node.Labels[apis.LabelTopologyZone] = "test-zone-2"
	web := pods(2, "web", "1", "1Gi", withLabels("app", "web"), withPodAffinity(apis.LabelTopologyZone, "db"))
	r := Solve(Input{Pods: web, Nodes: []*Node{node}, NodePools: []Pool{onDemandPool()}})
	assert.Equal(t, map[string]int{"test-zone-2": 2}, zonesOf(r))

	lonely := pods(1, "lonely", "1", "1Gi", withLabels("app", "web"), withPodAffinity(apis.LabelTopologyZone, "cache"))
	r = Solve(Input{Pods: lonely, NodePools: []Pool{onDemandPool()}})
	require.Len(t, r.Unschedulable, 1, "no cache pod anywhere and the pod does not select itself")
}

func TestHostnameAntiAffinityMakesOneNodePerPod(t *testing.T) {
	web := pods(3, "web", "100m", "128Mi", withLabels("app", "web"), withPodAntiAffinity(apis.LabelHostname, "web"))
	r := Solve(Input{Pods: web, NodePools: []Pool{pool(newPool("default"))}})
	assert.Len(t, r.NodeClaims, 3)
}

func TestAnAntiAffinityPodWithAnUndecidedZoneBlocksEveryZone(t *testing.T) {
	web := pods(2, "web", "1", "1Gi", withLabels("app", "web"), withPodAntiAffinity(apis.LabelTopologyZone, "web"))
	r := Solve(Input{Pods: web, NodePools: []Pool{onDemandPool()}})
	require.Len(t, r.NodeClaims, 1)
	assert.Len(t, r.NodeClaims[0].Pods, 1)
	require.Len(t, r.Unschedulable, 1, "the first pod may still land in any zone, so it blocks them all")
}

func TestExistingPodsAntiAffinityKeepsSelectedPodsAway(t *testing.T) {
	guard := newPod("guard", "100m", "128Mi", withLabels("app", "guard"), withPodAntiAffinity(apis.LabelTopologyZone, "web"))
	node := makeNode("node-z1", "default", true, "8", "16Gi", guard)
	web := pods(2, "web", "1", "1Gi", withLabels("app", "web"))
	r := Solve(Input{Pods: web, Nodes: []*Node{node}, NodePools: []Pool{onDemandPool()}})
	assert.Empty(t, r.Bindings, "the guard's zone is closed to web pods")
	for _, c := range r.NodeClaims {
		assert.NotContains(t, c.InstanceType, "test-zone-1")
		for _, req := range c.Requirements {
			if req.Key == apis.LabelTopologyZone {
				assert.NotContains(t, req.Values, "test-zone-1")
			}
		}
	}
}

func TestScheduleAnywaySpreadIsRelaxedWhenItCannotHold(t *testing.T) {
	zone1 := pool(newPool("zone1", withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1")))
	// Two domains exist (test-zone-2 through an existing node), one reachable.
	node := makeNode("full", "", true, "0", "0")
	node.Labels[apis.LabelTopologyZone] = "test-zone-2"
	soft := pods(3, "web", "1", "1Gi", withLabels("app", "web"), withSpread(apis.LabelTopologyZone, 1, corev1.ScheduleAnyway))
	r := Solve(Input{Pods: soft, Nodes: []*Node{node}, NodePools: []Pool{zone1}})
	assert.Empty(t, r.Unschedulable)
	hard := pods(3, "web", "1", "1Gi", withLabels("app", "web"), withSpread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule))
	r = Solve(Input{Pods: hard, Nodes: []*Node{node}, NodePools: []Pool{zone1}})
	assert.Len(t, r.Unschedulable, 2)
}

func TestExplainShowsTopologyCounts(t *testing.T) {
	web := pods(2, "web", "1", "1Gi", withLabels("app", "web"), withPodAntiAffinity(apis.LabelTopologyZone, "web"))
	_, e, err := Explain(Input{Pods: web, NodePools: []Pool{onDemandPool()}}, "default/web-1")
	require.NoError(t, err)
	require.NotEmpty(t, e.Attempts)
	reasons := []string{}
	for _, a := range e.Attempts {
		for _, v := range append(a.Claims, a.NodePools...) {
			reasons = append(reasons, v.Reason)
		}
	}
	sort.Strings(reasons)
	assert.Contains(t, reasons, "unsatisfiable pod anti-affinity on topology.kubernetes.io/zone (counts test-zone-1=1, test-zone-2=1, test-zone-3=1)")
	assert.Contains(t, e.Outcome, "unschedulable")
}

// Pods and relaxed copies find the group of an (anti-)affinity term by the
// term's raw form: the group found is the one a fresh build would give,
// terms that warn about their pod are built (and warn) for every pod, and
// terms with equal keys have equal signatures.
func TestTermGroupsFoundByKeyEqualFreshOnes(t *testing.T) {
	selector := func(labels map[string]string, exprs ...metav1.LabelSelectorRequirement) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: labels, MatchExpressions: exprs}
	}
	in := func(key string, values ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}
	}
	zone := apis.LabelTopologyZone
	terms := []corev1.PodAffinityTerm{
		{TopologyKey: zone, LabelSelector: selector(map[string]string{"app": "nginx"})},
		{TopologyKey: apis.LabelHostname, LabelSelector: selector(map[string]string{"app": "nginx"})},
		{TopologyKey: zone, LabelSelector: selector(map[string]string{"app": "nginx", "tier": "web"})},
		{TopologyKey: zone, LabelSelector: selector(map[string]string{"tier": "web", "app": "nginx"})},
		{TopologyKey: zone, LabelSelector: selector(nil, in("app", "a", "b"))},
		{TopologyKey: zone, LabelSelector: selector(nil, in("tier", "a", "b"))},
		{TopologyKey: zone, LabelSelector: selector(nil, in("app", "ab"))},
		{TopologyKey: zone, LabelSelector: selector(nil, in("app", "a"), in("b"))}, // invalid: In with no value
		{TopologyKey: zone, LabelSelector: selector(nil, metav1.LabelSelectorRequirement{Key: "app", Operator: "Bogus"})},
		{TopologyKey: zone},
		{TopologyKey: zone, LabelSelector: selector(nil)},
		{TopologyKey: zone, LabelSelector: selector(map[string]string{"app": "nginx"}), Namespaces: []string{"b", "a"}},
		{TopologyKey: zone, LabelSelector: selector(map[string]string{"app": "nginx"}), Namespaces: []string{"a", "b"}},
		{TopologyKey: zone, LabelSelector: selector(map[string]string{"app": "nginx"}), NamespaceSelector: selector(nil)},
		{TopologyKey: zone, LabelSelector: selector(map[string]string{"app": "nginx"}), NamespaceSelector: selector(map[string]string{"team": "a"})},
	}
	var input []*corev1.Pod
	for i, ns := range []string{"default", "", "other", "default"} {
		p := newPod(fmt.Sprintf("p-%d", i), "1", "1Gi", withLabels("app", "nginx"), withPodAntiAffinity(apis.LabelHostname, "nginx"))
		p.Namespace = ns
		for _, term := range terms {
			p.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(p.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				corev1.WeightedPodAffinityTerm{Weight: 1, PodAffinityTerm: term})
		}
		input = append(input, p)
	}
	s := newSolver(Input{Pods: input, NodePools: []Pool{pool(newPool("default"))}})
	require.NotNil(t, s.topo)

	fresh := &topology{}
	signatures := map[string]string{}
	for _, p := range s.pods {
		require.Len(t, p.topology().groups, 1+len(terms))
		for i, term := range append([]corev1.PodAffinityTerm{podAffinityTerm(apis.LabelHostname, "nginx")}, terms...) {
			g, _ := fresh.termGroup(antiAffinityGroup, p.pod, term)
			assert.Equal(t, g.signature, p.topology().groups[i].signature, "pod %s, term %d", p.key, i)
			if key, ok := s.topo.termKey(antiAffinityGroup, p.pod, term); ok {
				if signature, seen := signatures[string(key)]; seen {
					assert.Equal(t, signature, g.signature, "pod %s, term %d", p.key, i)
				}
				signatures[string(key)] = g.signature
			}
		}
	}
	assert.Equal(t, fresh.warnings, s.topo.warnings, "a warning per pod for each invalid selector and the namespaceSelector")
	assert.Len(t, s.topo.warnings, 3*len(input))
	assert.Less(t, len(s.topo.terms), len(input)*len(terms), "pods share their terms' entries")

	// The required term forms an inverse group per namespace.
	require.Len(t, s.topo.inverse, 2)
	for i, owner := range []*corev1.Pod{input[0], input[2]} {
		g, _ := fresh.termGroup(antiAffinityGroup, owner, podAffinityTerm(apis.LabelHostname, "nginx"))
		assert.Equal(t, g.signature, s.topo.inverse[i].signature)
	}
	assert.Len(t, s.topo.inverse[0].owners, 3)
	assert.Len(t, s.topo.inverseTerms, 2)
}
