package controller

import (
	"testing"
	"time"
)

func TestTimingsDefaults(t *testing.T) {
	got := Timings{}.withDefaults()
	want := Timings{BatchIdle: time.Second, BatchMax: 10 * time.Second, DisruptionInterval: 10 * time.Second,
		ValidationDelay: 15 * time.Second, UnschedulableRetry: time.Minute, DisruptionRecheck: 5 * time.Minute,
		BufferResync: 30 * time.Second, NominationWindow: 20 * time.Second}
	if got != want {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
	// Karpenter's nomination lasts max(2 × BATCH_MAX_DURATION, 10s).
	for batchMax, window := range map[time.Duration]time.Duration{time.Second: 10 * time.Second, 30 * time.Second: time.Minute} {
		if got := (Timings{BatchMax: batchMax}).withDefaults().NominationWindow; got != window {
			t.Errorf("BatchMax %v: nomination window %v, want %v", batchMax, got, window)
		}
	}
	if got := (Timings{NominationWindow: time.Second}).withDefaults().NominationWindow; got != time.Second {
		t.Errorf("a set window became %v", got)
	}
}
