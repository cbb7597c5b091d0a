package resources

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

func TestInternerSharesEqualVectors(t *testing.T) {
	var in Interner
	a, b, c := in.Intern(New(100, 1<<20, 1)), in.Intern(New(100, 1<<20, 1)), in.Intern(New(200, 1<<20, 1))
	assert.Same(t, a, b)
	assert.NotSame(t, a, c)
	assert.True(t, a.Equal(New(100, 1<<20, 1)))
	assert.True(t, c.Equal(New(200, 1<<20, 1)))

	// Extra resources are not shared, but kept.
	gpu := New(100, 1<<20, 1).With(corev1.ResourceName("example.com/widget"), 2)
	d, e := in.Intern(gpu), in.Intern(gpu)
	assert.NotSame(t, d, e)
	assert.True(t, d.Equal(gpu) && e.Equal(gpu))
	assert.NotSame(t, a, in.Intern(gpu))

	if n := testing.AllocsPerRun(100, func() { in.Intern(New(100, 1<<20, 1)) }); n != 0 {
		t.Errorf("interning a known vector allocated %v times", n)
	}
}
