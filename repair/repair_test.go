package repair

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

func cond(t corev1.NodeConditionType, reason string, since time.Time) corev1.NodeCondition {
	return corev1.NodeCondition{Type: t, Status: corev1.ConditionFalse, Reason: reason, LastTransitionTime: metav1.NewTime(since)}
}

func mustCompile(t *testing.T, ps ...Policy) *Matcher {
	t.Helper()
	m, err := Compile(ps)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func dur(d time.Duration) *time.Duration { return &d }

func TestCompileRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		ps   []Policy
		want string
	}{
		"none":            {nil, "defines none"},
		"no fallback":     {[]Policy{{ConditionType: "A", ConditionStatus: "False", ReasonRegex: "x", Action: Replace}}, "no default fallback"},
		"two fallbacks":   {[]Policy{{ConditionType: "A", ConditionStatus: "False", Action: Replace}, {ConditionType: "B", ConditionStatus: "False", Action: Replace}}, "second default fallback"},
		"reboot fallback": {[]Policy{{ConditionType: "A", ConditionStatus: "False", Action: Reboot}}, "must be"},
		"bad status":      {[]Policy{{ConditionType: "A", ConditionStatus: "Maybe", Action: Replace}}, "not True, False or Unknown"},
		"no action":       {[]Policy{{ConditionType: "A", ConditionStatus: "False"}}, "unsupported action"},
		"priority":        {[]Policy{{ConditionType: "A", ConditionStatus: "False", Priority: 101, Action: Replace}}, "outside [0, 100]"},
		"negative":        {[]Policy{{ConditionType: "A", ConditionStatus: "False", Toleration: -time.Second, Action: Replace}}, "negative toleration"},
		"negative bound":  {[]Policy{{ConditionType: "A", ConditionStatus: "False", TerminationGracePeriod: dur(-1), Action: Replace}}, "negative terminationGracePeriod"},
		"regex":           {[]Policy{{ConditionType: "A", ConditionStatus: "False", ReasonRegex: "(", Action: Replace}, {ConditionType: "A", ConditionStatus: "False", Action: Replace}}, "reasonRegex"},
		"empty type":      {[]Policy{{ConditionStatus: "False", Action: Replace}}, "empty condition type"},
	} {
		_, err := Compile(tc.ps)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, tc.want)
		}
	}
}

func TestResolvePicksSpecificOverFallbackAndScores(t *testing.T) {
	m := mustCompile(t,
		Policy{ConditionType: "Bad", ConditionStatus: "False", ReasonRegex: "^Fast$", Toleration: 10 * time.Minute, TerminationGracePeriod: dur(time.Minute), Priority: 50, Action: Replace},
		Policy{ConditionType: "Bad", ConditionStatus: "False", Toleration: 30 * time.Minute, Action: Replace},
	)
	matches := m.Match([]corev1.NodeCondition{cond("Bad", "Fast", t0)}, t0.Add(-time.Hour))
	if len(matches) != 1 {
		t.Fatalf("want only the specific policy to match, got %d", len(matches))
	}
	if r := Resolve(matches, t0.Add(9*time.Minute), time.Time{}); r.Action != "" {
		t.Fatalf("eligible before its toleration: %+v", r)
	}
	r := Resolve(matches, t0.Add(40*time.Minute), time.Time{})
	if r.Action != Replace || r.Fallback || *r.TerminationGracePeriod != time.Minute {
		t.Fatalf("got %+v", r)
	}
	// Rank 1 of {0, 50}, 30 minutes past toleration: 1 + 1.
	if got := r.Score(t0.Add(40 * time.Minute)); got != 2 {
		t.Fatalf("score %v, want 2", got)
	}
	// An unknown reason takes the fallback; a reboot that finished later
	// restarts the toleration.
	matches = m.Match([]corev1.NodeCondition{cond("Bad", "Other", t0)}, t0)
	if r := Resolve(matches, t0.Add(31*time.Minute), t0.Add(5*time.Minute)); r.Action != "" {
		t.Fatalf("toleration counted from before the reboot finished: %+v", r)
	}
	if r := Resolve(matches, t0.Add(36*time.Minute), t0.Add(5*time.Minute)); r.Action != Replace || !r.Fallback {
		t.Fatalf("got %+v", r)
	}
	if m.Covers(cond("Other", "", t0)) || !m.Covers(cond("Bad", "whatever", t0)) {
		t.Fatal("Covers reads type and status only")
	}
}

func TestEscalateAfterTwoReboots(t *testing.T) {
	r := Result{Action: Reboot}
	var h []time.Time
	h = Record(h, t0)
	h = Record(h, t0.Add(time.Hour))
	h2 := Record(h, t0.Add(2*time.Hour))
	if len(h2) != RebootsBeforeReplacement {
		t.Fatalf("history grew past %d: %v", RebootsBeforeReplacement, h2)
	}
	if got, esc := Escalate(r, h, t0.Add(2*time.Hour)); !esc || got.Action != Replace {
		t.Fatalf("want an escalation, got %+v", got)
	}
	if got, esc := Escalate(r, h, t0.Add(25*time.Hour)); esc || got.Action != Reboot {
		t.Fatalf("the window slid past the first reboot, got %+v", got)
	}
}
