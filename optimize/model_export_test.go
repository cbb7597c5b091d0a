package optimize

import "github.com/karpsim/karpsim/scheduling"

// ModelAndNarrowings builds the model Search builds on Karpenter's plan
// base, with the input's NodePools compiled in prep, and the narrowings
// it solves: for benchmarks.
func ModelAndNarrowings(in scheduling.Input, base scheduling.Result, prep *scheduling.Prepared) (columns, narrowings int, err error) {
	m, err := buildModelWith(in, base, prep)
	if err != nil {
		return 0, 0, err
	}
	n, err := modelNarrowings(in, m)
	return len(m.every), len(n), err
}
