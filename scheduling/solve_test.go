package scheduling

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// In Fake(20), type fake-it-(k-1) has k CPUs and 2k Gi; 100m and 10Mi are
// reserved, so it holds pods of up to k×1000−100 millicores, and it costs
// 0.3147483648·k per hour as spot or on-demand.

func TestPodsShareTheCheapestTypeThatHoldsThemAll(t *testing.T) {
	r := Solve(Input{Pods: pods(3, "web", "1", "1Gi"), NodePools: []Pool{pool(newPool("default"))}})
	assert.Equal(t, []string{"default-1 fake-it-3 spot test-zone-1 [default/web-0 default/web-1 default/web-2]"}, claimsByType(r))
	c := r.NodeClaims[0]
	assert.Equal(t, map[string]string{"cpu": "3", "memory": "3Gi", "pods": "3"}, c.Requests)
	assert.Equal(t, []string{"fake-it-3", "fake-it-4", "fake-it-5"}, c.InstanceTypeOptions[:3])
	assert.Len(t, c.InstanceTypeOptions, 17)
	assert.InDelta(t, 4*0.3147483648, c.PricePerHour, 1e-9)
	assert.Equal(t, Summary{Pods: 3, ScheduledPods: 3, NodeClaims: 1, PricePerHour: 1.258993}, r.Summary)
}

func TestANewClaimTakesPodsOnceTheLargestTypeIsFull(t *testing.T) {
	r := Solve(Input{Pods: pods(25, "web", "1", "1Gi"), NodePools: []Pool{pool(newPool("default"))}})
	require.Len(t, r.NodeClaims, 2)
	assert.Equal(t, "fake-it-19", r.NodeClaims[0].InstanceType)
	assert.Len(t, r.NodeClaims[0].Pods, 19)
	// The new claim has the fewest pods, so every later pod tries it first.
	assert.Equal(t, "fake-it-6", r.NodeClaims[1].InstanceType)
	assert.Len(t, r.NodeClaims[1].Pods, 6)
}

func TestLargerPodsArePlacedFirst(t *testing.T) {
	small, large := newPod("small", "100m", "64Mi"), newPod("large", "2", "1Gi")
	r := Solve(Input{Pods: []*corev1.Pod{small, large}, NodePools: []Pool{pool(newPool("default"))}})
	require.Len(t, r.NodeClaims, 1)
	assert.Equal(t, []string{"default/large", "default/small"}, r.NodeClaims[0].Pods)
}

func TestAPodThatFitsAnExistingNodeGetsNoNewNode(t *testing.T) {
	node := makeNode("node-a", "default", true, "4", "8Gi", newPod("running", "2", "1Gi"))
	r := Solve(Input{Pods: []*corev1.Pod{newPod("web", "1", "1Gi")}, Nodes: []*Node{node}, NodePools: []Pool{pool(newPool("default"))}})
	assert.Empty(t, r.NodeClaims)
	assert.Equal(t, []Binding{{Pod: "default/web", Node: "node-a"}}, r.Bindings)

	// A pod that does not fit what is left gets a new node.
	r = Solve(Input{Pods: []*corev1.Pod{newPod("big", "3", "1Gi")}, Nodes: []*Node{node}, NodePools: []Pool{pool(newPool("default"))}})
	assert.Empty(t, r.Bindings)
	assert.Len(t, r.NodeClaims, 1)
}

func TestInitializedNodesAreTriedFirst(t *testing.T) {
	nodes := []*Node{makeNode("a-inflight", "default", false, "4", "8Gi"), makeNode("b-ready", "default", true, "4", "8Gi")}
	r := Solve(Input{Pods: []*corev1.Pod{newPod("web", "1", "1Gi")}, Nodes: nodes})
	assert.Equal(t, []Binding{{Pod: "default/web", Node: "b-ready"}}, r.Bindings)
}

func TestUninitializedNodesIgnoreEphemeralAndStartupTaints(t *testing.T) {
	n := makeNode("inflight", "default", false, "4", "8Gi")
	n.Taints = []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}, {Key: "cilium.io/agent-not-ready", Effect: corev1.TaintEffectNoExecute},
		{Key: "readiness.k8s.io/network-ready", Value: "pending", Effect: corev1.TaintEffectNoSchedule}}
	n.StartupTaints = []corev1.Taint{{Key: "cilium.io/agent-not-ready", Effect: corev1.TaintEffectNoExecute}}
	r := Solve(Input{Pods: []*corev1.Pod{newPod("web", "1", "1Gi")}, Nodes: []*Node{n}})
	assert.Equal(t, []Binding{{Pod: "default/web", Node: "inflight"}}, r.Bindings)

	n.Initialized = true
	r = Solve(Input{Pods: []*corev1.Pod{newPod("web", "1", "1Gi")}, Nodes: []*Node{n}})
	assert.Empty(t, r.Bindings)
	assert.Equal(t, "no NodePool to launch a node from", r.Unschedulable[0].Reason)
}

func TestNodePoolsAreTriedByWeightThenNameDescending(t *testing.T) {
	light := newPool("light", withWeight(10), withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpIn, "8"))
	heavy := newPool("heavy", withWeight(50), withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpIn, "16"))
	r := Solve(Input{Pods: pods(1, "web", "1", "1Gi"), NodePools: []Pool{pool(light), pool(heavy)}})
	assert.Equal(t, []string{"heavy-1 fake-it-15 spot test-zone-1 [default/web-0]"}, claimsByType(r), "the heavier pool wins although it is pricier")

	alpha, omega := newPool("alpha"), newPool("omega")
	r = Solve(Input{Pods: pods(1, "web", "1", "1Gi"), NodePools: []Pool{pool(alpha), pool(omega)}})
	assert.Equal(t, "omega", r.NodeClaims[0].NodePool, "equal weights: name descending")
}

func TestLimitsAreChargedWithTheLargestPossibleType(t *testing.T) {
	np := newPool("default", withLimit(corev1.ResourceCPU, "20"))
	r := Solve(Input{Pods: pods(30, "web", "1", "1Gi"), NodePools: []Pool{pool(np)}})
	// The first claim could still become a 20-CPU type when it is made, so
	// it uses up the whole limit; the pods it cannot hold stay pending.
	require.Len(t, r.NodeClaims, 1)
	assert.Len(t, r.NodeClaims[0].Pods, 19)
	require.Len(t, r.Unschedulable, 11)
	assert.Equal(t, `NodePool "default": all instance types exceed the NodePool's limits: cpu (0 left)`, r.Unschedulable[0].Reason)
}

func TestLimitsCountExistingNodes(t *testing.T) {
	np := newPool("default", withLimit(corev1.ResourceCPU, "6"))
	node := makeNode("full", "default", true, "4", "8Gi", newPod("running", "3900m", "1Gi"))
	r := Solve(Input{Pods: pods(1, "web", "1", "1Gi"), Nodes: []*Node{node}, NodePools: []Pool{pool(np)}})
	require.Len(t, r.NodeClaims, 1)
	assert.Equal(t, "fake-it-1", r.NodeClaims[0].InstanceType)
	assert.Len(t, r.NodeClaims[0].InstanceTypeOptions, 1, "only types of at most 2 CPUs stay within the limit")
}

func TestDaemonSetOverheadCountsPerInstanceType(t *testing.T) {
	everywhere := daemonSet("logging", "500m", "128Mi", withToleration("", ""))
	r := Solve(Input{Pods: pods(1, "web", "1500m", "1Gi"), DaemonSets: []*corev1.Pod{everywhere}, NodePools: []Pool{pool(newPool("default"))}})
	assert.Equal(t, "fake-it-2", r.NodeClaims[0].InstanceType, "1500m + 500m needs 3 CPUs")
	assert.Equal(t, map[string]string{"cpu": "2", "memory": "1152Mi", "pods": "2"}, r.NodeClaims[0].Requests)

	largeOnly := daemonSet("gpu-driver", "1", "128Mi", withNodeSelector(instancetypes.FakeLabelSize, "large"))
	r = Solve(Input{Pods: pods(1, "web", "3500m", "1Gi"), DaemonSets: []*corev1.Pod{largeOnly}, NodePools: []Pool{pool(newPool("default"))}})
	assert.Equal(t, "fake-it-3", r.NodeClaims[0].InstanceType, "the small type carries no daemon")
	assert.Equal(t, map[string]string{"cpu": "3500m", "memory": "1Gi", "pods": "1"}, r.NodeClaims[0].Requests, "the smallest overhead among the options")
}

func TestDaemonSetsOnExistingNodesLeaveRoomForTheirPods(t *testing.T) {
	ds := daemonSet("logging", "1", "128Mi")
	node := makeNode("node-a", "default", true, "4", "8Gi")
	r := Solve(Input{Pods: []*corev1.Pod{newPod("web", "3500m", "1Gi")}, Nodes: []*Node{node}, DaemonSets: []*corev1.Pod{ds}})
	assert.Empty(t, r.Bindings, "the daemon pod still to come needs 1 CPU")

	bound := daemonSet("logging-x", "1", "128Mi")
	node = makeNode("node-a", "default", true, "4", "8Gi", bound)
	r = Solve(Input{Pods: []*corev1.Pod{newPod("web", "3", "1Gi")}, Nodes: []*Node{node}, DaemonSets: []*corev1.Pod{ds}})
	assert.Equal(t, []Binding{{Pod: "default/web", Node: "node-a"}}, r.Bindings, "the daemon pod is already bound and counted once")
}

func TestTaintsSteerPodsBetweenPools(t *testing.T) {
	gpu := newPool("gpu", withWeight(100), withTaint("nvidia.com/gpu", corev1.TaintEffectNoSchedule))
	general := newPool("general")
	pools := []Pool{pool(gpu), pool(general)}
	plain := newPod("plain", "1", "1Gi")
	tolerant := newPod("tolerant", "1", "1Gi", withToleration("nvidia.com/gpu", corev1.TaintEffectNoSchedule))

	r := Solve(Input{Pods: []*corev1.Pod{tolerant}, NodePools: pools})
	assert.Equal(t, "gpu", r.NodeClaims[0].NodePool, "the heavier pool, whose taint it tolerates")
	r = Solve(Input{Pods: []*corev1.Pod{plain}, NodePools: pools})
	assert.Equal(t, "general", r.NodeClaims[0].NodePool)

	// Claims of this solve come before new ones: the tolerant pod joins the
	// plain pod's claim rather than starting a claim in the heavier pool.
	r = Solve(Input{Pods: []*corev1.Pod{plain, tolerant}, NodePools: pools})
	assert.Equal(t, []string{"general-1 fake-it-2 spot test-zone-1 [default/plain default/tolerant]"}, claimsByType(r))

	r = Solve(Input{Pods: []*corev1.Pod{plain}, NodePools: []Pool{pool(gpu)}})
	assert.Equal(t, []Unschedulable{{Pod: "default/plain", Reason: `NodePool "gpu": did not tolerate taint nvidia.com/gpu:NoSchedule`}}, r.Unschedulable)
}

func TestPodsSelectingRestrictedLabelsAreRefusedUpFront(t *testing.T) {
	p := newPod("pinned", "1", "1Gi", withNodeSelector(apis.LabelHostname, "node-a"))
	r := Solve(Input{Pods: []*corev1.Pod{p}, NodePools: []Pool{pool(newPool("default"))}})
	assert.Equal(t, []Unschedulable{{Pod: "default/pinned", Reason: `selects on restricted label "kubernetes.io/hostname", which Karpenter does not set`}}, r.Unschedulable)
}

func TestUnsatisfiablePreferencesAreRelaxed(t *testing.T) {
	np := pool(newPool("default"))
	preferred := newPod("preferred", "1", "1Gi", withPreferredNodeAffinity(10, instancetypes.FakeLabelInteger, corev1.NodeSelectorOpIn, "999"))
	r := Solve(Input{Pods: []*corev1.Pod{preferred}, NodePools: []Pool{np}})
	assert.Equal(t, "fake-it-1", r.NodeClaims[0].InstanceType)

	// Only the heaviest preference counts; when it is dropped the next one does.
	twoPrefs := newPod("two", "1", "1Gi",
		withPreferredNodeAffinity(1, instancetypes.FakeLabelInteger, corev1.NodeSelectorOpIn, "8"),
		withPreferredNodeAffinity(50, instancetypes.FakeLabelInteger, corev1.NodeSelectorOpIn, "999"))
	r = Solve(Input{Pods: []*corev1.Pod{twoPrefs}, NodePools: []Pool{np}})
	assert.Equal(t, "fake-it-7", r.NodeClaims[0].InstanceType)

	// Required terms are ORed: the first is dropped, never the last.
	terms := newPod("terms", "1", "1Gi", withRequiredTerms(
		corev1.NodeSelectorRequirement{Key: instancetypes.FakeLabelInteger, Operator: corev1.NodeSelectorOpIn, Values: []string{"999"}},
		corev1.NodeSelectorRequirement{Key: instancetypes.FakeLabelInteger, Operator: corev1.NodeSelectorOpIn, Values: []string{"12"}},
	))
	r = Solve(Input{Pods: []*corev1.Pod{terms}, NodePools: []Pool{np}})
	assert.Equal(t, "fake-it-11", r.NodeClaims[0].InstanceType)
	assert.Equal(t, 2, len(terms.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms), "the input pod is not changed")

	impossible := newPod("impossible", "1", "1Gi", withRequiredTerms(
		corev1.NodeSelectorRequirement{Key: instancetypes.FakeLabelInteger, Operator: corev1.NodeSelectorOpIn, Values: []string{"999"}}))
	r = Solve(Input{Pods: []*corev1.Pod{impossible}, NodePools: []Pool{np}})
	require.Len(t, r.Unschedulable, 1)
	assert.Equal(t, `NodePool "default": no instance type satisfied resources {"cpu":"1","memory":"1Gi","pods":"1"} and requirements integer In [999], karpenter.sh/nodepool In [default] (no instance type met the scheduling requirements)`, r.Unschedulable[0].Reason)
}

func TestIgnorePreferencesDropsThemUpFront(t *testing.T) {
	p := newPod("p", "1", "1Gi", withPreferredNodeAffinity(10, instancetypes.FakeLabelInteger, corev1.NodeSelectorOpIn, "8"))
	r := Solve(Input{Pods: []*corev1.Pod{p}, NodePools: []Pool{pool(newPool("default"))}, Options: Options{IgnorePreferences: true}})
	assert.Equal(t, "fake-it-1", r.NodeClaims[0].InstanceType)
}

func TestPreferNoScheduleTaintsAreToleratedLast(t *testing.T) {
	soft := newPool("soft", withTaint("team", corev1.TaintEffectPreferNoSchedule))
	r := Solve(Input{Pods: pods(1, "web", "1", "1Gi"), NodePools: []Pool{pool(soft)}})
	require.Len(t, r.NodeClaims, 1, "relaxation tolerates the PreferNoSchedule taint")
	assert.Empty(t, r.Unschedulable)
}

func TestHostPortsConflictOnOneNode(t *testing.T) {
	r := Solve(Input{Pods: pods(2, "proxy", "1", "1Gi", withHostPort(80)), NodePools: []Pool{pool(newPool("default"))}})
	assert.Len(t, r.NodeClaims, 2)
	r = Solve(Input{Pods: []*corev1.Pod{newPod("a", "1", "1Gi", withHostPort(80)), newPod("b", "1", "1Gi", withHostPort(81))}, NodePools: []Pool{pool(newPool("default"))}})
	assert.Len(t, r.NodeClaims, 1)
}

func TestCapacityTypeChoice(t *testing.T) {
	r := Solve(Input{Pods: pods(1, "web", "1", "1Gi"), NodePools: []Pool{pool(newPool("default"))}})
	assert.Equal(t, apis.CapacityTypeSpot, r.NodeClaims[0].CapacityType, "spot when both are allowed")
	od := newPool("od", withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand))
	r = Solve(Input{Pods: pods(1, "web", "1", "1Gi"), NodePools: []Pool{pool(od)}})
	assert.Equal(t, apis.CapacityTypeOnDemand, r.NodeClaims[0].CapacityType)
	zone3 := newPod("z3", "1", "1Gi", withNodeSelector(apis.LabelTopologyZone, "test-zone-3"))
	r = Solve(Input{Pods: []*corev1.Pod{zone3}, NodePools: []Pool{pool(newPool("default"))}})
	assert.Equal(t, []string{"default-1 fake-it-1 on-demand test-zone-3 [default/z3]"}, claimsByType(r), "no spot in test-zone-3")
}

func TestExtendedResourcesNeedATypeThatHasThem(t *testing.T) {
	gpuPod := newPod("train", "1", "1Gi", withRequest(apis.ResourceNVIDIAGPU, "1"))
	r := Solve(Input{Pods: []*corev1.Pod{gpuPod}, NodePools: []Pool{pool(newPool("default"))}})
	require.Len(t, r.Unschedulable, 1)
	assert.Contains(t, r.Unschedulable[0].Reason, "no instance type had enough resources")
}

func TestCustomLabelsComeFromTheNodePool(t *testing.T) {
	team := newPool("team-a", withLabel("team", "a"))
	other := newPool("other", withWeight(100))
	p := newPod("web", "1", "1Gi", withNodeSelector("team", "a"))
	r := Solve(Input{Pods: []*corev1.Pod{p}, NodePools: []Pool{pool(other), pool(team)}})
	require.Len(t, r.NodeClaims, 1)
	assert.Equal(t, "team-a", r.NodeClaims[0].NodePool)
}

func TestSolveIsDeterministicAndLeavesItsInputAlone(t *testing.T) {
	in := Input{
		Pods:       append(pods(40, "web", "700m", "1Gi"), pods(7, "db", "2", "6Gi", withPreferredNodeAffinity(5, instancetypes.FakeLabelSize, corev1.NodeSelectorOpIn, "large"))...),
		NodePools:  []Pool{pool(newPool("default")), pool(newPool("big", withWeight(5), withLimit(corev1.ResourceCPU, "30")))},
		Nodes:      []*Node{makeNode("node-a", "default", true, "4", "8Gi")},
		DaemonSets: []*corev1.Pod{daemonSet("logging", "100m", "64Mi")},
	}
	before := make([]*corev1.Pod, len(in.Pods))
	for i, p := range in.Pods {
		before[i] = p.DeepCopy()
	}
	first, second := Solve(in), Solve(in)
	assert.Equal(t, first, second)
	assert.Equal(t, before, in.Pods)
}

func withMinValues(key string, n int) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			apis.NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOpExists, MinValues: &n})
	}
}

func TestMinValuesStrictAndBestEffort(t *testing.T) {
	// An 18-CPU pod leaves two types (19 and 20 CPUs): two distinct values
	// of "integer", short of three.
	big := []*corev1.Pod{newPod("big", "18", "1Gi")}
	diverse := newPool("diverse", withWeight(10), withMinValues(instancetypes.FakeLabelInteger, 3))
	fallback := newPool("fallback", withWeight(1))

	r := Solve(Input{Pods: big, NodePools: []Pool{pool(diverse)}})
	require.Len(t, r.Unschedulable, 1)
	assert.Equal(t, `NodePool "diverse": no instance type satisfied resources {"cpu":"18","memory":"1Gi","pods":"1"} and requirements integer Exists minValues 3, karpenter.sh/nodepool In [diverse] (minValues: integer needs 3 distinct values, the instance types left have 2)`, r.Unschedulable[0].Reason)

	r = Solve(Input{Pods: big, NodePools: []Pool{pool(diverse), pool(fallback)}})
	assert.Equal(t, "fallback", r.NodeClaims[0].NodePool, "Strict: the next NodePool")

	r = Solve(Input{Pods: big, NodePools: []Pool{pool(diverse), pool(fallback)}, Options: Options{MinValuesBestEffort: true}})
	assert.Equal(t, "diverse", r.NodeClaims[0].NodePool, "BestEffort relaxes before falling back")
	assert.Equal(t, []string{"fake-it-18", "fake-it-19"}, r.NodeClaims[0].InstanceTypeOptions)
	assert.Equal(t, []string{"NodeClaim diverse-1 launches with fewer distinct values than minValues asks (MinValuesPolicy BestEffort): minValues: integer needs 3 distinct values, the instance types left have 2"}, r.Warnings)

	small := []*corev1.Pod{newPod("small", "1", "1Gi")}
	r = Solve(Input{Pods: small, NodePools: []Pool{pool(diverse)}})
	assert.Len(t, r.NodeClaims[0].InstanceTypeOptions, 19, "met: no warning")
	assert.Empty(t, r.Warnings)
}

// Claims that end with the same instance types share one list of names, and
// a claim whose types are a run of another's shares part of it, capped so
// that appending to one never reaches the other.
func TestClaimsWithTheSameOptionsShareTheirNames(t *testing.T) {
	in := append(pods(2, "web", "1", "1Gi", withLabels("app", "web"), withPodAntiAffinity(apis.LabelHostname, "web")), newPod("big", "19", "1Gi"))
	r := Solve(Input{Pods: in, NodePools: []Pool{pool(newPool("default"))}})
	require.Len(t, r.NodeClaims, 3)
	byPod := map[string][]string{}
	for _, c := range r.NodeClaims {
		byPod[c.Pods[0]] = c.InstanceTypeOptions
	}
	web0, web1, big := byPod["default/web-0"], byPod["default/web-1"], byPod["default/big"]
	assert.Equal(t, web0, web1)
	assert.Same(t, &web0[0], &web1[0], "one list")
	assert.Equal(t, web0[len(web0)-len(big):], big)
	assert.Same(t, &web0[len(web0)-len(big)], &big[0], "part of the same list")
	assert.Equal(t, len(big), cap(big))
}

// Untraced, a refused attempt works out no reasons; a pod that stays
// unplaced gets those of its last attempt all the same, as a traced solve
// records them.
func TestAnUnplacedPodGetsItsLastAttemptsReasons(t *testing.T) {
	p := newPod("stuck", "1", "1Gi",
		withPreferredNodeAffinity(10, instancetypes.FakeLabelInteger, corev1.NodeSelectorOpIn, "8"),
		withRequiredTerms(corev1.NodeSelectorRequirement{Key: instancetypes.FakeLabelInteger, Operator: corev1.NodeSelectorOpIn, Values: []string{"999"}}))
	in := Input{Pods: []*corev1.Pod{p}, NodePools: []Pool{pool(newPool("default")), pool(newPool("other", withWeight(3)))}}
	r := Solve(in)
	require.Len(t, r.Unschedulable, 1)
	_, e, err := Explain(in, "default/stuck")
	require.NoError(t, err)
	require.Len(t, e.Attempts, 2, "one relaxation")
	last := e.Attempts[1]
	require.Len(t, last.NodePools, 2)
	assert.Equal(t, `NodePool "other": `+last.NodePools[0].Reason+`; NodePool "default": `+last.NodePools[1].Reason, r.Unschedulable[0].Reason)
	assert.NotEqual(t, e.Attempts[0].NodePools[0].Reason, last.NodePools[0].Reason)
}

// Requests that cannot be read never panic: a pending pod is unschedulable
// with the reason, and a pod bound to a node is a warning naming both,
// counted as one pod without requests.
func TestNegativeRequestsAreReportedNotPanics(t *testing.T) {
	bad := newPod("bad-bound", "1", "1Gi")
	bad.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("-1")
	pendingBad := newPod("bad-pending", "1", "1Gi")
	pendingBad.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("-1Gi")
	in := Input{
		Pods:      []*corev1.Pod{newPod("web", "1", "1Gi"), pendingBad},
		Nodes:     []*Node{makeNode("node-a", "default", true, "4", "8Gi", bad)},
		NodePools: []Pool{pool(newPool("default"))},
	}
	var r Result
	require.NotPanics(t, func() { r = Solve(in) })
	assert.Contains(t, r.Warnings, "node node-a: bound pod default/bad-bound: spec.containers[0] (app).resources.requests.cpu: negative quantity -1; counted as one pod without requests")
	require.Len(t, r.Unschedulable, 1)
	assert.Equal(t, "default/bad-pending", r.Unschedulable[0].Pod)
	assert.Contains(t, r.Unschedulable[0].Reason, "spec.containers[0] (app).resources.requests.memory: negative quantity -1Gi")
	assert.Equal(t, []Binding{{Pod: "default/web", Node: "node-a"}}, r.Bindings, "the bad pod takes no cpu of the node")
}

// Names and values taken from users' objects become requirements without
// any chance of a panic: a NodePool name, a hostname or a topology domain
// is never refused, whatever it holds.
func TestUserNamesNeverPanic(t *testing.T) {
	for _, name := range []string{"", " ", "with,comma", "UPPER", strings.Repeat("x", 300)} {
		np := newPool(name)
		in := Input{Pods: pods(2, "web", "1", "1Gi"), NodePools: []Pool{pool(np)}}
		in.Pods[0].Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "team/" + name, WhenUnsatisfiable: corev1.DoNotSchedule}}
		require.NotPanics(t, func() { Solve(in) }, "NodePool %q", name)
	}
}
