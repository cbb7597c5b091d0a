package workloads

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

func TestDiverseSplitsIntoFifths(t *testing.T) {
	pods := NewGenerator(DefaultSeed).Diverse(1003)
	require.Len(t, pods, 1003)
	var generic, zoneSpread, hostSpread, affinity, anti int
	for _, p := range pods {
		switch {
		case len(p.Spec.TopologySpreadConstraints) == 1 && p.Spec.TopologySpreadConstraints[0].TopologyKey == corev1.LabelTopologyZone:
			zoneSpread++
		case len(p.Spec.TopologySpreadConstraints) == 1:
			hostSpread++
		case p.Spec.Affinity != nil && p.Spec.Affinity.PodAffinity != nil:
			affinity++
			term := p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
			assert.Equal(t, p.Labels, term.LabelSelector.MatchLabels, "self-affinity")
		case p.Spec.Affinity != nil && p.Spec.Affinity.PodAntiAffinity != nil:
			anti++
			assert.Equal(t, map[string]string{"app": "nginx"}, p.Labels)
		default:
			generic++
		}
	}
	assert.Equal(t, []int{203, 200, 200, 200, 200}, []int{generic, zoneSpread, hostSpread, affinity, anti})
}

func TestSameSeedSamePods(t *testing.T) {
	a, b := NewGenerator(7).Diverse(50), NewGenerator(7).Diverse(50)
	assert.Equal(t, a, b)
	c := NewGenerator(8).Diverse(50)
	assert.NotEqual(t, a, c)
}

func TestPodsAreOrderedByCreation(t *testing.T) {
	pods := NewGenerator(DefaultSeed).Generic(3)
	assert.True(t, pods[0].CreationTimestamp.Before(&pods[1].CreationTimestamp))
	assert.True(t, pods[1].CreationTimestamp.Before(&pods[2].CreationTimestamp))
}

func TestPreferencePodsShareOneDraw(t *testing.T) {
	pods := NewGenerator(DefaultSeed).Preferences(4)
	require.Len(t, pods, 4)
	for _, p := range pods[1:] {
		assert.Equal(t, pods[0].Spec, p.Spec)
		assert.NotEqual(t, pods[0].Name, p.Name)
	}
	prefs := pods[0].Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	assert.Equal(t, int32(10), prefs[0].Weight)
	assert.Equal(t, corev1.LabelTopologyZone, prefs[0].PodAffinityTerm.TopologyKey)
}
