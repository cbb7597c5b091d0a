package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/karpsim/karpsim/apis"
)

// ReadsLabel finds every place a solve reads a node label outside the
// NodePools, and a key nothing reads is read nowhere.
func TestReadsLabelFindsEveryRead(t *testing.T) {
	key := apis.LabelInstanceCPU
	expr := []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpLt, Values: []string{"9"}}}
	terms := []corev1.NodeSelectorTerm{{MatchExpressions: expr}}
	pod := func(spec corev1.PodSpec) *corev1.Pod { return &corev1.Pod{Spec: spec} }
	reads := map[string]Input{
		"node selector": {Pods: []*corev1.Pod{pod(corev1.PodSpec{NodeSelector: map[string]string{key: "8"}})}},
		"required node affinity": {Pods: []*corev1.Pod{pod(corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}})}},
		"preferred node affinity": {Pods: []*corev1.Pod{pod(corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 1, Preference: terms[0]}}}}})}},
		"spread": {Pods: []*corev1.Pod{pod(corev1.PodSpec{TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{TopologyKey: key}}})}},
		"pod affinity": {Pods: []*corev1.Pod{pod(corev1.PodSpec{Affinity: &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: key}}}}})}},
		"preferred pod anti-affinity": {Pods: []*corev1.Pod{pod(corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: key}}}}}})}},
		"DaemonSet": {DaemonSets: []*corev1.Pod{pod(corev1.PodSpec{NodeSelector: map[string]string{key: "8"}})}},
		"a node's pod": {Nodes: []*Node{{Name: "n", Pods: []*corev1.Pod{pod(corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: key}}}}})}}}},
		"volume": {PersistentVolumes: []*corev1.PersistentVolume{{Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{
			Required: &corev1.NodeSelector{NodeSelectorTerms: terms}}}}}},
		"storage class": {StorageClasses: []*storagev1.StorageClass{{AllowedTopologies: []corev1.TopologySelectorTerm{{
			MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: key, Values: []string{"8"}}}}}}}},
		"default spread": {Options: Options{DefaultSpread: &DefaultSpread{Constraints: []corev1.TopologySpreadConstraint{{TopologyKey: key}}}}},
		"DRA":            {Options: Options{DRA: true}},
	}
	for name, in := range reads {
		if !ReadsLabel(in, key) {
			t.Errorf("%s: the key is not read", name)
		}
		if name != "DRA" && ReadsLabel(in, apis.LabelInstanceFamily) {
			t.Errorf("%s: another key is read", name)
		}
	}
}
