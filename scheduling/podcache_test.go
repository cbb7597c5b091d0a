package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// Pods that state the same nodeSelector and node affinity share one
// compiled requirement set, equal to what a fresh compile gives; pods that
// differ in anything FromPod reads do not, and a form that fails fails for
// every pod that states it.
func TestPodsShareTheirCompiledRequirements(t *testing.T) {
	zone, arch := apis.LabelTopologyZone, "kubernetes.io/arch"
	in := func(key string, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
	}
	forms := []podOption{
		func(p *corev1.Pod) {},
		withNodeSelector(zone, "test-zone-1"),
		withNodeSelector(zone, "test-zone-2"),
		withNodeSelector(zone, "test-zone-1", arch, "amd64"),
		withRequiredTerms(in(zone, "test-zone-1")),
		withRequiredTerms(in(zone, "test-zone-1", "test-zone-2")),
		withRequiredTerms(in(zone, "test-zone-2"), in(zone, "test-zone-1")), // two terms: the first counts
		withPreferredNodeAffinity(1, zone, corev1.NodeSelectorOpIn, "test-zone-1"),
		withPreferredNodeAffinity(2, zone, corev1.NodeSelectorOpIn, "test-zone-2"),
		func(p *corev1.Pod) {
			withPreferredNodeAffinity(1, zone, corev1.NodeSelectorOpIn, "test-zone-1")(p)
			withPreferredNodeAffinity(5, zone, corev1.NodeSelectorOpIn, "test-zone-3")(p)
		},
		withRequiredTerms(corev1.NodeSelectorRequirement{Key: zone, Operator: corev1.NodeSelectorOpIn}), // In without values: invalid
		func(p *corev1.Pod) {
			withRequiredTerms(in(zone, "test-zone-1"))(p)
			terms := nodeAffinity(p).RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			terms[0].MatchFields = []corev1.NodeSelectorRequirement{in("metadata.name", "n")}
		},
	}
	for _, prefs := range []requirements.Preferences{requirements.StrictOnly, requirements.WithPreferences} {
		var cache podCache
		for round := range 2 {
			for i, form := range forms {
				p := newPod(fmt.Sprintf("p-%d-%d", round, i), "1", "1Gi", form)
				got, err := cache.fromPod(p, prefs)
				want, wantErr := requirements.FromPod(p, prefs)
				require.Equal(t, wantErr, err, "form %d", i)
				assert.Equal(t, want.String(), got.String(), "form %d", i)
				assert.Equal(t, want.NodeSelectorRequirements(), got.NodeSelectorRequirements(), "form %d", i)
			}
		}
		// One entry per form FromPod tells apart, for both rounds: the pod
		// without node requirements needs none, and StrictOnly reads no
		// preferred term (the three forms with only those are one).
		want := len(forms) - 1
		if prefs == requirements.StrictOnly {
			want -= 2
		}
		assert.Len(t, cache.compiled, want, "prefs %d", prefs)
	}
}
