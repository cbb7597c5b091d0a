package scheduling

import (
	"fmt"
	"slices"

	"github.com/karpsim/karpsim/requirements"
)

// minValuesShortfall checks a claim's minValues requirements, reqs (the
// claim's with the pod being added, its volumes and its topology), against
// the instance types left: every requirement with minValues needs that many
// distinct values of its key among them, counting only the values the
// requirement allows (Karpenter v1.15.0: a type sold in three zones counts
// one zone when a volume or a spread narrowed the claim to one). It returns
// a description of the first requirement they fall short of, or "" when
// all are met.
func minValuesShortfall(reqs requirements.Requirements, options []*typeOption, buf []string) string {
	// Most claims ask for no minValues: their requirements are not copied
	// to find that out (finalize asks of every truncated claim).
	if !reqs.HasMinValues() {
		return ""
	}
	for _, r := range reqs.Items() {
		need := r.MinValues()
		if need == 0 {
			continue
		}
		if have := distinctValues(options, r, buf[:0]); have < need {
			return fmt.Sprintf("minValues: %s needs %d distinct values, the instance types left have %d", r.Key(), need, have)
		}
	}
	return ""
}

// relaxedMinValues are the minValues of the claim's requirements that the
// options fall short of, by key, each lowered to the distinct values the
// options have that the requirement allows (Karpenter's MinValuesPolicy
// BestEffort); nil when none falls short.
func relaxedMinValues(reqs requirements.Requirements, options []*typeOption) map[string]int {
	var out map[string]int
	for _, r := range reqs.Items() {
		need := r.MinValues()
		if need == 0 {
			continue
		}
		if have := distinctValues(options, r, nil); have < need {
			if out == nil {
				out = map[string]int{}
			}
			out[r.Key()] = have
		}
	}
	return out
}

// distinctValues counts the values of req's key across the options'
// labels that req allows.
func distinctValues(options []*typeOption, req requirements.Requirement, buf []string) int {
	for _, o := range options {
		if r, ok := o.it.Requirements.Lookup(req.Key()); ok {
			buf = r.AppendValues(buf)
		}
	}
	buf = slices.DeleteFunc(buf, func(v string) bool { return !req.Has(v) })
	slices.Sort(buf)
	return len(slices.Compact(buf))
}
