package apis

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

func schedulerConfig(t *testing.T, profiles string) *KubeSchedulerConfiguration {
	t.Helper()
	var c KubeSchedulerConfiguration
	require.NoError(t, json.Unmarshal([]byte(`{"profiles":`+profiles+`}`), &c))
	return &c
}

func TestSchedulerConfigDefaultConstraints(t *testing.T) {
	list := `[{"pluginConfig":[{"name":"PodTopologySpread","args":{"defaultConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule"}]}}]}]`
	c := schedulerConfig(t, list)
	require.NoError(t, c.Validate())
	assert.Equal(t, []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule}}, c.DefaultConstraints(), "constraints given: List")

	assert.Equal(t, SystemDefaultConstraints(), schedulerConfig(t, `[]`).DefaultConstraints(), "no profile configured: System")
	assert.Equal(t, SystemDefaultConstraints(), schedulerConfig(t, `[{"pluginConfig":[{"name":"PodTopologySpread","args":{"defaultingType":"System"}}]}]`).DefaultConstraints())
	assert.Empty(t, schedulerConfig(t, `[{"schedulerName":"other"}]`).DefaultConstraints(), "no default-scheduler profile: pods of the default scheduler are not modelled")
	assert.Empty(t, schedulerConfig(t, `[{"pluginConfig":[{"name":"PodTopologySpread","args":{"defaultingType":"List"}}]}]`).DefaultConstraints(), "an empty List: no defaults")

	bad := schedulerConfig(t, `[{"pluginConfig":[{"name":"PodTopologySpread","args":{"defaultingType":"System","defaultConstraints":[
		{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule"},
		{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule","matchLabelKeys":["a"]}]}}]}]`)
	err := bad.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "profiles[0].pluginConfig[0].args.defaultConstraints: must be empty with defaultingType System")
	assert.Contains(t, err.Error(), "args.defaultConstraints[1].matchLabelKeys: must not be set")
	assert.Contains(t, err.Error(), "args.defaultConstraints[1]: a second constraint on topologyKey")
}
