package requirements

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

func TestChangedFrom(t *testing.T) {
	was := NewRequirements(In("arch", "amd64"), mustNew("cpu", corev1.NodeSelectorOpLt, "33"))
	now := was.Add(mustNew("cpu", corev1.NodeSelectorOpLt, "9"), In("family", "c5", "m5"))
	changed := now.ChangedFrom(was)
	assert.Equal(t, []string{"cpu", "family"}, changed.Keys())
	assert.Empty(t, was.ChangedFrom(was).Keys())
	for _, labels := range []Requirements{
		NewRequirements(In("arch", "amd64"), In("cpu", "4"), In("family", "c5")),
		NewRequirements(In("arch", "amd64"), In("cpu", "16"), In("family", "c5")),
		NewRequirements(In("arch", "amd64"), In("cpu", "4"), In("family", "r5")),
	} {
		if labels.IntersectsFast(was) {
			assert.Equal(t, labels.IntersectsFast(now), labels.IntersectsFast(changed), "%s", labels)
		}
	}
}
