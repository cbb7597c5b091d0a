package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Karpenter's plan:", "lower bound:", "optimizing planner:", "advice 1:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

// The figures the example prints keep their order: the bound is below
// every plan of the NodePool as it is, the optimizing planner does not
// cost more than Karpenter, and the advice costs less.
func TestFiguresAreOrdered(t *testing.T) {
	in := input()
	karpenter := scheduling.Solve(in)
	bound, err := optimize.LowerBound(in, karpenter, optimize.BoundOptions{})
	if err != nil {
		t.Fatal(err)
	}
	optimized, err := optimize.Solve(in, optimize.SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	report, err := advise.Advise(in, advise.Options{Top: 1})
	if err != nil {
		t.Fatal(err)
	}
	k, o := optimize.PlanPerHour(karpenter), optimize.PlanPerHour(optimized)
	if bound.PerHour > o*(1+1e-9) || o > k*(1+1e-9) {
		t.Errorf("want bound %.4f ≤ optimized %.4f ≤ Karpenter %.4f", bound.PerHour, o, k)
	}
	if len(report.Advice) == 0 || report.Advice[0].PerHour >= k {
		t.Errorf("no advice cheaper than Karpenter's $%.4f/hour: %+v", k, report.Advice)
	}
}
