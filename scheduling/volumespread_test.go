package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// TestWithoutVolumeRequirementsKeepsThePodsOwn checks that taking a volume's
// requirements back out of a pod's terms, for its topology spreads, leaves
// an equal expression of the pod's own: a pod required in zone b with a
// volume in zone b spreads over zone b alone (differential seed 885, where
// karpsim counted every zone and left two pods pending that Karpenter
// placed).
func TestWithoutVolumeRequirementsKeepsThePodsOwn(t *testing.T) {
	zoneB := corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1b"}}
	zoneC := corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1c"}}
	arch := corev1.NodeSelectorRequirement{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}
	for _, tc := range []struct {
		name string
		own  []corev1.NodeSelectorTerm
		alts [][]corev1.NodeSelectorRequirement
	}{
		{"own equal to the volume's", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{zoneB}}}, [][]corev1.NodeSelectorRequirement{{zoneB}}},
		{"own beside two alternatives", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{arch, zoneB}}}, [][]corev1.NodeSelectorRequirement{{zoneB}, {zoneC}}},
		{"two own terms", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{zoneB}}, {MatchExpressions: []corev1.NodeSelectorRequirement{zoneC, arch}}}, [][]corev1.NodeSelectorRequirement{{zoneB, arch}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPod("p", "1", "1Gi")
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: tc.own}}}
			back := withoutVolumeRequirements(withVolumeRequirements(p, tc.alts), tc.alts)
			want := make([]corev1.NodeSelectorTerm, 0, len(tc.own)*len(tc.alts))
			for _, o := range tc.own {
				for range tc.alts {
					want = append(want, o)
				}
			}
			if got := back.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms; !equality.Semantic.DeepEqual(got, want) {
				t.Fatalf("terms %v, want the pod's own %v", got, want)
			}
		})
	}
}
