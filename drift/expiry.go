package drift

import (
	"time"

	"github.com/karpsim/karpsim/apis"
)

// Expiry reports whether claim has expired at now, and when it expires:
// creationTimestamp + spec.expireAfter, an expireAfter left out counting as
// its default (720h). A claim expires at that instant exactly, and Karpenter
// then deletes it whatever the disruption budgets say. A claim whose
// expireAfter is Never never expires (at is zero), and neither does one with
// no creationTimestamp, which the API server has not stored yet (at is
// zero). Karpenter leaves alone a claim that is already being deleted;
// Expiry does not look at deletion.
func Expiry(claim *apis.NodeClaim, now time.Time) (expired bool, at time.Time) {
	if claim == nil || claim.CreationTimestamp.IsZero() {
		return false, time.Time{}
	}
	expireAfter := claim.Spec.ExpireAfter
	if !expireAfter.IsSet() {
		expireAfter = apis.NewNillableDuration(apis.DefaultExpireAfter)
	}
	if expireAfter.IsNever() {
		return false, time.Time{}
	}
	at = claim.CreationTimestamp.Add(*expireAfter.Duration)
	return !now.Before(at), at
}

// TerminationDeadline returns when Karpenter stops waiting for claim's node
// to drain once deletion began at deletionTime: deletionTime plus
// spec.terminationGracePeriod, to the second, as Karpenter records it in an
// RFC 3339 annotation. Past the deadline pods are deleted regardless of
// PodDisruptionBudgets and karpenter.sh/do-not-disrupt. ok is false when the
// claim has no terminationGracePeriod: draining may then take forever.
func TerminationDeadline(claim *apis.NodeClaim, deletionTime time.Time) (deadline time.Time, ok bool) {
	if claim == nil || claim.Spec.TerminationGracePeriod == nil {
		return time.Time{}, false
	}
	return deletionTime.Add(claim.Spec.TerminationGracePeriod.Duration).Truncate(time.Second), true
}
