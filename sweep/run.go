package sweep

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/simulator"
	"github.com/karpsim/karpsim/snapshot"
)

// Run is one run of a sweep: a scenario under a variant with a seed.
type Run struct {
	// Index is the run's place in the sweep's order: scenarios as given,
	// then variants as listed, then seeds as listed.
	Index    int
	Scenario string
	Variant  string
	// Seed is the run's seed: one of the sweep's, or the scenario's own.
	Seed uint64

	source  *Source
	variant *Variant
}

// Shard selects the runs whose index ≡ Index mod Count; the zero Shard is
// the whole sweep.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s Shard) whole() bool { return s.Count <= 1 }

func (s Shard) has(index int) bool { return s.whole() || index%s.Count == s.Index }

// String is "I/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Check refuses a shard outside 0 ≤ Index < Count.
func (s Shard) Check() error {
	if s.Count < 0 || (s.Count > 0 && (s.Index < 0 || s.Index >= s.Count)) {
		return fmt.Errorf("%w: shard %s: want 0 <= I < N", ErrInvalid, s)
	}
	return nil
}

// Runs lists every run of the sweep over the sources, in order. Sources are
// the scenarios the spec's paths name, in the spec's order (a folder's files
// in lexical order).
func Runs(spec Spec, sources []Source) ([]Run, error) {
	variants := spec.variants()
	seeds := max(len(spec.Seeds), 1)
	if total := len(sources) * len(variants) * seeds; total > MaxRuns {
		return nil, fmt.Errorf("%w: %d scenarios × %d variants × %d seeds = %d runs, more than %d", ErrInvalid,
			len(sources), len(variants), seeds, total, MaxRuns)
	}
	var runs []Run
	for i := range sources {
		src := &sources[i]
		own := uint64(0)
		if len(spec.Seeds) == 0 {
			sc, err := simulator.ParseScenarioFile(src.Path, src.Scenario)
			if err != nil {
				return nil, err
			}
			own = sc.Seed
		}
		for j := range variants {
			for k := range seeds {
				seed := own
				if len(spec.Seeds) > 0 {
					seed = spec.Seeds[k]
				}
				runs = append(runs, Run{Index: len(runs), Scenario: src.Path, Variant: variants[j].Name, Seed: seed,
					source: src, variant: &variants[j]})
			}
		}
	}
	return runs, nil
}

// Options configure Execute. The zero value runs the whole sweep on one
// worker per CPU with the embedded catalog.
type Options struct {
	// Workers run at once; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// Shard runs only part of the sweep.
	Shard Shard
	// Snapshot are the options manifests are read with (region, zones).
	Snapshot snapshot.Options
	// Catalogs are the catalogs variants name (Variant.Catalog), read by
	// the caller.
	Catalogs map[string]instancetypes.Catalog
	// KeepResults keeps every run's whole simulator.Result (timeline and
	// samples), not only its summary: memory grows with the runs.
	KeepResults bool
	// Progress, when set, is called after each run with the runs done and
	// the runs to do, from the worker that finished; calls do not overlap.
	Progress func(done, total int)
}

// Execute runs the sweep's runs of opts.Shard on a pool of workers. The
// result depends on the spec, the sources and the shard alone: not on the
// number of workers nor on the order runs finish in. A run that fails (a
// bad patch, a scenario the simulator refuses) is reported in its
// RunResult and its row; the others still run. The error is for the sweep
// as a whole: too many runs, a catalog not given, ctx done.
func Execute(ctx context.Context, spec Spec, sources []Source, opts Options) (*Result, error) {
	if err := opts.Shard.Check(); err != nil {
		return nil, err
	}
	runs, err := Runs(spec, sources)
	if err != nil {
		return nil, err
	}
	for _, v := range spec.variants() {
		if v.Catalog != "" && opts.Catalogs[v.Catalog] == nil {
			return nil, fmt.Errorf("variant %s: catalog %s was not read", v.Name, v.Catalog)
		}
	}
	if opts.Snapshot.Catalog == nil {
		opts.Snapshot.Catalog = memoCatalogs(opts.Snapshot)
	}
	var mine []Run
	for _, r := range runs {
		if opts.Shard.has(r.Index) {
			mine = append(mine, r)
		}
	}
	out := make([]RunResult, len(mine))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range cmp.Or(opts.Workers, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range jobs {
				out[i] = runOne(ctx, mine[i], opts)
				if opts.Progress != nil {
					mu.Lock()
					done++
					opts.Progress(done, len(mine))
					mu.Unlock()
				}
			}
		})
	}
feed:
	for i := range mine {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{Name: spec.Name, Sweep: fingerprint(spec, sources), Total: len(runs), Runs: out}
	if !opts.Shard.whole() {
		shard := opts.Shard
		res.Shard = &shard
	}
	res.Rows = rows(out)
	return res, nil
}

// runOne prepares and simulates one run.
func runOne(ctx context.Context, r Run, opts Options) RunResult {
	out := RunResult{Index: r.Index, Scenario: r.Scenario, Variant: r.Variant, Seed: r.Seed}
	sc, streams, err := Prepare(*r.source, *r.variant, r.Seed)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	autoscaler, err := simulator.ParseAutoscaler(r.variant.Autoscaler)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	cfg := simulator.Config{Manifests: streams, Snapshot: opts.Snapshot, Autoscaler: autoscaler}
	if name := r.variant.Catalog; name != "" {
		catalog := opts.Catalogs[name]
		cfg.Snapshot.Catalog = func(*apis.EC2NodeClass) (instancetypes.Catalog, error) { return catalog, nil }
	}
	res, err := simulator.Run(ctx, sc, cfg)
	if err != nil {
		out.Error = fmt.Sprintf("%s: variant %s: %v", r.Scenario, r.Variant, err)
		return out
	}
	s := summarize(res)
	out.Summary = &s
	if opts.KeepResults {
		out.Result = res
	}
	return out
}

// memoCatalogs models each EC2NodeClass's instance types once for the
// whole sweep: runs of one scenario, and most runs of a sweep, share their
// classes, and modelling 1,363 instance types dominates a short run.
// Catalogs are read-only, so runs share them.
func memoCatalogs(o snapshot.Options) func(*apis.EC2NodeClass) (instancetypes.Catalog, error) {
	type entry struct {
		catalog instancetypes.Catalog
		err     error
	}
	var mu sync.Mutex
	memo := map[string]entry{}
	return func(nc *apis.EC2NodeClass) (instancetypes.Catalog, error) {
		key := "<default>"
		if nc != nil {
			b, err := json.Marshal(nc)
			if err != nil {
				return nil, err
			}
			key = string(b)
		}
		mu.Lock()
		defer mu.Unlock()
		if e, ok := memo[key]; ok {
			return e.catalog, e.err
		}
		c, err := o.CatalogFor(nc)
		memo[key] = entry{c, err}
		return c, err
	}
}

// fingerprint identifies a sweep by its spec and the scenarios' contents,
// so that only parts of one sweep are merged.
func fingerprint(spec Spec, sources []Source) string {
	h := sha256.New()
	// The spec's JSON form: fields left empty add nothing, so a field
	// added to the format does not change every sweep's identity.
	b, _ := json.Marshal(spec)
	h.Write(b)
	for _, s := range sources {
		fmt.Fprintf(h, "%s\n%x\n", s.Path, sha256.Sum256(s.Scenario))
		for _, m := range s.Manifests {
			fmt.Fprintf(h, "%s\n%x\n", m.Name, sha256.Sum256(m.Data))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ErrMerge is wrapped by Merge's errors.
var ErrMerge = errors.New("cannot merge sweep parts")
