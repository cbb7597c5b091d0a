package pricing

import (
	"slices"
	"testing"
	"time"
)

func entryStrings(entries []UnavailableOffering) []string {
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = e.String()
	}
	return lines
}

// TestUnavailableOfferingsSteps walks one cache through fixed times; each
// step applies an action, then checks lookups and the unexpired entries.
func TestUnavailableOfferingsSteps(t *testing.T) {
	var u UnavailableOfferings
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	type lookup struct {
		capacityType, instanceType, zone string
		want                             bool
	}
	steps := []struct {
		name    string
		now     time.Time
		action  func()
		lookups []lookup
		entries []string
	}{
		{"empty", at(0), func() {}, []lookup{{"spot", "m5.large", "us-east-1a", false}}, []string{}},
		{"ICE on spot m5.large in 1a", at(0), func() { u.MarkUnavailable("spot", "m5.large", "us-east-1a", at(0)) },
			[]lookup{
				{"spot", "m5.large", "us-east-1a", true},
				{"on-demand", "m5.large", "us-east-1a", false},
				{"spot", "m5.large", "us-east-1b", false},
				{"spot", "m5.xlarge", "us-east-1a", false},
			},
			[]string{"offering spot/m5.large/us-east-1a until 2024-05-01T12:03:00Z"}},
		{"still unavailable at exactly the expiry", at(3 * time.Minute), func() {},
			[]lookup{{"spot", "m5.large", "us-east-1a", true}},
			[]string{"offering spot/m5.large/us-east-1a until 2024-05-01T12:03:00Z"}},
		{"available one nanosecond later", at(3*time.Minute + 1), func() {},
			[]lookup{{"spot", "m5.large", "us-east-1a", false}}, []string{}},
		{"marking again extends", at(4 * time.Minute), func() {
			u.MarkUnavailable("spot", "m5.large", "us-east-1a", at(2*time.Minute))
			u.MarkUnavailable("spot", "m5.large", "us-east-1a", at(4*time.Minute))
		}, []lookup{{"spot", "m5.large", "us-east-1a", true}},
			[]string{"offering spot/m5.large/us-east-1a until 2024-05-01T12:07:00Z"}},
		{"a whole capacity type", at(5 * time.Minute), func() { u.MarkCapacityTypeUnavailable("spot", at(5*time.Minute)) },
			[]lookup{
				{"spot", "c5.large", "us-west-2a", true},
				{"on-demand", "c5.large", "us-west-2a", false},
			},
			[]string{
				"offering spot/m5.large/us-east-1a until 2024-05-01T12:07:00Z",
				"capacity-type spot until 2024-05-01T12:08:00Z",
			}},
		{"a whole zone, custom TTL", at(6 * time.Minute), func() {
			u.TTL = time.Minute
			u.MarkZoneUnavailable("us-east-1c", at(6*time.Minute))
			u.MarkUnavailableFor("on-demand", "c5.large", "us-east-1b", at(6*time.Minute), 10*time.Minute)
		}, []lookup{
			{"on-demand", "m5.large", "us-east-1c", true},
			{"on-demand", "m5.large", "us-east-1a", false},
			{"on-demand", "c5.large", "us-east-1b", true},
		}, []string{
			"offering on-demand/c5.large/us-east-1b until 2024-05-01T12:16:00Z",
			"offering spot/m5.large/us-east-1a until 2024-05-01T12:07:00Z",
			"capacity-type spot until 2024-05-01T12:08:00Z",
			"zone us-east-1c until 2024-05-01T12:07:00Z",
		}},
		{"everything but the long mark has expired", at(9 * time.Minute), func() {},
			[]lookup{
				{"spot", "c5.large", "us-west-2a", false},
				{"on-demand", "m5.large", "us-east-1c", false},
				{"on-demand", "c5.large", "us-east-1b", true},
			},
			[]string{"offering on-demand/c5.large/us-east-1b until 2024-05-01T12:16:00Z"}},
	}
	for _, step := range steps {
		step.action()
		for _, l := range step.lookups {
			if got := u.IsUnavailable(l.capacityType, l.instanceType, l.zone, step.now); got != l.want {
				t.Errorf("%s: IsUnavailable(%s, %s, %s) = %v, want %v", step.name, l.capacityType, l.instanceType, l.zone, got, l.want)
			}
		}
		if got := entryStrings(u.Entries(step.now)); !slices.Equal(got, step.entries) {
			t.Errorf("%s: Entries =\n%q\nwant\n%q", step.name, got, step.entries)
		}
	}
}

func TestUnavailableOfferingsSeqNums(t *testing.T) {
	var u UnavailableOfferings
	type seqs struct{ all, m5, c5 uint64 }
	read := func() seqs { return seqs{u.Seq(), u.SeqNum("m5.large"), u.SeqNum("c5.large")} }
	steps := []struct {
		name   string
		action func()
		want   seqs
	}{
		{"start", func() {}, seqs{0, 0, 0}},
		{"mark m5.large", func() { u.MarkUnavailable("spot", "m5.large", "a", t0) }, seqs{1, 1, 0}},
		{"mark it again", func() { u.MarkUnavailable("spot", "m5.large", "a", t0) }, seqs{2, 2, 0}},
		{"mark c5.large", func() { u.MarkUnavailable("on-demand", "c5.large", "b", t0) }, seqs{3, 2, 1}},
		{"a zone affects every type", func() { u.MarkZoneUnavailable("c", t0.Add(time.Minute)) }, seqs{4, 3, 2}},
		{"a capacity type too", func() { u.MarkCapacityTypeUnavailable("spot", t0.Add(time.Minute)) }, seqs{5, 4, 3}},
		{"prune before anything expires", func() { u.Prune(t0.Add(3 * time.Minute)) }, seqs{5, 4, 3}},
		{"prune the two offering marks", func() { u.Prune(t0.Add(3*time.Minute + 1)) }, seqs{7, 5, 4}},
		{"prune the two wide marks", func() { u.Prune(t0.Add(time.Hour)) }, seqs{9, 7, 6}},
	}
	for _, step := range steps {
		step.action()
		if got := read(); got != step.want {
			t.Errorf("%s: (Seq, SeqNum m5, SeqNum c5) = %v, want %v", step.name, got, step.want)
		}
	}
}

func TestUnavailableOfferingsPrune(t *testing.T) {
	var u UnavailableOfferings
	u.MarkUnavailable("spot", "m5.large", "a", t0)
	u.MarkUnavailableFor("spot", "m5.large", "b", t0, time.Hour)
	u.MarkZoneUnavailable("c", t0)
	if n := u.Prune(t0.Add(3 * time.Minute)); n != 0 {
		t.Errorf("pruned %d at the expiry instant, want 0", n)
	}
	if n := u.Prune(t0.Add(4 * time.Minute)); n != 2 {
		t.Errorf("pruned %d, want 2", n)
	}
	// Pruned marks are gone even for a query at an earlier time.
	if u.IsUnavailable("spot", "m5.large", "a", t0) {
		t.Error("pruned mark still holds")
	}
	want := []string{"offering spot/m5.large/b until 2024-05-01T13:00:00Z"}
	if got := entryStrings(u.Entries(t0)); !slices.Equal(got, want) {
		t.Errorf("Entries = %q, want %q", got, want)
	}
}

func TestUnavailableOfferingsClone(t *testing.T) {
	var u UnavailableOfferings
	u.TTL = time.Minute
	u.MarkUnavailable("spot", "m5.large", "a", t0)
	c := u.Clone()
	c.MarkUnavailable("spot", "c5.large", "a", t0)
	c.Prune(t0.Add(time.Hour))
	u.MarkZoneUnavailable("z", t0)
	if !u.IsUnavailable("spot", "m5.large", "a", t0) || u.IsUnavailable("spot", "c5.large", "a", t0) {
		t.Error("the clone's marks leaked into the original")
	}
	if c.IsUnavailable("spot", "x", "z", t0) || c.TTL != time.Minute {
		t.Error("the original's marks leaked into the clone, or TTL not copied")
	}
	if u.Seq() != 2 || c.Seq() != 4 || u.SeqNum("c5.large") != 1 || c.SeqNum("c5.large") != 2 {
		t.Errorf("seqs: original %d/%d, clone %d/%d", u.Seq(), u.SeqNum("c5.large"), c.Seq(), c.SeqNum("c5.large"))
	}
}

func TestUnavailableOfferingsNilAndTTL(t *testing.T) {
	var nilCache *UnavailableOfferings
	if nilCache.IsUnavailable("spot", "m5.large", "a", t0) || len(nilCache.Entries(t0)) != 0 ||
		nilCache.Seq() != 0 || nilCache.SeqNum("m5.large") != 0 || nilCache.Prune(t0) != 0 {
		t.Error("nil cache is not empty")
	}
	if c := nilCache.Clone(); c == nil || c.Seq() != 0 {
		t.Error("Clone of nil is not an empty cache")
	}
	for _, tt := range []struct {
		ttl, want time.Duration
	}{{0, DefaultUnavailableTTL}, {-time.Second, DefaultUnavailableTTL}, {30 * time.Second, 30 * time.Second}} {
		u := UnavailableOfferings{TTL: tt.ttl}
		u.MarkUnavailable("spot", "m5.large", "a", t0)
		if got := u.Entries(t0)[0].Expires.Sub(t0); got != tt.want {
			t.Errorf("TTL %v: mark lasts %v, want %v", tt.ttl, got, tt.want)
		}
	}
	var u UnavailableOfferings
	u.MarkUnavailableFor("spot", "m5.large", "a", t0, -time.Second)
	if u.IsUnavailable("spot", "m5.large", "a", t0) {
		t.Error("a mark with negative ttl holds")
	}
}

func TestScopeString(t *testing.T) {
	for scope, want := range map[Scope]string{ScopeOffering: "offering", ScopeCapacityType: "capacity-type", ScopeZone: "zone", 7: "Scope(7)"} {
		if got := scope.String(); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}
