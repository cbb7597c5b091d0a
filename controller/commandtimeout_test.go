package controller

import (
	"math"
	"testing"
	"time"
)

// The queue's timeout grows with the candidates queued, within its bounds,
// and a count too large to multiply is the cap, never an overflow.
func TestCommandTimeoutIsBounded(t *testing.T) {
	for queued, want := range map[int]time.Duration{0: 10 * time.Minute, 7500: 10 * time.Minute, 7501: 10*time.Minute + 80*time.Millisecond,
		45000: time.Hour, math.MaxInt: time.Hour} {
		if got := CommandTimeout(queued); got != want {
			t.Errorf("CommandTimeout(%d) = %v, want %v", queued, got, want)
		}
	}
}
