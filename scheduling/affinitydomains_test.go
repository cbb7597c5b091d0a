package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// A pod (anti-)affinity group takes its domains from the NodePools whose
// taints the pod that made it tolerates (Karpenter v1.15.0
// topologydomaingroup.go ForEachDomain, reached with the unset taint policy
// of affinity groups). Here the guard, which tolerates nothing, keeps
// pods labelled app=web out of its zone; web tolerates the dedicated pool,
// whose zones are not domains of the guard's group, so web finds no empty
// domain and stays pending, as in Karpenter (differential seed 2318).
func TestInverseAntiAffinityDomainsFollowTheOwnersTolerations(t *testing.T) {
	open := pool(newPool("open", withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1")))
	dedicated := pool(newPool("dedicated", withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-2", "test-zone-3"),
		withTaint("dedicated", corev1.TaintEffectNoSchedule)))
	web := newPod("web", "1", "1Gi", withLabels("app", "web"), withToleration("dedicated", corev1.TaintEffectNoSchedule))

	guard := newPod("guard", "2", "1Gi", withLabels("app", "guard"), withPodAntiAffinity(apis.LabelTopologyZone, "web"))
	r := Solve(Input{Pods: []*corev1.Pod{guard, web}, NodePools: []Pool{open, dedicated}})
	assert.Equal(t, map[string]int{"test-zone-1": 1}, zonesOf(r), "the guard lands in the only zone it tolerates")
	require.Len(t, r.Unschedulable, 1)
	assert.Equal(t, "default/web", r.Unschedulable[0].Pod)
	assert.Contains(t, r.Unschedulable[0].Reason, "anti-affinity")

	// A guard that tolerates the dedicated pool makes its zones domains.
	tolerant := newPod("guard", "2", "1Gi", withLabels("app", "guard"), withPodAntiAffinity(apis.LabelTopologyZone, "web"),
		withToleration("dedicated", corev1.TaintEffectNoSchedule))
	r = Solve(Input{Pods: []*corev1.Pod{tolerant, web}, NodePools: []Pool{open, dedicated}})
	assert.Empty(t, r.Unschedulable)
	zones := zonesOf(r)
	assert.Equal(t, 2, zones["test-zone-1"]+zones["test-zone-2"]+zones["test-zone-3"])
	for _, c := range r.NodeClaims {
		if len(c.Pods) == 1 && c.Pods[0] == "default/web" {
			assert.NotEqual(t, "test-zone-1", c.Zone, "web keeps out of the guard's zone")
		}
	}
}

// The same holds for the groups a pod owns: a pod's own anti-affinity group
// has only the domains of the pools it tolerates, so a selected pod that
// tolerates more cannot go to the others (differential seed 3743 has this
// through an inverse group; this is the owned case).
func TestOwnedAntiAffinityDomainsFollowTheOwnersTolerations(t *testing.T) {
	open := pool(newPool("open", withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1")))
	dedicated := pool(newPool("dedicated", withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-2"),
		withTaint("dedicated", corev1.TaintEffectNoSchedule)))
	// Two pods of one workload with zone anti-affinity to each other; the
	// group is made by the first, which tolerates nothing: its only domain
	// is test-zone-1, which the first pod takes.
	first := newPod("db-0", "2", "1Gi", withLabels("app", "db"), withPodAntiAffinity(apis.LabelTopologyZone, "db"))
	second := newPod("db-1", "1", "1Gi", withLabels("app", "db"), withPodAntiAffinity(apis.LabelTopologyZone, "db"),
		withToleration("dedicated", corev1.TaintEffectNoSchedule))
	r := Solve(Input{Pods: []*corev1.Pod{first, second}, NodePools: []Pool{open, dedicated}})
	assert.Equal(t, map[string]int{"test-zone-1": 1}, zonesOf(r))
	require.Len(t, r.Unschedulable, 1)
	assert.Equal(t, "default/db-1", r.Unschedulable[0].Pod)
}
