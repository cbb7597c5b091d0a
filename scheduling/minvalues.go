package scheduling

import (
	"fmt"
	"slices"
)

// minValuesShortfall checks the claim's minValues requirements against the
// instance types left: every requirement with minValues needs that many
// distinct values of its key among them. It returns a description of the
// first requirement they fall short of, or "" when all are met.
func minValuesShortfall(c *claim, options []*typeOption, buf []string) string {
	for _, r := range c.requirements.Items() {
		need := r.MinValues()
		if need == 0 {
			continue
		}
		if have := distinctValues(options, r.Key(), buf[:0]); have < need {
			return fmt.Sprintf("minValues: %s needs %d distinct values, the instance types left have %d", r.Key(), need, have)
		}
	}
	return ""
}

// relaxedMinValues are the minValues of the claim's requirements that the
// options fall short of, by key, each lowered to the distinct values the
// options have (Karpenter's MinValuesPolicy BestEffort); nil when none
// falls short.
func relaxedMinValues(c *claim, options []*typeOption) map[string]int {
	var out map[string]int
	for _, r := range c.requirements.Items() {
		need := r.MinValues()
		if need == 0 {
			continue
		}
		if have := distinctValues(options, r.Key(), nil); have < need {
			if out == nil {
				out = map[string]int{}
			}
			out[r.Key()] = have
		}
	}
	return out
}

// distinctValues counts the values of key across the options' labels.
func distinctValues(options []*typeOption, key string, buf []string) int {
	for _, o := range options {
		if r, ok := o.it.Requirements.Lookup(key); ok {
			buf = r.AppendValues(buf)
		}
	}
	slices.Sort(buf)
	return len(slices.Compact(buf))
}
