package advisor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/simulator"
)

// Config configures an Advisor. The zero value evaluates 1 s after the last
// burst of changes began and every minute, and never probes.
type Config struct {
	// Options are each evaluation's.
	Options Options
	// Debounce is how long after a change the advisor evaluates, folding
	// in the changes that come meanwhile; default 1 s.
	Debounce time.Duration
	// Period is how often the advisor evaluates without a change, and
	// weighs the cluster against the optimizer and the lower bound
	// (EvaluateRepack); default 1 minute.
	Period time.Duration
	// Probe, when set, is asked every ProbeEvery (default 5 s) whether the
	// API server answers; while it fails the view is stale, and when it
	// answers again the advisor evaluates at once.
	Probe      func(context.Context) error
	ProbeEvery time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logf, when set, is told of each failed evaluation and probe.
	Logf func(format string, args ...any)
}

// Status is the advisor's latest answer and how far to trust it.
type Status struct {
	// Answer is the latest successful evaluation; nil before the first.
	Answer *Answer `json:"answer"`
	// Stale is set while the view may be out of date: the API server does
	// not answer the probe, or the last evaluation failed (Error says
	// why). StaleSince is when it became so.
	Stale      bool      `json:"stale"`
	StaleSince time.Time `json:"staleSince,omitzero"`
	Error      string    `json:"error,omitempty"`
	// Evaluations counts the evaluations run.
	Evaluations int `json:"evaluations"`
}

// Advisor evaluates a watched cluster on every change and on a period, and
// serves the latest answer (Handler). It never writes to the cluster.
type Advisor struct {
	watcher cloud.ClusterWatcher
	cfg     Config

	registry *prometheus.Registry
	duration *prometheus.HistogramVec
	runs     *prometheus.CounterVec

	mu         sync.Mutex
	status     Status
	probeError error
	ready      chan struct{}
	readyOnce  sync.Once
}

// New returns an advisor over the watcher; Run starts it.
func New(w cloud.ClusterWatcher, cfg Config) *Advisor {
	if cfg.Debounce <= 0 {
		cfg.Debounce = time.Second
	}
	if cfg.Period <= 0 {
		cfg.Period = time.Minute
	}
	if cfg.ProbeEvery <= 0 {
		cfg.ProbeEvery = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	a := &Advisor{watcher: w, cfg: cfg, registry: prometheus.NewRegistry(), ready: make(chan struct{})}
	a.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "karpsim_evaluation_duration_seconds",
		Help:    "Time one evaluation took, by kind: changes (plan and disruption) or repack (the optimizer and the lower bound).",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30},
	}, []string{"kind"})
	a.runs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "karpsim_evaluations_total",
		Help: "Evaluations run, by kind and result (ok or error).",
	}, []string{"kind", "result"})
	a.registry.MustRegister(a.duration, a.runs, collector{a},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return a
}

// Registry is the registry /metrics serves, for a host that adds its own.
func (a *Advisor) Registry() *prometheus.Registry { return a.registry }

// Status returns the latest status. The Answer is shared: do not change it.
func (a *Advisor) Status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status
}

// Ready is closed once the first evaluation succeeded.
func (a *Advisor) Ready() <-chan struct{} { return a.ready }

// Run evaluates at once, then after each burst of changes and on the
// period, until ctx is done. It returns ctx's error.
func (a *Advisor) Run(ctx context.Context) error {
	changed := make(chan struct{}, 1)
	a.watcher.Watch(ctx, func(cloud.Change) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	a.evaluate(true)
	period := time.NewTicker(a.cfg.Period)
	defer period.Stop()
	var probe <-chan time.Time
	if a.cfg.Probe != nil {
		t := time.NewTicker(a.cfg.ProbeEvery)
		defer t.Stop()
		probe = t.C
	}
	var debounce <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
			if debounce == nil {
				debounce = time.After(a.cfg.Debounce)
			}
		case <-debounce:
			debounce = nil
			a.evaluate(false)
		case <-period.C:
			a.evaluate(true)
		case <-probe:
			if a.probe(ctx) {
				a.evaluate(true)
			}
		}
	}
}

// probe asks the API server whether it answers, and reports whether it
// answers again after failing.
func (a *Advisor) probe(ctx context.Context) bool {
	pctx, cancel := context.WithTimeout(ctx, a.cfg.ProbeEvery)
	defer cancel()
	err := a.cfg.Probe(pctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	recovered := a.probeError != nil && err == nil
	if err != nil && a.probeError == nil && a.cfg.Logf != nil {
		a.cfg.Logf("the API server does not answer: %v", err)
	}
	a.probeError = err
	a.markStale()
	return recovered
}

// markStale sets Stale from the probe and the last evaluation; a.mu is held.
func (a *Advisor) markStale() {
	stale := a.probeError != nil || a.status.Error != ""
	if stale && !a.status.Stale {
		a.status.StaleSince = a.cfg.Now()
	}
	if !stale {
		a.status.StaleSince = time.Time{}
	}
	a.status.Stale = stale
	if a.probeError != nil && a.status.Error == "" {
		a.status.Error = "the API server does not answer: " + a.probeError.Error()
	}
}

// evaluate reads the watcher and evaluates; repack also weighs the cluster
// against the optimizer and the bound, else the last repack is kept.
func (a *Advisor) evaluate(repack bool) {
	now := a.cfg.Now()
	answer, err := a.answer(now, repack)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.status.Evaluations++
	if err != nil {
		a.status.Error = err.Error()
		if a.cfg.Logf != nil {
			a.cfg.Logf("evaluation failed: %v", err)
		}
	} else {
		if !repack && a.status.Answer != nil {
			answer.Repack = a.status.Answer.Repack
		}
		a.status.Answer, a.status.Error = answer, ""
		a.readyOnce.Do(func() { close(a.ready) })
	}
	a.markStale()
}

// answer reads the cluster and evaluates it, recording the time taken.
func (a *Advisor) answer(now time.Time, withRepack bool) (*Answer, error) {
	state, err := a.state()
	if err != nil {
		return nil, err
	}
	set := simulator.StateSet(state)
	start := time.Now()
	answer, in, err := evaluate(set, a.cfg.Options, now)
	a.observe("changes", start, err)
	if err != nil || !withRepack {
		return answer, err
	}
	start = time.Now()
	answer.Repack, err = repack(in, answer.Nodes, now)
	a.observe("repack", start, err)
	if err != nil {
		return nil, fmt.Errorf("repack: %w", err)
	}
	return answer, nil
}

func (a *Advisor) observe(kind string, start time.Time, err error) {
	a.duration.WithLabelValues(kind).Observe(time.Since(start).Seconds())
	result := "ok"
	if err != nil {
		result = "error"
	}
	a.runs.WithLabelValues(kind, result).Inc()
}

// state reads the watcher: through State when it can fail (kube.Watcher),
// else its Snapshot.
func (a *Advisor) state() (cloud.ClusterState, error) {
	if s, ok := a.watcher.(interface {
		State() (cloud.ClusterState, error)
	}); ok {
		return s.State()
	}
	return a.watcher.Snapshot(), nil
}
