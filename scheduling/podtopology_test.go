package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

// Pods find the group of a spread constraint by its raw form and what it
// reads of the pod: the group found is the one a fresh build would give,
// constraints that warn about their pod are built (and warn) for every pod,
// and constraints with equal keys have equal signatures.
func TestSpreadGroupsFoundByKeyEqualFreshOnes(t *testing.T) {
	selector := func(labels map[string]string, exprs ...metav1.LabelSelectorRequirement) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: labels, MatchExpressions: exprs}
	}
	in := func(key string, values ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}
	}
	honor, ignore := corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore
	two := int32(2)
	zone := apis.LabelTopologyZone
	spread := func(key string, sel *metav1.LabelSelector) corev1.TopologySpreadConstraint {
		return corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}
	}
	constraints := []corev1.TopologySpreadConstraint{
		spread(zone, selector(map[string]string{"app": "nginx"})),
		spread(apis.LabelHostname, selector(map[string]string{"app": "nginx"})),
		spread(zone, selector(map[string]string{"app": "nginx", "tier": "web"})),
		spread(zone, selector(nil, in("app", "a", "b"))),
		spread(zone, selector(nil, in("app", "ab"))),
		spread(zone, selector(nil, in("app", "a"), in("b"))), // invalid: In with no value
		spread(zone, nil),
		{MaxSkew: 2, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector(map[string]string{"app": "nginx"})},
		{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector(map[string]string{"app": "nginx"}), MinDomains: &two},
		{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector(map[string]string{"app": "nginx"}), MatchLabelKeys: []string{"tier"}},
		{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector(map[string]string{"app": "nginx"}), NodeAffinityPolicy: &ignore},
		{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector(map[string]string{"app": "nginx"}), NodeTaintsPolicy: &honor},
	}
	// The pods differ in what the constraints read of them: namespace,
	// labels (matchLabelKeys), node selector, required node affinity and
	// tolerations.
	variants := []podOption{
		func(p *corev1.Pod) {},
		func(p *corev1.Pod) { p.Namespace = "other" },
		func(p *corev1.Pod) { p.Labels = map[string]string{"app": "nginx", "tier": "web"} },
		func(p *corev1.Pod) { p.Labels = map[string]string{"app": "nginx", "tier": "db"} },
		withNodeSelector(zone, "test-zone-1"),
		withNodeSelector(zone, "test-zone-2"),
		withRequiredTerms(corev1.NodeSelectorRequirement{Key: zone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1"}}),
		withRequiredTerms(corev1.NodeSelectorRequirement{Key: zone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1"}},
			corev1.NodeSelectorRequirement{Key: zone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-2"}}),
		withToleration("dedicated", corev1.TaintEffectNoSchedule),
	}
	var input []*corev1.Pod
	for i, variant := range append(variants, variants...) {
		p := newPod(fmt.Sprintf("p-%d", i), "1", "1Gi", func(p *corev1.Pod) { p.Labels = map[string]string{"app": "nginx"} }, variant)
		p.Spec.TopologySpreadConstraints = constraints
		input = append(input, p)
	}
	s := newSolver(Input{Pods: input, NodePools: []Pool{pool(newPool("default"))}})
	require.NotNil(t, s.topo)

	fresh := &topology{}
	signatures := map[string]string{}
	for _, p := range s.pods {
		require.Len(t, p.topology().groups, len(constraints), p.key)
		for i, c := range constraints {
			g, _ := fresh.spreadGroup(p.pod, c)
			assert.Equal(t, g.signature, p.topology().groups[i].signature, "pod %s, constraint %d", p.key, i)
			if key, ok := s.topo.spreadKey(p.pod, c); ok {
				if signature, seen := signatures[string(key)]; seen {
					assert.Equal(t, signature, g.signature, "pod %s, constraint %d", p.key, i)
				}
				signatures[string(key)] = g.signature
			}
		}
	}
	assert.Equal(t, fresh.warnings, s.topo.warnings, "a warning per pod for the invalid selector")
	assert.Len(t, s.topo.warnings, len(input))
	assert.Less(t, len(s.topo.spreads), len(input)*len(constraints)/2, "pods share their constraints' entries")
}

// Pods with the same constraints, domains and selecting inverse groups
// share one podTopology; pods that differ in any of them do not.
func TestPodsShareTheirTopology(t *testing.T) {
	zone := apis.LabelTopologyZone
	spread := func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	}
	labelled := func(app string) podOption {
		return func(p *corev1.Pod) { p.Labels = map[string]string{"app": app} }
	}
	repel := func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			{TopologyKey: apis.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		}}}
	}
	input := []*corev1.Pod{
		newPod("web-1", "1", "1Gi", labelled("web"), spread),
		newPod("web-2", "1", "1Gi", labelled("web"), spread),
		newPod("web-zonal", "1", "1Gi", labelled("web"), spread, withNodeSelector(zone, "test-zone-1")),
		newPod("other", "1", "1Gi", labelled("other"), spread),
		newPod("plain-web", "1", "1Gi", labelled("web")),
		newPod("plain", "1", "1Gi"),
		newPod("repel", "1", "1Gi", labelled("repel"), repel),
	}
	s := newSolver(Input{Pods: input, NodePools: []Pool{pool(newPool("default"))}})
	require.NotNil(t, s.topo)
	byName := map[string]*podInfo{}
	for _, p := range s.pods {
		byName[p.pod.Name] = p
	}
	assert.Same(t, byName["web-1"].topo, byName["web-2"].topo)
	assert.NotSame(t, byName["web-1"].topo, byName["web-zonal"].topo, "its node selector allows other domains")
	assert.NotSame(t, byName["web-1"].topo, byName["other"].topo, "the inverse group selects web pods only")
	assert.Len(t, byName["web-1"].topo.inverse, 1)
	assert.Empty(t, byName["other"].topo.inverse)
	assert.Equal(t, "topology.kubernetes.io/zone In [test-zone-1]", byName["web-zonal"].topo.groupDomains[0].String())
	require.NotNil(t, byName["plain-web"].topo, "the inverse group selects it")
	assert.Empty(t, byName["plain-web"].topo.groups)
	assert.Nil(t, byName["plain"].topo, "nothing concerns it")
}
