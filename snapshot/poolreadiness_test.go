package snapshot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDisruptionPoolsCarryTheirNodeClassReadiness: in the disruption view,
// a NodePool without a Ready condition whose EC2NodeClass is not Ready gets
// Ready False, as Karpenter's NodePool readiness controller sets it; a
// NodePool's own condition is kept as given, and the Set is not modified.
func TestDisruptionPoolsCarryTheirNodeClassReadiness(t *testing.T) {
	const notReady = "status:\n  conditions:\n  - {type: Ready, status: \"False\", reason: AMIsNotFound, message: waiting, lastTransitionTime: \"2026-03-01T10:00:00Z\"}\n"
	const ready = "status:\n  conditions:\n  - {type: Ready, status: \"True\", reason: Ready, lastTransitionTime: \"2026-03-01T10:00:00Z\"}\n"
	now := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	readiness := func(classStatus, poolStatus string) (*metav1.Condition, int) {
		set := decode(t, nodeClassYAML+classStatus, nodePoolYAML+poolStatus)
		d, err := ForDisruption(set, Options{}, now)
		require.NoError(t, err)
		require.Len(t, d.Cluster.NodePools, 1)
		return meta.FindStatusCondition(d.Cluster.NodePools[0].NodePool.Status.Conditions, "Ready"), len(set.NodePools[0].Status.Conditions)
	}
	c, given := readiness(notReady, "")
	require.NotNil(t, c)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Equal(t, "NodeClassNotReady", c.Reason)
	assert.Contains(t, c.Message, "EC2NodeClass/general status.conditions Ready=False, AMIsNotFound: waiting")
	assert.Zero(t, given, "the Set's NodePool is not modified")

	c, _ = readiness(notReady, ready)
	assert.Equal(t, metav1.ConditionTrue, c.Status, "the NodePool's own condition decides when it has one")
	c, _ = readiness(ready, "")
	assert.Nil(t, c)
	c, _ = readiness("", "")
	assert.Nil(t, c)
}
