package repair

import (
	"slices"
	"time"
)

// RebootWindow is how long a committed reboot counts towards escalation.
const RebootWindow = 24 * time.Hour

// RebootsBeforeReplacement is how many reboots repair commits for one
// NodeClaim within RebootWindow; past that a reboot decision becomes a
// replacement.
const RebootsBeforeReplacement = 2

// Recent returns the reboots of history committed within RebootWindow
// before now, at most RebootsBeforeReplacement of them, oldest first.
// Karpenter keeps this history in memory, by NodeClaim; a restart forgets
// it.
func Recent(history []time.Time, now time.Time) []time.Time {
	cutoff := now.Add(-RebootWindow)
	var out []time.Time
	for _, t := range history {
		if t.After(cutoff) && !t.After(now) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out[:min(len(out), RebootsBeforeReplacement)]
}

// Record adds a reboot committed at now to history, unless RebootsBeforeReplacement
// recent ones are there already; history is not modified.
func Record(history []time.Time, now time.Time) []time.Time {
	recent := Recent(history, now)
	if len(recent) >= RebootsBeforeReplacement {
		return recent
	}
	return append(slices.Clip(recent), now)
}

// Escalate applies the reboot history to a decision: a reboot of a
// NodeClaim that has had RebootsBeforeReplacement reboots within the
// window becomes a replacement (escalated). The governing condition stays:
// a reboot decision means no replacement policy was eligible.
func Escalate(r Result, history []time.Time, now time.Time) (out Result, escalated bool) {
	if r.Action == Reboot && len(Recent(history, now)) >= RebootsBeforeReplacement {
		r.Action = Replace
		return r, true
	}
	return r, false
}
