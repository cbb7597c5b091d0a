package optimize

import "github.com/karpsim/karpsim/scheduling"

// SolveOptions are the knobs of the optimizing planner.
type SolveOptions struct{}

// Solve is the optimizing planner: it returns a plan for in that obeys
// every constraint scheduling.Solve obeys, schedules at least as many pods,
// and costs no more than Karpenter's plan (scheduling.Solve's), which it
// returns when it finds nothing cheaper. It has the same contract as
// scheduling.Solve, so a caller can use either as its planner. The input is
// not changed.
func Solve(in scheduling.Input, opts SolveOptions) (scheduling.Result, error) {
	base := scheduling.Solve(in)
	n, ok, err := Narrow(in, base)
	if err != nil || !ok {
		return base, err
	}
	return n.Result, nil
}
