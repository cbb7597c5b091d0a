package scheduling

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// checkCase is an input in which the pod named pod is refused by one
// check: its other pods are placed first, in order, and then the pod is
// tried on the first existing node, on the first claim (onClaim), or on a
// new claim from the first NodePool.
type checkCase struct {
	in      Input
	pod     string
	onClaim bool
	// reason is a part of the reason explain gives.
	reason string
}

// The checks an existing node refuses a pod by, one case each.
func nodeCheckCases() map[check]checkCase {
	web := func(opts ...podOption) *corev1.Pod { return newPod("web", "1", "1Gi", opts...) }
	tainted := makeNode("node-a", "default", true, "4", "8Gi")
	tainted.Taints = []corev1.Taint{{Key: "team", Value: "a", Effect: corev1.TaintEffectNoSchedule}}
	limited := makeNode("node-a", "default", true, "8", "16Gi", newPod("first", "100m", "128Mi", withClaim("data", "a")))
	limited.VolumeLimits = map[string]int{ebs: 1}
	return map[check]checkCase{
		checkTaints: {in: Input{Pods: []*corev1.Pod{web()}, Nodes: []*Node{tainted}}, pod: "default/web", reason: "team"},
		checkVolumeLimits: {in: Input{Pods: []*corev1.Pod{web(withClaim("data", "b"))}, Nodes: []*Node{limited},
			PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{pvc("a", "pv-a", ""), pvc("b", "pv-b", "")},
			PersistentVolumes:      []*corev1.PersistentVolume{zonalPV("pv-a", "test-zone-1", false), zonalPV("pv-b", "test-zone-1", false)}},
			pod: "default/web", reason: "over its limit of 1"},
		checkHostPorts: {in: Input{Pods: []*corev1.Pod{web(withHostPort(80))},
			Nodes: []*Node{makeNode("node-a", "default", true, "4", "8Gi", newPod("proxy", "1", "1Gi", withHostPort(80)))}},
			pod: "default/web", reason: "80"},
		checkResources: {in: Input{Pods: []*corev1.Pod{newPod("web", "100", "1Gi")}, Nodes: []*Node{makeNode("node-a", "default", true, "4", "8Gi")}},
			pod: "default/web", reason: "not enough resources"},
		checkRequirements: {in: Input{Pods: []*corev1.Pod{web(withNodeSelector("team", "b"))}, Nodes: []*Node{makeNode("node-a", "default", true, "4", "8Gi")}},
			pod: "default/web", reason: "team"},
		checkTopology: {in: Input{Pods: []*corev1.Pod{web(withLabels("app", "web"), withPodAntiAffinity(apis.LabelHostname, "web"))},
			Nodes: []*Node{makeNode("node-a", "default", true, "4", "8Gi", newPod("bound", "1", "1Gi", withLabels("app", "web")))}},
			pod: "default/web", reason: "anti-affinity"},
	}
}

// The checks a claim refuses a pod by, one case each.
func claimCheckCases(t *testing.T) map[check]checkCase {
	defaults := []Pool{pool(newPool("default"))}
	web := func(name string, opts ...podOption) *corev1.Pod { return newPod(name, "1", "1Gi", opts...) }
	spread := []podOption{withLabels("app", "web"), withPodAntiAffinity(apis.LabelHostname, "web")}
	reserved := Pool{NodePool: newPool("default"), InstanceTypes: reservedCatalog(t)}
	return map[check]checkCase{
		checkTaints: {in: Input{Pods: []*corev1.Pod{web("web")}, NodePools: []Pool{pool(newPool("default", withTaint("team", corev1.TaintEffectNoSchedule)))}},
			pod: "default/web", reason: "team"},
		checkVolumeLimits: volumeLimitsClaimCase(t),
		checkHostPorts: {in: Input{Pods: []*corev1.Pod{web("first", withHostPort(80)), web("web", withHostPort(80))}, NodePools: defaults},
			pod: "default/web", onClaim: true, reason: "80"},
		checkRequirements: {in: Input{Pods: []*corev1.Pod{web("web", withNodeSelector("team", "b"))}, NodePools: []Pool{pool(newPool("default", withRequirement("team", corev1.NodeSelectorOpIn, "a")))}},
			pod: "default/web", reason: "team"},
		checkTopology: {in: Input{Pods: []*corev1.Pod{web("first", spread...), web("web", spread...)}, NodePools: defaults},
			pod: "default/web", onClaim: true, reason: "unsatisfiable"},
		checkInstanceTypes: {in: Input{Pods: []*corev1.Pod{web("first"), newPod("web", "10000", "1Gi")}, NodePools: defaults},
			pod: "default/web", onClaim: true, reason: "had enough resources"},
		checkMinValues: {in: Input{Pods: []*corev1.Pod{web("web", withRequiredTerms(corev1.NodeSelectorRequirement{Key: instancetypes.FakeLabelInteger, Operator: corev1.NodeSelectorOpIn, Values: []string{"1", "2"}}))},
			NodePools: []Pool{pool(newPool("default", withMinValues(instancetypes.FakeLabelInteger, 3)))}},
			pod: "default/web", reason: "minValues"},
		// Two pods hold both units of the reservation.
		checkReservations: {in: Input{Pods: []*corev1.Pod{newPod("a", "3", "1Gi", spread...), newPod("b", "3", "1Gi", spread...), newPod("web", "3", "1Gi")}, NodePools: []Pool{reserved}},
			pod: "default/web", reason: "reserved capacity exhausted"},
	}
}

// prepare places every pod of the case but its own and returns the
// solver and the pod.
func (tc checkCase) prepare(t *testing.T) (*solver, *podInfo) {
	t.Helper()
	s := newSolver(tc.in)
	var target *podInfo
	for _, p := range s.pods {
		require.NoError(t, p.invalid(), p.key)
		if p.key == tc.pod {
			target = p
			continue
		}
		require.NoError(t, s.add(p, true), "placing %s", p.key)
	}
	require.NotNil(t, target, tc.pod)
	return s, target
}

// Every check an existing node walks has a case in which tryAdd refuses
// the pod by it and explain names the same check, with its reason.
func TestEveryNodeRefusalIsExplainedByItsCheck(t *testing.T) {
	cases := nodeCheckCases()
	for _, want := range nodeChecks {
		t.Run(want.String(), func(t *testing.T) {
			tc, ok := cases[want]
			require.True(t, ok, "no case for check %s", want)
			s, p := tc.prepare(t)
			e := s.existing[0]
			assert.Equal(t, want, e.evaluate(p, s.topo, nil), "tryAdd's verdict")
			assert.False(t, e.tryAdd(p, s.topo))
			assertRefusal(t, want, e.explain(p, s), tc.reason)
		})
	}
	assert.Len(t, cases, len(nodeChecks), "a case for a check nodeChecks does not list")
}

// Every check a claim walks has a case in which tryAdd refuses the pod by
// it and explain names the same check, with its reason. On a claim that
// already holds pods, tryAdd's shortcuts name the check they stand for.
func TestEveryClaimRefusalIsExplainedByItsCheck(t *testing.T) {
	cases := claimCheckCases(t)
	for _, want := range claimChecks {
		t.Run(want.String(), func(t *testing.T) {
			tc, ok := cases[want]
			require.True(t, ok, "no case for check %s", want)
			s, p := tc.prepare(t)
			var c *claim
			if tc.onClaim {
				require.NotEmpty(t, s.claims)
				c = s.claims[0]
			} else {
				hostname, reqs := s.templates[0].nextClaim()
				c = &claim{tmpl: s.templates[0], options: s.templates[0].options, shared: true, requirements: reqs, hostname: hostname}
			}
			pods := len(c.pods)
			assert.Equal(t, want, c.evaluate(p, s, nil), "tryAdd's verdict")
			assert.Len(t, c.pods, pods, "a refused pod is not placed")
			assertRefusal(t, want, c.explain(p, s), tc.reason)
		})
	}
	assert.Len(t, cases, len(claimChecks), "a case for a check claimChecks does not list")
}

func assertRefusal(t *testing.T, want check, err error, reason string) {
	t.Helper()
	var r *refusal
	require.True(t, errors.As(err, &r), "explain gives a *refusal, got %v", err)
	assert.Equal(t, want, r.check, "explain's check; reason %q", err)
	assert.Contains(t, err.Error(), reason)
}
