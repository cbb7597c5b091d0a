package optimize

import (
	"cmp"
	"slices"

	"github.com/karpsim/karpsim/scheduling"
)

// A set of narrowing and reweighting edits whose compiled NodePools offer
// exactly what those of a set solved before offer (scheduling's
// SameOffers) gives that set's plan, but for its claims' requirements on
// the keys the edits restrict, when nothing but the NodePools reads those
// keys (scheduling.ReadsLabel): its solve is then spared, the set taking
// the earlier one's verdict (asEarlier).

// tryOutcome is what EditSearch.tryOutcome found of a set.
type tryOutcome uint8

const (
	// tryNotKept: the set's plan is not kept, or costs more than asked.
	tryNotKept tryOutcome = iota
	// tryKept: the plan is kept.
	tryKept
	// tryKeptAsEarlier: the set was not solved, its plan costing what a
	// set's that Run returns and that ranks before it (SortEditPlans)
	// costs, kept or not (asEarlier). Only PerHour and Edits are set.
	tryKeptAsEarlier
)

// offerRecord is a set the search solved: its compiled NodePools, the
// price its solve stopped above, and what the solve found: stopped, a
// plan kept (plan), or neither (a plan rejected or no cheaper than base).
type offerRecord struct {
	edits   []Edit
	key     string
	prep    *scheduling.Prepared
	stop    float64
	stopped bool
	plan    *EditPlan
}

// remember records a set solved, for asEarlier.
func (s *EditSearch) remember(r *offerRecord) {
	if s.cheapest && narrowingOnly(r.edits) {
		s.offers = append(s.offers, r)
	}
}

// list appends p to found, the plans Run returns, noting it there.
func (s *EditSearch) list(found []EditPlan, p EditPlan) []EditPlan {
	s.listed[EditsKey(p.Edits)] = true
	return append(found, p)
}

// narrowingOnly reports whether the edits only restrict type labels and
// reweight pools.
func narrowingOnly(edits []Edit) bool {
	return !slices.ContainsFunc(edits, func(e Edit) bool {
		return e.Op.Action != ActionWeight && (e.Op.Action != ActionRestrict || slices.Contains(offeringKeys, e.Op.Key))
	})
}

// equalKeys reports whether the edits only restrict type labels and
// reweight pools, and the input reads none of the labels they restrict
// but from the NodePools.
func (s *EditSearch) equalKeys(edits []Edit) bool {
	for _, e := range edits {
		switch {
		case e.Op.Action == ActionWeight:
		case e.Op.Action == ActionRestrict && !slices.Contains(offeringKeys, e.Op.Key):
			unread, known := s.unread[e.Op.Key]
			if !known {
				unread = !scheduling.ReadsLabel(s.in, e.Op.Key)
				s.unread[e.Op.Key] = unread
			}
			if !unread {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// asEarlier decides a set (named key, compiled in prep, to be solved
// stopping above stop for a run that needs its plan only below limit)
// without solving it, when it can: when its NodePools offer what those of
// a set solved before (E) offer, and neither set restricts a label the
// input reads but from the NodePools (equalKeys), its solve would make E's
// plan, but for the claims' requirements on the labels the sets restrict,
// as E's solve made it up to where it stopped, if it did. So:
//   - E's plan rejected or no cheaper than base: the set's is not kept
//     either, at any stop;
//   - E's solve stopped above E.stop: the set's stops too, at a stop no
//     higher, where it is not kept;
//   - E's plan kept at cost c: the set's costs c, and is kept, when its
//     solve does not stop first, which it does not at a stop no lower
//     than E's nor at one clearly above c (a solve stops only once its
//     plan certainly costs more, Options.StopAbovePrice), and which
//     changes nothing when c is above stop (a plan kept above stop is one
//     the run does not need: Run neither takes it into the chain nor
//     returns it first). When allowed
//     (asEarlierOK) and E is among the plans Run returns and ranks before
//     the set (same cost, fewer edits or the same number and an earlier
//     name), the set is tryKeptAsEarlier: it is not Search's cheapest plan
//     then, and Run needs only its cost.
func (s *EditSearch) asEarlier(key string, edits []Edit, prep *scheduling.Prepared, stop, limit float64, asEarlierOK bool) (EditPlan, tryOutcome, bool) {
	if !s.cheapest || len(s.offers) == 0 || !narrowingOnly(edits) {
		return EditPlan{}, tryNotKept, false
	}
	for _, e := range s.offers {
		// The input is read for the labels only once two sets offer
		// the same, which most never do.
		if !e.prep.SameOffers(prep) || !s.equalKeys(edits) || !s.equalKeys(e.edits) {
			continue
		}
		switch {
		case e.plan != nil:
			if !asEarlierOK || !s.listed[e.key] || !ranksBefore(e.edits, edits) {
				continue
			}
			if c := e.plan.PerHour; stop < e.stop && c <= stop && c*(1+1e-9) > stop {
				// The solve may stop on rounding.
				continue
			}
			s.Equal++
			delete(s.solved, key)
			return EditPlan{Edits: edits, PerHour: e.plan.PerHour}, tryKeptAsEarlier, true
		case e.stopped:
			if stop > e.stop {
				continue
			}
			if stop < s.basePerHour {
				s.solved[key] = editTrial{above: limit}
			}
			s.Equal++
			return EditPlan{}, tryNotKept, true
		default:
			s.Equal++
			return EditPlan{}, tryNotKept, true
		}
	}
	return EditPlan{}, tryNotKept, false
}

// ranksBefore reports whether a plan of the edits a ranks before one of
// the same cost of the edits b (SortEditPlans).
func ranksBefore(a, b []Edit) bool {
	return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(EditsKey(a), EditsKey(b))) < 0
}
