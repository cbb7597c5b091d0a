// Package repair is Karpenter's node repair policy algebra (v1.15): the
// cloud provider's repair policies, checked once as a set (Compile), matched
// against a node's conditions (Matcher.Match) and resolved at a time into one
// decision (Resolve): which action, on which condition, with which drain
// bound, and how urgent it is (Result.Score). It also counts the reboots
// repair committed, after which a reboot policy escalates to replacement
// (Escalate).
//
// The package is pure: the caller reads the node's conditions and the time;
// package consolidation runs the Repair disruption method over it and
// package provider holds each cloud's policies.
package repair

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Action is what a policy asks repair to do with a node.
type Action string

// The actions node repair performs.
const (
	// Reboot restarts the node in place, keeping its instance.
	Reboot Action = "RebootNode"
	// Replace launches a replacement (when the node's pods need one) and
	// deletes the node.
	Replace Action = "ReplaceNode"
)

// disruptiveness orders the actions: a replacement outranks a reboot.
func (a Action) disruptiveness() int {
	if a == Replace {
		return 1
	}
	return 0
}

// Policy says when and how a cloud provider wants an unhealthy condition
// repaired, as Karpenter's cloudprovider.RepairPolicy does.
type Policy struct {
	// ConditionType and ConditionStatus name the node condition, such as
	// Ready=False.
	ConditionType   corev1.NodeConditionType
	ConditionStatus corev1.ConditionStatus
	// ReasonRegex is a Go regular expression the condition's reason must
	// match (anywhere in it). Empty makes the policy the set's one default
	// fallback: it applies to every covered condition type and status whose
	// reason no policy of that pair matches.
	ReasonRegex string
	// Toleration is how long after the condition's last transition the
	// policy becomes eligible.
	Toleration time.Duration
	// TerminationGracePeriod bounds the drain: nil inherits the NodeClaim's
	// own, 0 skips the drain, any other value is min(it, the NodeClaim's).
	TerminationGracePeriod *time.Duration
	// Priority (0-100) orders repairs, higher first; only the order of the
	// distinct values counts.
	Priority int
	// Action is what repair does.
	Action Action
}

// Priorities bound Policy.Priority.
const (
	MinPriority = 0
	MaxPriority = 100
)

// AgingConstant is how long a node must wait past its toleration to gain
// one priority rank: a node overtakes a freshly eligible rival one rank
// higher after this long.
const AgingConstant = 30 * time.Minute

// UnhealthyThreshold is the fraction of a NodePool's nodes (rounded up)
// that may be unhealthy before repair stops in that NodePool: a correlated
// failure is not repaired node by node.
const UnhealthyThreshold = 0.20

// key is a policy's condition type and status.
type key struct {
	conditionType corev1.NodeConditionType
	status        corev1.ConditionStatus
}

type compiled struct {
	Policy
	reason *regexp.Regexp
}

// Matcher is a checked policy set.
type Matcher struct {
	specific map[key][]compiled
	fallback compiled
	ranks    map[int]int
}

// ErrNoPolicies is Compile's error for an empty policy set: node repair
// needs the cloud provider to define policies.
var ErrNoPolicies = errors.New("node repair requires the cloud provider to define repair policies, but it defines none")

// Compile checks a policy set as Karpenter checks it when node repair is
// enabled, and compiles it. Every policy needs a condition type, a status of
// True, False or Unknown, no negative toleration or grace period, a priority
// within [0, 100], a known action and a valid reason expression; the set
// needs exactly one default fallback (no ReasonRegex), whose action is
// Replace. The error lists every problem, naming each policy by index.
func Compile(policies []Policy) (*Matcher, error) {
	if len(policies) == 0 {
		return nil, ErrNoPolicies
	}
	m := &Matcher{specific: map[key][]compiled{}, ranks: denseRanks(policies)}
	var errs []error
	fallbacks := 0
	for i, p := range policies {
		c := compiled{Policy: p}
		errs = append(errs, check(i, p)...)
		k := key{p.ConditionType, p.ConditionStatus}
		if p.ReasonRegex == "" {
			fallbacks++
			if fallbacks == 1 {
				m.fallback = c
			} else {
				errs = append(errs, fmt.Errorf("policy %d (%s=%s) is a second default fallback (no reasonRegex); the set may have one", i, p.ConditionType, p.ConditionStatus))
			}
			// The pair is covered even with no specific policy: the fallback
			// applies to it.
			if _, ok := m.specific[k]; !ok {
				m.specific[k] = nil
			}
			continue
		}
		re, err := regexp.Compile(p.ReasonRegex)
		if err != nil {
			errs = append(errs, fmt.Errorf("policy %d (%s=%s): reasonRegex %q: %w", i, p.ConditionType, p.ConditionStatus, p.ReasonRegex, err))
		}
		c.reason = re
		m.specific[k] = append(m.specific[k], c)
	}
	switch {
	case fallbacks == 0:
		errs = append(errs, errors.New("the policy set has no default fallback (a policy without reasonRegex); it needs one"))
	case m.fallback.Action != Replace:
		errs = append(errs, fmt.Errorf("the default fallback (%s=%s) has action %q; it must be %q", m.fallback.ConditionType, m.fallback.ConditionStatus, m.fallback.Action, Replace))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid repair policies: %w", err)
	}
	return m, nil
}

func check(i int, p Policy) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("policy %d (%s=%s): %s", i, p.ConditionType, p.ConditionStatus, fmt.Sprintf(format, args...)))
	}
	if p.ConditionType == "" {
		bad("empty condition type")
	}
	switch p.ConditionStatus {
	case corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown:
	default:
		bad("condition status %q is not True, False or Unknown", p.ConditionStatus)
	}
	if p.Toleration < 0 {
		bad("negative toleration %s", p.Toleration)
	}
	if p.TerminationGracePeriod != nil && *p.TerminationGracePeriod < 0 {
		bad("negative terminationGracePeriod %s", *p.TerminationGracePeriod)
	}
	if p.Priority < MinPriority || p.Priority > MaxPriority {
		bad("priority %d outside [%d, %d]", p.Priority, MinPriority, MaxPriority)
	}
	if p.Action != Replace && p.Action != Reboot {
		bad("unsupported action %q (want %s or %s)", p.Action, Replace, Reboot)
	}
	return errs
}

// denseRanks maps each distinct priority to its place among them, lowest 0.
func denseRanks(policies []Policy) map[int]int {
	var distinct []int
	for _, p := range policies {
		if !slices.Contains(distinct, p.Priority) {
			distinct = append(distinct, p.Priority)
		}
	}
	slices.Sort(distinct)
	out := make(map[int]int, len(distinct))
	for i, p := range distinct {
		out[p] = i
	}
	return out
}

// Covers reports whether a condition's type and status are one a policy
// names, whatever its reason and however long it has held: such a node
// counts as unhealthy towards UnhealthyThreshold.
func (m *Matcher) Covers(c corev1.NodeCondition) bool {
	_, ok := m.specific[key{c.Type, c.Status}]
	return ok
}

// Match is one policy matching one of a node's conditions; it does not
// depend on the time.
type Match struct {
	policy     compiled
	condition  corev1.NodeCondition
	rank       int
	eligibleAt time.Time
}

// Match returns every policy that matches one of the conditions, eligible or
// not: for each covered condition, the specific policies whose reasonRegex
// matches its reason, or else the default fallback. A condition's last
// transition counts from no earlier than created (the node's creation; an
// unset transition time counts from it too).
func (m *Matcher) Match(conditions []corev1.NodeCondition, created time.Time) []Match {
	var out []Match
	for _, c := range conditions {
		specific, ok := m.specific[key{c.Type, c.Status}]
		if !ok {
			continue
		}
		since := c.LastTransitionTime.UTC()
		if since.Before(created) {
			since = created
		}
		cond := corev1.NodeCondition{Type: c.Type, Status: c.Status, Reason: c.Reason}
		matched := false
		for _, p := range specific {
			if p.reason.MatchString(c.Reason) {
				matched = true
				out = append(out, m.match(p, cond, since))
			}
		}
		if !matched {
			out = append(out, m.match(m.fallback, cond, since))
		}
	}
	return out
}

// Condition is the matched condition's type, status and reason.
func (m Match) Condition() corev1.NodeCondition { return m.condition }

// EligibleAt is when the match becomes eligible, its toleration counted
// from no earlier than notBefore (see Resolve).
func (m Match) EligibleAt(notBefore time.Time) time.Time {
	return later(m.eligibleAt, notBefore.Add(m.policy.Toleration))
}

func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

func (m *Matcher) match(p compiled, c corev1.NodeCondition, since time.Time) Match {
	return Match{policy: p, condition: c, rank: m.ranks[p.Priority], eligibleAt: since.Add(p.Toleration)}
}

// Result is the repair decision for one node at one time, merged over its
// eligible matches. Action is empty when none is eligible.
type Result struct {
	// Action is the most disruptive eligible action; Condition,
	// ConditionStatus, Reason and Fallback name the condition and policy
	// that chose it (among those with its action: the highest priority,
	// then the earliest eligible, then the lowest condition type), and
	// EligibleAt when that policy became eligible.
	Action          Action
	Condition       corev1.NodeConditionType
	ConditionStatus corev1.ConditionStatus
	Reason          string
	Fallback        bool
	EligibleAt      time.Time
	// TerminationGracePeriod is the shortest drain bound of the eligible
	// policies, nil when none sets one; TerminationGracePeriodCondition is
	// the condition whose policy set it.
	TerminationGracePeriod          *time.Duration
	TerminationGracePeriodCondition corev1.NodeConditionType

	priority      int
	boundEligible time.Time
	// scoreRank and scoreSince are the eligible policy scoring highest:
	// every score grows at the same rate, so it stays the highest.
	scoreRank  int
	scoreSince time.Time
}

// Score is how urgent the repair is at now: the highest rank + time past
// toleration / AgingConstant over the eligible policies; 0 with no action.
func (r Result) Score(now time.Time) float64 {
	if r.Action == "" {
		return 0
	}
	return score(r.scoreRank, r.scoreSince, now)
}

func score(rank int, eligibleAt, now time.Time) float64 {
	return float64(rank) + now.Sub(eligibleAt).Minutes()/AgingConstant.Minutes()
}

// Resolve merges the matches eligible at now into one decision. Each
// toleration counts from no earlier than notBefore: when the node's last
// reboot finished, since a rebooted node's conditions take a while to
// catch up.
func Resolve(matches []Match, now, notBefore time.Time) Result {
	var r Result
	for _, m := range matches {
		if eligible := m.EligibleAt(notBefore); !eligible.After(now) {
			r.merge(m, eligible, now)
		}
	}
	return r
}

func (r *Result) merge(m Match, eligible, now time.Time) {
	p, c := m.policy, m.condition
	first := r.Action == ""
	if first || score(m.rank, eligible, now) > r.Score(now) {
		r.scoreRank, r.scoreSince = m.rank, eligible
	}
	if p.TerminationGracePeriod != nil && r.shorterBound(*p.TerminationGracePeriod, c.Type, eligible) {
		r.TerminationGracePeriod, r.TerminationGracePeriodCondition, r.boundEligible = p.TerminationGracePeriod, c.Type, eligible
	}
	chosen := first || p.Action.disruptiveness() > r.Action.disruptiveness()
	if p.Action == r.Action {
		chosen = cmp.Or(cmp.Compare(r.priority, p.Priority), eligible.Compare(r.EligibleAt), cmp.Compare(c.Type, r.Condition)) < 0
	}
	if chosen {
		r.Action, r.Condition, r.ConditionStatus, r.Reason = p.Action, c.Type, c.Status, c.Reason
		r.Fallback, r.EligibleAt, r.priority = p.ReasonRegex == "", eligible, p.Priority
	}
}

// shorterBound reports whether a policy's bound replaces the current one:
// a shorter one does; an equal one when it became eligible earlier, then
// when its condition type sorts first.
func (r *Result) shorterBound(bound time.Duration, condition corev1.NodeConditionType, eligible time.Time) bool {
	if r.TerminationGracePeriod == nil {
		return true
	}
	return cmp.Or(cmp.Compare(bound, *r.TerminationGracePeriod), eligible.Compare(r.boundEligible), cmp.Compare(condition, r.TerminationGracePeriodCondition)) < 0
}
