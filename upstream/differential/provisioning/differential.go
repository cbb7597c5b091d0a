package provisioning

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/karpsim/karpsim/upstream/differential/clustergen"
)

// Outcome is one seed's comparison.
type Outcome struct {
	Seed     uint64
	Features string
	Karpsim  Decision
	// Karpenter are the distinct decisions of Karpenter's runs, in the
	// order first seen, and Runs how many runs there were.
	Karpenter []Decision
	Runs      int
	// Agrees is true when karpsim's decision is one of Karpenter's.
	Agrees bool
}

// Varies reports whether Karpenter's runs disagreed among themselves.
func (o Outcome) Varies() bool { return len(o.Karpenter) > 1 }

// Describe is a short account of a divergence: the cluster's features and
// how karpsim's decision differs from Karpenter's first.
func (o Outcome) Describe() string {
	return fmt.Sprintf("seed %d (%s): karpenter (%d distinct of %d runs) vs karpsim: %s", o.Seed, o.Features, len(o.Karpenter), o.Runs, Diff(o.Karpenter[0], o.Karpsim))
}

// Compare generates the cluster of seed, runs karpsim once and Karpenter
// runs times, then on up to maxRuns times in all while karpsim's decision is
// not among Karpenter's (Karpenter breaks ties between topology domains in
// map order, so an answer it gives one time in three is missed by three runs
// about one time in three), and compares.
func Compare(seed uint64, runs, maxRuns int) (Outcome, error) {
	c, err := clustergen.Generate(seed)
	if err != nil {
		return Outcome{}, fmt.Errorf("seed %d: generating: %w", seed, err)
	}
	o := Outcome{Seed: seed, Features: c.Features()}
	o.Karpsim, _, err = RunKarpsim(c)
	if err != nil {
		return o, fmt.Errorf("seed %d: %w", seed, err)
	}
	seen := map[string]bool{}
	for i := 0; i < runs || i < maxRuns && !o.Agrees; i++ {
		o.Runs++
		d, err := RunKarpenter(c)
		if err != nil {
			return o, fmt.Errorf("seed %d: %w", seed, err)
		}
		if k := d.Key(); !seen[k] {
			seen[k] = true
			o.Karpenter = append(o.Karpenter, d)
		}
		if d.Key() == o.Karpsim.Key() {
			o.Agrees = true
		}
	}
	return o, nil
}

// CompareAll compares seeds from, from+1, …, from+n-1 on GOMAXPROCS
// workers and returns the outcomes in seed order; the first error stops it.
func CompareAll(from uint64, n, runs, maxRuns int) ([]Outcome, error) {
	out := make([]Outcome, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = Compare(from+uint64(i), runs, maxRuns)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
