// Package simulator runs Karpenter's control loop, package controller, over
// a virtual cluster and virtual time: a discrete-event engine whose events
// (scenario steps and what repeating steps schedule: traffic ticks, pod
// arrivals and departures, random spot interruptions; the controller's
// wake-ups for provisioning batches, disruption polls and validations; node
// registration and initialization; samples) sit in one queue ordered by
// (time, sequence), so a run is a pure function of its Scenario and seed.
// The simulator is the world around the loop: the cluster the controller
// reads and changes, the workloads, an in-memory kube-scheduler, and the
// cloud — by default the in-memory cloud.Memory.
//
// Parse a scenario with ParseScenario (or read one with LoadScenario; the
// format is in docs/simulation.md) and call Run with a Config: its zero
// value simulates with the in-memory cloud, the embedded EC2 catalog and
// Karpenter's default options; Config.Launcher plugs in a cloud of your
// own, Config.Cluster starts from a cluster a cloud.ClusterWatcher reports,
// Config.Planner replaces Karpenter's planner. The Result holds the
// timeline of decisions, samples, cost, pending times and disruptions.
//
// The same world can host the Cluster Autoscaler model instead (package
// clusterautoscaler, chosen with Config.Autoscaler), so that a comparison
// differs in the autoscaler alone.
//
// One pass, per event, in this order: the event's handler runs (a step, a
// controller wake-up, a lifecycle change, a sample); then, if pods became
// pending or a node became ready, the in-memory kube-scheduler binds what it
// can; then, if pods became pending, the controller is triggered, which
// opens or extends its provisioning batch (1 s idle, 10 s max).
package simulator

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/dra"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Karpenter's timings the loop follows (package controller's).
const (
	BatchIdleDuration  = controller.BatchIdleDuration
	BatchMaxDuration   = controller.BatchMaxDuration
	DisruptionInterval = controller.DisruptionInterval
	ValidationDelay    = controller.ValidationDelay
	UnschedulableRetry = controller.UnschedulableRetry
	defaultSampleEvery = 5 * time.Minute
)

// Config are the pluggable parts of a run. The zero value simulates with
// the in-memory cloud, the embedded EC2 catalog and Karpenter's default
// options.
type Config struct {
	// Launcher launches and deletes instances; nil means a cloud.Memory
	// built from Scenario.Cloud, priced from the NodePools' catalogs and
	// seeded from the scenario's seed. A launcher that also implements
	// Interrupter can serve interrupt steps.
	Launcher cloud.Launcher
	// Cluster, when set, adds every object its snapshot holds to the
	// scenario's manifests at the start of the run, read as the same
	// objects in a manifest file are (a Deployment's replicas are its
	// pods): read once, the simulator owns the cluster from then on.
	Cluster cloud.ClusterWatcher
	// Snapshot are the options the manifests are read with (region, zones,
	// catalogs).
	Snapshot snapshot.Options
	// MaxDuration bounds the virtual time of a run; 0 means
	// DefaultMaxDuration. A longer scenario is refused before it starts.
	MaxDuration time.Duration
	// Limits bound reading the scenario's manifests; the zero value means
	// manifests' defaults. Snapshot.MaxPods bounds the pods its workloads
	// and its scale and traffic steps expand to.
	Limits manifests.Limits
	// Manifests, when not nil, are the scenario's manifests already read
	// by the caller, each named by where it came from: they are decoded in
	// place of Scenario.Manifests and Scenario.Inline, which are not read.
	// A sweep runs patched copies of a scenario's manifests this way.
	Manifests []manifests.Stream
	// Consolidation are the disruption options.
	Consolidation consolidation.Options
	// Planner makes Karpenter's provisioning plans and plans
	// consolidation's replacements (controller.Config's Planner, unless
	// Consolidation has a planner of its own): nil is Karpenter's own,
	// scheduling.Solve; the CLI's simulate --optimize sets optimize.Solve.
	// The Cluster Autoscaler ignores it.
	Planner func(scheduling.Input) (scheduling.Result, error)
	// Clock, when set, is the virtual clock the run advances (it is set to
	// the scenario's start first): build a custom Launcher on it so that
	// the instances it dates agree with simulated time.
	Clock *cloud.ManualClock
	// Autoscaler is the node autoscaler the run hosts; "" is Karpenter.
	// AutoscalerClusterAutoscaler runs the Cluster Autoscaler model over the
	// scenario's clusterAutoscaler section (its defaults without one), with
	// the same cloud, kube-scheduler and workloads.
	Autoscaler Autoscaler
	// MeasureUtilization, when set, measures at every sample the requests
	// of bound pods over the allocatable of ready nodes, and reports the
	// averages in Result.Utilization.
	MeasureUtilization bool
	// CheckInvariants runs package invariants' checks on every decision
	// of the run and on the cluster after every event that changed it,
	// and records what they find in Result.Violations. Checking changes
	// no decision; it only costs time.
	CheckInvariants bool
	// IgnoreBuffers runs Karpenter with its CapacityBuffer feature gate
	// off: the scenario's CapacityBuffers are read and never acted on.
	// CompareBuffers runs a scenario both ways.
	IgnoreBuffers bool
	// Progress, when set, is called as virtual time passes each
	// hundredth of the run and once at its end, with the virtual time
	// simulated so far and the run's duration. It must not call back
	// into the run.
	Progress func(done, total time.Duration)
}

// DefaultMaxDuration is the longest run simulated unless Config.MaxDuration
// says otherwise: a leap year of virtual time, far beyond the days and weeks
// capacity questions are asked over, and within what a run does in minutes.
const DefaultMaxDuration = 366 * 24 * time.Hour

// runClock is the caller's clock set to start, or a new one.
func runClock(c *cloud.ManualClock, start time.Time) *cloud.ManualClock {
	if c == nil {
		return cloud.NewManualClock(start)
	}
	c.Set(start)
	return c
}

// Interrupter sends spot interruption notices; cloud.Memory implements it.
type Interrupter interface {
	Interrupt(id string) (cloud.Interruption, error)
}

// sim is the state of one run.
type sim struct {
	ctx context.Context
	cfg Config
	sc  Scenario
	// steps are the scenario's steps, converted before the run; events
	// name them by index.
	steps []step
	start time.Time
	end   time.Time
	now   time.Time
	clock *cloud.ManualClock
	rng   *rand.Rand
	q     queue
	// overlays are the scenario's NodeOverlays, which Karpenter applies to
	// every NodePool's catalog.
	overlays []*apis.NodeOverlay
	launcher cloud.Launcher

	// auto is the autoscaler the run hosts: Karpenter's loop, over this
	// virtual cluster (see cluster.go), or the Cluster Autoscaler (see
	// autoscaler.go).
	auto loop
	// caCatalog is the catalog the Cluster Autoscaler's node groups name
	// their instance types from; nil in a Karpenter run.
	caCatalog instancetypes.Catalog
	// cloud is the cloud of the run's cluster (provider.Clouds): Azure's
	// when its NodePools name AKSNodeClasses and none EC2NodeClasses, or
	// Config.Snapshot.Cloud says so. The Cluster Autoscaler's node groups
	// are that cloud's: Auto Scaling Groups or VM scale sets.
	cloud string
	// util sums the utilization samples when Config.MeasureUtilization.
	util utilizationSums

	pools       map[string]*apis.NodePool
	classes     map[string]provider.NodeClass    // EC2NodeClasses and AKSNodeClasses, by name
	catalogs    map[string]instancetypes.Catalog // by node class name
	deployments map[string]*appsv1.Deployment    // by namespace/name
	daemonSets  []*corev1.Pod
	pdbs        []*policyv1.PodDisruptionBudget

	nodes map[string]*simNode
	// nodeOrder is nodes sorted by name, nil when it must be made anew.
	nodeOrder []*simNode
	pods      map[string]*simPod // every pod, bound or pending
	pending   map[string]*simPod

	bindDirty bool
	// provisionDirty is set when pods became pending since the loop was
	// last triggered.
	provisionDirty bool
	// generation counts changes that can alter a disruption decision.
	generation   uint64
	res          *Result
	pendingTimes []time.Duration
	costSoFar    float64
	arrivals     map[int]*arrivalStream // by step index
	interrupts   map[int]*rand.Rand     // random interruptions, by step index
	// check is nil unless Config.CheckInvariants.
	check *checker
	// buffers are the CapacityBuffers of the run (buffers.go).
	buffers buffers
	// dra translates the claims of pods the run creates (Scenario.DRA);
	// nil without DRA.
	dra *dra.Translator
	// book follows every node's life and the pending pods (lives.go).
	book lifeBook
}

// Run simulates the scenario and returns what happened. The error is
// about the scenario or its manifests, or the context's; what goes wrong
// inside the run (a launch failure, a step naming nothing) is a decision in
// the result.
func Run(ctx context.Context, sc Scenario, cfg Config) (*Result, error) {
	steps, err := sc.compile(&placer{})
	if err != nil {
		return nil, err
	}
	if limit := cmp.Or(cfg.MaxDuration, DefaultMaxDuration); sc.Duration.Duration > limit {
		return nil, fmt.Errorf("%w: duration %v is longer than %v, the most a run simulates (simulator.Config.MaxDuration raises it)",
			ErrInvalidScenario, sc.Duration.Duration, limit)
	}
	if err := checkReplicas(steps, cmp.Or(cfg.Snapshot.MaxPods, snapshot.DefaultMaxPods)); err != nil {
		return nil, err
	}
	if err := checkWork(sc, steps, cfg, stepIndex); err != nil {
		return nil, err
	}
	s, err := newSim(ctx, sc, steps, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.loop(); err != nil {
		return nil, err
	}
	res := s.finish()
	if s.buffersOn() {
		if err := compareBuffers(ctx, sc, cfg, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func newSim(ctx context.Context, sc Scenario, steps []step, cfg Config) (*sim, error) {
	start := DefaultStart()
	if !sc.Start.IsZero() {
		start = sc.Start.UTC()
	}
	if cfg.Clock != nil && cfg.Clock.Now().After(start) {
		return nil, fmt.Errorf("%w: Config.Clock reads %s, after the scenario's start %s; the clock cannot run backwards",
			ErrInvalidScenario, cfg.Clock.Now().UTC().Format(time.RFC3339), start.Format(time.RFC3339))
	}
	cfg.Snapshot.DRA = cfg.Snapshot.DRA || sc.DRA
	cfg.Snapshot.ZonalShifts = slices.Concat(cfg.Snapshot.ZonalShifts, sc.Cloud.ZonalShifts)
	s := &sim{
		ctx: ctx, cfg: cfg, sc: sc, steps: steps, start: start, end: start.Add(sc.Duration.Duration), now: start,
		clock:       runClock(cfg.Clock, start),
		rng:         rand.New(rand.NewPCG(sc.Seed, 0x73696d756c61746f)),
		pools:       map[string]*apis.NodePool{},
		classes:     map[string]provider.NodeClass{},
		catalogs:    map[string]instancetypes.Catalog{},
		deployments: map[string]*appsv1.Deployment{},
		nodes:       map[string]*simNode{},
		pods:        map[string]*simPod{},
		pending:     map[string]*simPod{},
		res:         newResult(sc),
	}
	which, err := ParseAutoscaler(string(cfg.Autoscaler))
	if err != nil {
		return nil, err
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	if which == AutoscalerClusterAutoscaler {
		s.res.Autoscaler = string(which)
		if s.caCatalog, err = cfg.Snapshot.Providers().ByCloud(s.cloud).Catalog(nil, nil); err != nil {
			return nil, fmt.Errorf("simulator: the Cluster Autoscaler's catalog: %w", err)
		}
	}
	if err := s.setLauncher(); err != nil {
		return nil, err
	}
	if cfg.CheckInvariants {
		s.check = newChecker(s)
	}
	if which == AutoscalerClusterAutoscaler {
		s.auto, err = s.newCALoop()
	} else {
		ccfg := controller.Config{Cluster: s, Launcher: s.launcher, Timers: s, Record: s.decide, Options: s.cfg.Consolidation, Planner: s.cfg.Planner, NodeOverlays: s.overlays,
			Providers: s.providers()}
		if s.check != nil {
			ccfg.Planned, ccfg.Evaluated = s.check.planned, s.check.evaluated
		}
		if s.buffersOn() {
			ccfg.BufferPods = s.bufferPods
		}
		var ctrl *controller.Controller
		ctrl, err = controller.New(ccfg)
		s.auto = karpenterLoop{s: s, c: ctrl}
	}
	if err != nil {
		return nil, err
	}
	for i, st := range steps {
		s.q.schedule(event{at: start.Add(st.at), kind: evStep, index: i})
	}
	s.auto.start(start)
	if s.buffersOn() && len(s.buffers.list) > 0 {
		// The buffer controller reconciles each buffer as it appears and
		// triggers a provisioning pass.
		s.auto.trigger(start)
	}
	s.q.schedule(event{at: start, kind: evSample})
	s.bindDirty = len(s.pending) > 0
	return s, nil
}

// setLauncher uses the configured launcher, or an in-memory cloud priced
// from every NodePool's catalog.
func (s *sim) setLauncher() error {
	if s.cfg.Launcher != nil {
		s.launcher = s.cfg.Launcher
		return nil
	}
	var types []*instancetypes.InstanceType
	seen := map[string]bool{}
	// Sorted class names: the first class to list a type prices it; the
	// Cluster Autoscaler's catalog comes last.
	catalogs := make([]instancetypes.Catalog, 0, len(s.catalogs)+1)
	for _, name := range slices.Sorted(maps.Keys(s.catalogs)) {
		catalogs = append(catalogs, s.catalogs[name])
	}
	for _, c := range append(catalogs, s.caCatalog) {
		for _, it := range c {
			if !seen[it.Name] {
				seen[it.Name] = true
				types = append(types, it)
			}
		}
	}
	catalog, err := instancetypes.NewCatalog(types...)
	if err != nil {
		return fmt.Errorf("simulator: pricing catalog: %w", err)
	}
	cc := cloud.MemoryConfig{
		Clock: s.clock, Catalog: catalog, FailureRate: s.sc.Cloud.FailureRate, Seed: s.sc.Seed,
		RegistrationDelay:   s.sc.Cloud.RegistrationDelay.Duration,
		InitializationDelay: s.sc.Cloud.InitializationDelay.Duration,
		LaunchJitter:        s.sc.Cloud.LaunchJitter.Duration,
		Capacity:            map[cloud.OfferingKey]int{},
	}
	for _, l := range s.sc.Cloud.Capacity {
		cc.Capacity[cloud.OfferingKey{InstanceType: l.InstanceType, Zone: l.Zone, CapacityType: l.CapacityType}] = l.Count
	}
	m, err := cloud.NewMemory(cc)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidScenario, err)
	}
	// The nodes the manifests start with are running instances of this
	// cloud: deleting or interrupting one must find it.
	for _, name := range slices.Sorted(maps.Keys(s.nodes)) {
		if err := m.Adopt(s.nodes[name].Instance); err != nil {
			return fmt.Errorf("simulator: node %s: %w", name, err)
		}
	}
	s.launcher = m
	return nil
}

// loop fires events in (time, sequence) order until the end of the run.
func (s *sim) loop() error {
	total := s.end.Sub(s.start)
	step := max(total/100, 1)
	nextReport := time.Duration(0)
	for s.q.Len() > 0 && !s.q.peek().After(s.end) {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		e := s.q.next()
		s.now = e.at
		s.clock.Set(e.at)
		if done := s.now.Sub(s.start); s.cfg.Progress != nil && done >= nextReport && done < total {
			s.cfg.Progress(done, total)
			nextReport = done - done%step + step
		}
		s.fire(e)
		if s.bindDirty {
			s.bind()
		}
		if s.provisionDirty {
			s.provisionDirty = false
			s.auto.trigger(s.now)
		}
		if s.check != nil {
			s.check.cluster()
		}
		s.notePending()
	}
	s.now = s.end
	s.clock.Set(s.end)
	if s.cfg.Progress != nil {
		s.cfg.Progress(total, total)
	}
	return nil
}

// fire runs one event's handler.
func (s *sim) fire(e event) {
	switch e.kind {
	case evStep:
		s.step(e.index)
	case evWake:
		s.auto.wake(s.ctx, e.index, s.now)
	case evRegistered:
		if n := s.nodes[e.ref]; n != nil {
			n.Registered = true
			n.Node.Node.Labels[apis.LabelNodeRegistered] = "true"
			n.Health = registeredHealth(s.now)
			s.lifeRegistered(e.ref)
		}
	case evInitialized:
		s.initialized(e.ref)
	case evSample:
		s.sample()
		s.q.schedule(event{at: s.now.Add(s.sampleEvery()), kind: evSample})
	case evTraffic:
		s.traffic(e.index, e.tick)
	case evArrival:
		s.arrive(e.index, e.tick)
	case evDeparture:
		s.depart(e.ref)
	case evInterruption:
		s.randomInterruption(e.index)
	}
}

func (s *sim) sampleEvery() time.Duration {
	if d := s.sc.SampleEvery.Duration; d > 0 {
		return d
	}
	return defaultSampleEvery
}

// initialized makes a launched node ready: pods may bind to it, and the
// loop is told (a disruption command waiting for it may go on).
func (s *sim) initialized(name string) {
	n := s.nodes[name]
	if n == nil {
		return
	}
	n.Initialized, n.InitializedAt = true, s.now
	s.lifeReady(name)
	n.Node.Node.Labels[apis.LabelNodeInitialized] = "true"
	n.Node.Node.StartupTaints = nil
	s.bindDirty = true
	s.generation++
	s.auto.nodeReady(s.ctx, n, s.now)
}
