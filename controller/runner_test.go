package controller_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/controller/hosttest"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/simulator"
	"github.com/karpsim/karpsim/snapshot"
)

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// world is a live cluster in memory: the API server (cloud.MemoryCluster),
// the cloud (cloud.Memory), and the kubelet and kube-scheduler
// (hosttest.Host), which act between the runner's steps.
type world struct {
	t       *testing.T
	clock   *cloud.ManualClock
	cluster *cloud.MemoryCluster
	cloud   *cloud.Memory
	runner  *controller.Runner
	host    *hosttest.Host
	log     []controller.Decision
}

func newWorld(t *testing.T, pods int) *world {
	t.Helper()
	w := &world{t: t, clock: cloud.NewManualClock(t0), cluster: &cloud.MemoryCluster{}}
	set, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	if err != nil {
		t.Fatal(err)
	}
	catalog := instancetypes.Default()
	w.cloud, err = cloud.NewMemory(cloud.MemoryConfig{Clock: w.clock, Catalog: catalog, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []any{set.NodePools[0], set.EC2NodeClasses[0]} {
		if err := w.cluster.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	w.host = hosttest.New(w.cluster, hosttest.Config{Instances: w.cloud.Instances})
	w.addPods(pods)
	w.runner, err = controller.NewRunner(controller.RunnerConfig{Watcher: w.cluster, Writer: w.cluster, Launcher: w.cloud,
		Clock: w.clock, Record: func(d controller.Decision) { w.log = append(w.log, d) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.runner.Close)
	return w
}

func (w *world) addPods(n int) {
	for i := range n {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("inflate-%02d", i),
			CreationTimestamp: metav1.NewTime(w.clock.Now())}}
		p.Spec.Containers = []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1536Mi")}}}}
		if err := w.cluster.Apply(p); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *world) deletePods() {
	for _, p := range w.cluster.Snapshot().Pods {
		if err := w.cluster.Delete("Pod", p.Namespace, p.Name); err != nil {
			w.t.Fatal(err)
		}
	}
}

// run advances the clock second by second for d: at each second the kubelet
// and the scheduler act, then the runner steps.
func (w *world) run(d time.Duration) {
	w.t.Helper()
	for end := w.clock.Now().Add(d); w.clock.Now().Before(end); {
		w.clock.Advance(time.Second)
		if _, err := w.host.Step(w.clock.Now()); err != nil {
			w.t.Fatal(err)
		}
		if err := w.runner.Step(context.Background()); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *world) kinds() string {
	var out []string
	for _, d := range w.log {
		out = append(out, d.Kind)
	}
	return strings.Join(out, " ")
}

// TestRunnerScaleUpAndDown runs the loop against the in-memory API server
// and cloud: ten pending pods get a node, which registers, initializes and
// takes them; once they are gone the empty node is consolidated away and
// its instance terminated.
func TestRunnerScaleUpAndDown(t *testing.T) {
	w := newWorld(t, 10)
	w.run(2 * time.Minute)
	if got := w.kinds(); got != "launch ready" {
		t.Fatalf("decisions after scale-up: %s", got)
	}
	launch := w.log[0]
	if launch.Pods != 10 || launch.At.Duration != 2*time.Second {
		t.Errorf("launch %+v: want 10 pods at +2s (1 s batch idle after the first step)", launch)
	}
	st := w.cluster.Snapshot()
	if len(st.Nodes) != 1 || len(st.NodeClaims) != 1 {
		t.Fatalf("%d nodes, %d NodeClaims", len(st.Nodes), len(st.NodeClaims))
	}
	claim := st.NodeClaims[0]
	for _, c := range []string{"Launched", "Registered", "Initialized"} {
		if !slices.ContainsFunc(claim.Status.Conditions, func(cond metav1.Condition) bool { return cond.Type == c && cond.Status == metav1.ConditionTrue }) {
			t.Errorf("NodeClaim %s lacks condition %s: %+v", claim.Name, c, claim.Status.Conditions)
		}
	}
	if claim.Status.NodeName != st.Nodes[0].Name || claim.Status.LastPodEventTime.IsZero() {
		t.Errorf("NodeClaim status %+v: want nodeName and lastPodEventTime", claim.Status)
	}
	for _, p := range st.Pods {
		if p.Spec.NodeName != st.Nodes[0].Name {
			t.Errorf("pod %s on %q", p.Name, p.Spec.NodeName)
		}
	}

	w.deletePods()
	w.run(2 * time.Minute)
	if got := w.kinds(); got != "launch ready delete" {
		t.Fatalf("decisions after scale-down: %s", got)
	}
	if del := w.log[2]; del.Method != consolidation.MethodEmptiness || !slices.Equal(del.Nodes, []string{claim.Name}) {
		t.Errorf("delete %+v: want the empty node %s", del, claim.Name)
	}
	st = w.cluster.Snapshot()
	if len(st.Nodes) != 0 || len(st.NodeClaims) != 0 || len(w.cloud.Instances()) != 0 {
		t.Errorf("left: %d nodes, %d NodeClaims, %d instances", len(st.Nodes), len(st.NodeClaims), len(w.cloud.Instances()))
	}
}

// summary is what the loop decided, without the simulator's own entries
// (scale, bind) and the moment a node is seen ready, which the test's
// kubelet reports on the next whole second.
func summary(ds []controller.Decision) []string {
	var out []string
	for _, d := range ds {
		switch d.Kind {
		case controller.KindReady:
			out = append(out, fmt.Sprintf("ready %v %s", d.Nodes, d.InstanceType))
		case controller.KindLaunch, controller.KindDelete, controller.KindReplace, controller.KindInterruption:
			out = append(out, fmt.Sprintf("%v %s %v %s %s %s %s %d %.4f", d.At.Duration, d.Kind, d.Nodes, d.InstanceType, d.Zone,
				d.CapacityType, d.Method, d.Pods, d.PricePerHour))
		}
	}
	return out
}

// simulate runs the inflate Deployment through the simulator with the
// given steps.
func simulate(t *testing.T, steps string) []controller.Decision {
	t.Helper()
	sc, err := simulator.ParseScenario([]byte(`
name: parity
seed: 1
start: "2026-11-01T00:00:00Z"
duration: 5m
steps:
` + steps + `
inline: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: inflate, namespace: default}
  spec:
    replicas: 0
    selector: {matchLabels: {app: inflate}}
    template:
      metadata: {labels: {app: inflate}}
      spec:
        containers:
        - name: app
          image: public.ecr.aws/eks-distro/kubernetes/pause:3.7
          resources: {requests: {cpu: "1", memory: 1536Mi}}
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulator.Run(context.Background(), sc, simulator.Config{CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.InvariantError(); err != nil {
		t.Fatal(err)
	}
	return res.Timeline
}

func sameDecisions(t *testing.T, simulated, live []controller.Decision, want int) {
	t.Helper()
	sim, run := summary(simulated), summary(live)
	if !slices.Equal(sim, run) {
		t.Errorf("simulator:\n  %s\nrunner:\n  %s", strings.Join(sim, "\n  "), strings.Join(run, "\n  "))
	}
	if len(sim) != want {
		t.Errorf("want %d decisions; got %v", want, sim)
	}
}

// TestRunnerMatchesSimulator runs the same workload through the simulator
// and through the runner against the in-memory API server: the loop is the
// same code, so it launches and deletes the same nodes at the same times.
func TestRunnerMatchesSimulator(t *testing.T) {
	sim := simulate(t, `
- {at: 1s, scale: {deployment: inflate, replicas: 10}}
- {at: 2m, scale: {deployment: inflate, replicas: 0}}`)
	// The pods exist before the first step at +1s, as the simulator's
	// scale step comes at 1s; they are deleted before the step at 2m, as
	// the simulator's scale step to 0 comes before its poll at 2m.
	w := newWorld(t, 10)
	w.run(2*time.Minute - time.Second)
	w.deletePods()
	w.run(3*time.Minute + time.Second)
	sameDecisions(t, sim, w.log, 3)
}

// TestRunnerHandlesInterruptionsAsTheSimulatorDoes interrupts the spot node
// of the same workload in both: the node is drained and deleted, the
// offering marked unavailable, and the pods get a node of another offering.
func TestRunnerHandlesInterruptionsAsTheSimulatorDoes(t *testing.T) {
	sim := simulate(t, `
- {at: 1s, scale: {deployment: inflate, replicas: 10}}
- {at: 2m, interrupt: {}}`)
	w := newWorld(t, 10)
	w.run(2*time.Minute - time.Second)
	for _, inst := range w.cloud.Instances() {
		notice, err := w.cloud.Interrupt(inst.ID)
		if err != nil {
			t.Fatal(err)
		}
		w.runner.Interrupt(notice)
	}
	w.run(3*time.Minute + time.Second)
	sameDecisions(t, sim, w.log, 5)
	if st := w.cluster.Snapshot(); len(st.Nodes) != 1 || st.Nodes[0].Name != "default-00002" {
		t.Errorf("nodes %v: want only the replacement default-00002", st.Nodes)
	}
	for _, p := range w.cluster.Snapshot().Pods {
		if p.Spec.NodeName != "default-00002" {
			t.Errorf("pod %s on %q, want default-00002", p.Name, p.Spec.NodeName)
		}
	}
}

// claimHider is a watcher whose snapshots lack every NodeClaim, as an
// informer that has not caught up yet would.
type claimHider struct{ *cloud.MemoryCluster }

func (h claimHider) Snapshot() cloud.ClusterState {
	s := h.MemoryCluster.Snapshot()
	s.NodeClaims = nil
	return s
}

// TestRunnerSeesItsOwnClaims checks that a NodeClaim the loop created counts
// before the watcher reports it: a pod arriving while the claim is in
// flight is placed on it, not on a second node.
func TestRunnerSeesItsOwnClaims(t *testing.T) {
	w := newWorld(t, 10)
	var err error
	w.runner, err = controller.NewRunner(controller.RunnerConfig{Watcher: claimHider{w.cluster}, Writer: w.cluster, Launcher: w.cloud,
		Clock: w.clock, Record: func(d controller.Decision) { w.log = append(w.log, d) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.runner.Close)
	step := func() {
		w.clock.Advance(time.Second)
		if err := w.runner.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		step()
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "late", CreationTimestamp: metav1.NewTime(w.clock.Now())}}
	p.Spec.Containers = []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("1")}}}}
	if err := w.cluster.Apply(p); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		step()
	}
	if got := w.kinds(); got != "launch" {
		t.Errorf("decisions %q: want one launch, the late pod nominated to the in-flight claim", got)
	}
}

// TestRunnerRunsOnTheWallClock drives the loop with Run, on the wall clock
// with short timings, until a NodeClaim is created for the pending pods;
// cancelling the context stops it.
func TestRunnerRunsOnTheWallClock(t *testing.T) {
	cluster := &cloud.MemoryCluster{}
	set, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.Apply(set.NodePools[0], set.EC2NodeClasses[0]); err != nil {
		t.Fatal(err)
	}
	mem, err := cloud.NewMemory(cloud.MemoryConfig{Clock: cloud.WallClock{}})
	if err != nil {
		t.Fatal(err)
	}
	var log []controller.Decision
	r, err := controller.NewRunner(controller.RunnerConfig{Watcher: cluster, Writer: cluster, Launcher: mem,
		Timings: controller.Timings{BatchIdle: 10 * time.Millisecond, BatchMax: 50 * time.Millisecond, DisruptionInterval: 20 * time.Millisecond},
		Record:  func(d controller.Decision) { log = append(log, d) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	// The pod arrives while Run waits: the watcher's change wakes it.
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
	p.Spec.Containers = []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("2")}}}}
	if err := cluster.Apply(p); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(cluster.Snapshot().NodeClaims) == 0 {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no NodeClaim after 30 s; Run returned %v", <-done)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	if len(log) == 0 || log[0].Kind != controller.KindLaunch {
		t.Errorf("decisions %+v: want a launch first", log)
	}
}

// A cluster the runner cannot read is an error naming the object: Step
// returns it, and Run hands it to OnError and goes on until cancelled.
func TestRunnerReportsClusterErrors(t *testing.T) {
	cluster := &cloud.MemoryCluster{}
	set, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.Apply(set.NodePools[0]); err != nil { // its EC2NodeClass is missing
		t.Fatal(err)
	}
	mem, err := cloud.NewMemory(cloud.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	clock := cloud.NewManualClock(t0)
	r, err := controller.NewRunner(controller.RunnerConfig{Watcher: cluster, Writer: cluster, Launcher: mem, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.Step(context.Background())
	if want := `cluster: NodePool/default: spec.template.spec.nodeClassRef.name: EC2NodeClass "default" not found`; err == nil || err.Error() != want {
		t.Fatalf("Step: %v, want %s", err, want)
	}

	errs := make(chan error, 10)
	r2, err := controller.NewRunner(controller.RunnerConfig{Watcher: cluster, Writer: cluster, Launcher: mem,
		OnError: func(err error) {
			select {
			case errs <- err:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r2.Run(ctx) }()
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), "NodePool/default") {
			t.Errorf("OnError got %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no error reported in 30 s")
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
}

// An EC2NodeClass edited in the cluster makes its nodes drift: the watcher
// reports the change, the next poll finds the drift and the node is
// replaced.
func TestRunnerReplacesNodesWhenTheirNodeClassChanges(t *testing.T) {
	w := newWorld(t, 10)
	w.run(2 * time.Minute)
	nc := w.cluster.Snapshot().EC2NodeClasses[0]
	nc.Spec.Tags = map[string]string{"team": "web"}
	if err := w.cluster.Apply(nc); err != nil {
		t.Fatal(err)
	}
	w.run(3 * time.Minute)
	// The poll that comes right after the replacement may find it empty
	// before the evicted pods are bound again: a consolidation that fails
	// its validation may follow.
	if got := w.kinds(); !strings.HasPrefix(got, "launch ready drifted launch ready replace") {
		t.Fatalf("decisions: %s", got)
	}
	if d := w.log[2]; !strings.HasPrefix(d.Reason, "NodeClassDrift") {
		t.Errorf("drift %+v", d)
	}
	replace := w.log[5]
	if replace.Method != consolidation.MethodDrift || !slices.Equal(replace.Nodes, []string{"default-00001"}) ||
		!slices.Equal(replace.Replacements, []string{"default-00002"}) {
		t.Errorf("replace %+v", replace)
	}
	st := w.cluster.Snapshot()
	if len(st.Nodes) != 1 || st.Nodes[0].Name != "default-00002" {
		t.Fatalf("nodes %v", st.Nodes)
	}
	for _, p := range st.Pods {
		if p.Spec.NodeName != "default-00002" {
			t.Errorf("pod %s on %q", p.Name, p.Spec.NodeName)
		}
	}
}
