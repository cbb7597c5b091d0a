package scheduling

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// The launch filter picks a claim's options in launch order from its
// priced list's options sorted once per filter: the same options, in the
// same order, as sorting the claim's own (stably, by launch price then
// name), for random claims of the AWS catalog and the fake one, spot and
// on-demand, with and without exotic types, in any order of claims.
func TestLaunchFilterOrderEqualsStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 29))
	catalogs := map[string]instancetypes.Catalog{"aws": instancetypes.Default(), "fake": instancetypes.Fake(60)}
	reorders := 0
	for name, catalog := range catalogs {
		for _, capacity := range [][]string{{apis.CapacityTypeSpot, apis.CapacityTypeOnDemand}, {apis.CapacityTypeOnDemand}, {apis.CapacityTypeSpot}} {
			np := newPool("default", withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, capacity...))
			tmpl := compileTemplate(Pool{NodePool: np, InstanceTypes: catalog}, nil, nil, nil)
			if tmpl.refused != "" {
				t.Fatalf("%s %v: %s", name, capacity, tmpl.refused)
			}
			s := &solver{}
			reference := &solver{}
			for trial := range 300 {
				// A claim's options: a run of the cheapest, or a random
				// subset, as claims keep them.
				var options []*typeOption
				switch trial % 3 {
				case 0:
					options = tmpl.options[:1+rng.IntN(len(tmpl.options))]
				case 1:
					for _, o := range tmpl.options {
						if rng.IntN(4) == 0 {
							options = append(options, o)
						}
					}
				default:
					options = tmpl.options[rng.IntN(len(tmpl.options)):]
				}
				if len(options) == 0 {
					continue
				}
				reqs := tmpl.requirements
				priced := slices.Clone(tmpl.priceClaim(options, reqs, math.MaxInt, &s.scratch))
				got, gotRule := s.launchFilter(slices.Clone(priced), reqs)
				want, wantRule := referenceLaunchFilter(reference, slices.Clone(priced), reqs)
				if gotRule != wantRule || !slices.Equal(optionNamesOf(got), optionNamesOf(want)) || !slices.Equal(got, want) {
					t.Fatalf("%s %v, claim %d of %d options: launch order %v (%+v), want %v (%+v)", name, capacity, trial, len(options), optionNamesOf(got), gotRule, optionNamesOf(want), wantRule)
				}
				if !slices.IsSortedFunc(priced, func(a, b *pricedOption) int { return cmp.Compare(a.pos, b.pos) }) || !slices.Equal(got, priced[:min(len(priced), len(got))]) {
					reorders++
				}
			}
		}
	}
	t.Logf("%d claims reordered", reorders)
	if reorders == 0 {
		t.Error("no claim's options were reordered: the test checks nothing")
	}
}

func optionNamesOf(priced []*pricedOption) []string {
	out := make([]string, len(priced))
	for i, p := range priced {
		out[i] = fmt.Sprintf("%s@%g", p.option.it.Name, p.launch)
	}
	return out
}

// referenceLaunchFilter is launchFilter sorting each claim's options
// itself, stably.
func referenceLaunchFilter(s *solver, priced []*pricedOption, reqs requirements.Requirements) ([]*pricedOption, launchRule) {
	rule := launchRule{spotCap: math.Inf(1), capacityTypes: [instancetypes.LaunchCapacityTypes]bool{true, true, true}}
	reserved := instancetypes.LaunchRank(apis.CapacityTypeReserved)
	var kept []*pricedOption
	hasReserved := false
	for _, p := range priced {
		if !math.IsInf(p.cheapest, 1) {
			kept = append(kept, p)
			hasReserved = hasReserved || p.best[reserved] >= 0
		}
	}
	reorder := false
	if hasReserved {
		rule.capacityTypes = [instancetypes.LaunchCapacityTypes]bool{}
		rule.capacityTypes[reserved] = true
		kept = slices.DeleteFunc(kept, func(p *pricedOption) bool { return p.best[reserved] < 0 })
		reorder = true
	}
	if !reqs.HasMinValues() {
		generic := 0
		for _, p := range kept {
			if !p.option.exotic {
				generic++
			}
		}
		if generic > 0 && generic < len(kept) {
			kept = slices.DeleteFunc(kept, func(p *pricedOption) bool { return p.option.exotic })
		}
		if !hasReserved {
			rule.spotCap = cheapestOnDemandOverSpot(kept, reqs)
		}
	}
	for _, p := range kept {
		p.launch = rule.price(p)
	}
	if !math.IsInf(rule.spotCap, 1) {
		kept = slices.DeleteFunc(kept, func(p *pricedOption) bool { return math.IsInf(p.launch, 1) })
		reorder = true
	}
	if reorder {
		slices.SortStableFunc(kept, func(a, b *pricedOption) int {
			return cmp.Or(cmp.Compare(a.launch, b.launch), cmp.Compare(a.option.it.Name, b.option.it.Name))
		})
	}
	if len(kept) > instancetypes.MaxLaunchOptions {
		kept = kept[:instancetypes.MaxLaunchOptions]
	}
	return kept, rule
}
