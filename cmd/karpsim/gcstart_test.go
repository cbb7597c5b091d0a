package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The goal is linear in the percentage: the percentage percentFor returns
// puts it at the target, and never below GOGC=100's own.
func TestPercentFor(t *testing.T) {
	for _, tc := range []struct {
		base, perPercent uint64
	}{{0, 40 << 10}, {1 << 20, 40 << 10}, {3 << 20, 2 << 20}, {4 << 20, 1 << 20}} {
		goal := func(percent int) uint64 { return tc.base + tc.perPercent*uint64(percent) }
		percent := percentFor(startingHeap, goal(200), goal(300))
		if goal(100) >= startingHeap {
			assert.Equal(t, 100, percent)
			continue
		}
		assert.InDelta(t, float64(startingHeap), float64(goal(percent)), float64(tc.perPercent), "%+v: %d%%", tc, percent)
	}
	assert.Equal(t, 100, percentFor(startingHeap, 600<<20, 900<<20))
	assert.Equal(t, 100, percentFor(startingHeap, 8<<20, 8<<20))
}
