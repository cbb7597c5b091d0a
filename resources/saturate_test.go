package resources

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Sums of many amounts, each within MaxAmount, pass 2^63 and stop at
// Saturated instead of wrapping: 1,025 pods of 2^53 bytes on an 8 GiB node
// leave it no room, however the sum is taken.
func TestSumsSaturateInsteadOfWrapping(t *testing.T) {
	pod := New(0, MaxAmount, 1).With("example.com/dongle", MaxAmount)
	var bound Vector
	for range 1025 {
		bound = bound.Add(pod)
	}
	assert.Equal(t, int64(Saturated), bound.Memory())
	assert.Equal(t, int64(1025), bound.Pods())
	assert.Equal(t, int64(Saturated), bound.Get("example.com/dongle"))
	assert.Equal(t, []corev1.ResourceName{"example.com/dongle", "memory"}, bound.Saturated())

	node := New(2000, 8<<30, 2000)
	room := node.Sub(bound)
	assert.Equal(t, int64(-Saturated), room.Memory())
	assert.False(t, New(100, 1<<30, 1).Fits(room), "a full node takes a 1 GiB pod")
	assert.Equal(t, []corev1.ResourceName{"memory"}, New(100, 1<<30, 1).Exceeding(room))
	assert.False(t, bound.Fits(node))

	// Saturation sticks: taking back what was added leaves a sum past
	// anything real, never a small one.
	for range 1025 {
		bound = bound.Sub(pod)
	}
	assert.Equal(t, int64(Saturated), bound.Memory())
	assert.Equal(t, int64(0), bound.Pods())
	assert.False(t, bound.Fits(node))
	assert.Equal(t, int64(-Saturated), room.Add(New(0, MaxAmount, 0).Scale(2000)).Memory())

	// A NodePool limited to 100 cpu, charged for 1,025 nodes of 2^53
	// millicores, has nothing left.
	remaining := New(100_000, 0, 0)
	for range 1025 {
		remaining = remaining.Sub(New(MaxAmount, 0, 0))
	}
	assert.Equal(t, int64(-Saturated), remaining.CPU())
	assert.False(t, New(1000, 0, 0).Fits(remaining))
}

// A saturated amount fits nothing, not even a saturated capacity: past
// 2^62 the true amounts are unknown.
func TestSaturatedFitsNothing(t *testing.T) {
	huge := New(0, MaxAmount, 0).Scale(1 << 20)
	assert.Equal(t, int64(Saturated), huge.Memory())
	assert.False(t, huge.Fits(huge))
	assert.Equal(t, []corev1.ResourceName{"memory"}, huge.Exceeding(huge))
	extra := Vector{}.With("example.com/dongle", MaxAmount).Scale(1 << 20)
	assert.False(t, extra.Fits(extra))
	assert.True(t, New(0, MaxAmount, 0).Fits(huge), "a real amount fits a saturated capacity")
}

// Scale saturates for every sign, and a saturated amount keeps its sign.
func TestScaleSaturates(t *testing.T) {
	for _, c := range []struct {
		a, n, want int64
	}{
		{MaxAmount, 1024, Saturated},
		{MaxAmount, 512, Saturated},
		{MaxAmount, 511, MaxAmount * 511},
		{-MaxAmount, 1024, -Saturated},
		{MaxAmount, -1024, -Saturated},
		{-MaxAmount, -1024, Saturated},
		{3, math.MaxInt64, Saturated},
		{3, math.MinInt64, -Saturated},
		{Saturated, 0, 0},
		{-Saturated, 1, -Saturated},
		{-Saturated, -1, Saturated},
		{7, 6, 42},
	} {
		assert.Equal(t, c.want, New(c.a, 0, 0).Scale(c.n).CPU(), "%d × %d", c.a, c.n)
		assert.Equal(t, c.want, Vector{}.With("example.com/x", c.a).Scale(c.n).Get("example.com/x"), "%d × %d", c.a, c.n)
	}
	assert.Nil(t, Vector{}.With("example.com/x", 5).Scale(0).Names(), "scaling by 0 leaves no zero amounts")
}

// Amounts given whole (New, With) are held within ±Saturated, so that
// the operands of every sum are.
func TestAmountsAreHeldWithinSaturated(t *testing.T) {
	v := New(math.MaxInt64, math.MinInt64, math.MaxInt64).With("example.com/x", math.MinInt64)
	assert.Equal(t, int64(Saturated), v.CPU())
	assert.Equal(t, int64(-Saturated), v.Memory())
	assert.Equal(t, int64(-Saturated), v.Get("example.com/x"))
	sum := v.Add(v).Sub(v)
	assert.Equal(t, int64(Saturated), sum.CPU())
	assert.Equal(t, int64(-Saturated), sum.Memory())
	assert.Equal(t, int64(-Saturated), sum.Get("example.com/x"))
	assert.Equal(t, int64(Saturated), Vector{}.Sub(v).Get("example.com/x"))
}

// A pod of 1,025 containers each requesting 2^53 bytes asks for more than
// any node has: its request saturates and fits nowhere, where a wrapped sum
// would have fit anywhere.
func TestPodRequestsSaturate(t *testing.T) {
	most := resource.NewQuantity(MaxAmount, resource.BinarySI)
	pod := &corev1.Pod{}
	for range 1025 {
		pod.Spec.Containers = append(pod.Spec.Containers, container("app", corev1.ResourceList{corev1.ResourceMemory: *most}))
	}
	pod.Spec.Overhead = corev1.ResourceList{corev1.ResourceMemory: *most}
	r, err := PodRequests(pod)
	require.NoError(t, err)
	assert.Equal(t, int64(Saturated), r.Memory())
	assert.False(t, r.Fits(New(0, MaxAmount, 110)))
}

// A quantity below -MaxAmount reads as -MaxAmount, never as a wrapped
// amount, wherever it is read without an error.
func TestFromListBoundsNegatives(t *testing.T) {
	v := FromList(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("-1e30"), corev1.ResourceMemory: resource.MustParse("-9223372036854775808")})
	assert.Equal(t, int64(-MaxAmount), v.CPU())
	assert.Equal(t, int64(-MaxAmount), v.Memory())
}
