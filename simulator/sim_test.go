package simulator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

const inflate = `apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate}
spec:
  replicas: 0
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec:
      containers: [{name: inflate, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
`

func dur(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }

func scaleAt(at time.Duration, n int32) Step {
	return Step{At: dur(at), Scale: &ScaleStep{Deployment: "inflate", Replicas: n}}
}

func run(t testing.TB, sc Scenario) *Result {
	t.Helper()
	if sc.Inline == "" {
		sc.Inline = inflate
	}
	res, err := Run(context.Background(), sc, Config{CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	noViolations(t, res)
	return res
}

// noViolations fails a test whose run broke an invariant: every simulator
// test runs with Config.CheckInvariants.
func noViolations(t testing.TB, res *Result) {
	t.Helper()
	if err := res.InvariantError(); err != nil {
		t.Fatal(err)
	}
}

func kinds(r *Result, kind string) []Decision {
	var out []Decision
	for _, d := range r.Timeline {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	return out
}

func timeline(r *Result) string {
	var b strings.Builder
	for _, d := range r.Timeline {
		b.WriteString(d.At.Duration.String() + " " + d.Kind + " " + strings.Join(d.Nodes, ",") + " " + d.Reason + "\n")
	}
	return b.String()
}

func TestScaleUpLaunchesAndBindsWithinAMinute(t *testing.T) {
	res := run(t, Scenario{Seed: 1, Duration: dur(3 * time.Minute), Steps: []Step{scaleAt(0, 10)}})
	launches := kinds(res, KindLaunch)
	if len(launches) == 0 {
		t.Fatalf("no launch:\n%s", timeline(res))
	}
	if res.PendingTime.Count != 10 || res.PendingTime.StillPending != 0 {
		t.Fatalf("pending time %+v, want 10 pods bound:\n%s", res.PendingTime, timeline(res))
	}
	if got := res.PendingTime.Max.Duration; got > 70*time.Second || got < 45*time.Second {
		t.Errorf("slowest pod waited %v, want about a minute (batch + launch)", got)
	}
	if launches[0].At.Duration > 11*time.Second {
		t.Errorf("first launch at %v, want within the 10 s batch window", launches[0].At.Duration)
	}
}

func TestScaleDownConsolidatesEmptyNodes(t *testing.T) {
	res := run(t, Scenario{Seed: 1, Duration: dur(15 * time.Minute), Steps: []Step{scaleAt(0, 10), scaleAt(5*time.Minute, 0)}})
	if res.Final.Nodes != 0 {
		t.Fatalf("%d nodes left, want 0:\n%s", res.Final.Nodes, timeline(res))
	}
	deletes := kinds(res, KindDelete)
	if len(deletes) == 0 || deletes[0].Method != "emptiness" {
		t.Fatalf("want an emptiness delete:\n%s", timeline(res))
	}
	if res.DisruptionsByMethod["emptiness"] != len(kinds(res, KindLaunch)) {
		t.Errorf("disruptions %v, launches %d", res.DisruptionsByMethod, len(kinds(res, KindLaunch)))
	}
}

func TestSpotInterruptionReplacesNodeAndRebindsPods(t *testing.T) {
	res := run(t, Scenario{Seed: 1, Duration: dur(10 * time.Minute), Steps: []Step{
		scaleAt(0, 10), {At: dur(3 * time.Minute), Interrupt: &InterruptStep{Count: 1}},
	}})
	ints := kinds(res, KindInterruption)
	if len(ints) != 1 {
		t.Fatalf("want one interruption:\n%s", timeline(res))
	}
	var relaunched bool
	for _, l := range kinds(res, KindLaunch) {
		if l.At.Duration >= 3*time.Minute {
			relaunched = true
			if l.InstanceType == ints[0].InstanceType && l.Zone == ints[0].Zone && l.CapacityType == "spot" {
				t.Errorf("replacement %s reuses the interrupted offering, which should be unavailable", l.Nodes[0])
			}
		}
	}
	if !relaunched || res.Final.PendingPods != 0 || res.Final.Pods != 10 {
		t.Fatalf("want a replacement and every pod bound, final %+v:\n%s", res.Final, timeline(res))
	}
	if res.DisruptionsByMethod[MethodInterruption] != 1 {
		t.Errorf("disruptions %v", res.DisruptionsByMethod)
	}
}

func TestInsufficientCapacityFallsBack(t *testing.T) {
	first := run(t, Scenario{Seed: 1, Duration: dur(3 * time.Minute), Steps: []Step{scaleAt(0, 10)}})
	l := kinds(first, KindLaunch)[0]
	res := run(t, Scenario{Seed: 1, Duration: dur(3 * time.Minute), Steps: []Step{scaleAt(0, 10)},
		Cloud: CloudSpec{Capacity: []CapacityLimit{{InstanceType: l.InstanceType, Zone: l.Zone, CapacityType: l.CapacityType}}}})
	// The launch offers the cloud every offering of the claim's launch
	// types, as CreateFleet does: the exhausted one is passed over in the
	// same call, at the same moment, with no failed launch.
	if failed := kinds(res, KindLaunchFailed); len(failed) != 0 {
		t.Fatalf("want no failed launch:\n%s", timeline(res))
	}
	launched := kinds(res, KindLaunch)
	if len(launched) == 0 {
		t.Fatalf("no fallback launch:\n%s", timeline(res))
	}
	if got := launched[0]; got.InstanceType == l.InstanceType && got.Zone == l.Zone && got.CapacityType == l.CapacityType {
		t.Errorf("fallback relaunched the exhausted offering")
	} else if got.At != l.At {
		t.Errorf("fallback at %v, want %v: in the first launch's call", got.At, l.At)
	}
	if res.Final.PendingPods != 0 {
		t.Errorf("%d pods pending at the end:\n%s", res.Final.PendingPods, timeline(res))
	}
}

func marshal(t testing.TB, r *Result) []byte {
	t.Helper()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSameSeedSameResult(t *testing.T) {
	sc := Scenario{Seed: 42, Duration: dur(20 * time.Minute), Cloud: CloudSpec{FailureRate: 0.2}, Steps: []Step{
		scaleAt(0, 30), {At: dur(4 * time.Minute), Interrupt: &InterruptStep{Count: 1}}, scaleAt(8*time.Minute, 5),
	}}
	a, b := marshal(t, run(t, sc)), marshal(t, run(t, sc))
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	sc.Seed = 43
	c := marshal(t, run(t, sc))
	if !bytes.Contains(c, []byte(`"seed": 43`)) {
		t.Error("the seed is not echoed")
	}
	t.Logf("seed 42 vs 43 identical: %v", bytes.Equal(a, c))
}

func TestStartsFromClusterWatcher(t *testing.T) {
	var cluster cloud.MemoryCluster
	var pods []*corev1.Pod
	for _, name := range []string{"b", "a", "c"} {
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}},
		})
	}
	cluster.Set(cloud.ClusterState{Pods: pods})
	res, err := Run(context.Background(), Scenario{Seed: 1, Duration: dur(2 * time.Minute)}, Config{Cluster: &cluster, CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	noViolations(t, res)
	if res.Final.Pods != 3 || res.Final.PendingPods != 0 || len(kinds(res, KindLaunch)) != 1 {
		t.Fatalf("final %+v:\n%s", res.Final, timeline(res))
	}
}

func TestCustomLauncherOnTheSimulationClock(t *testing.T) {
	sc := Scenario{Name: "custom", Seed: 1, Duration: dur(30 * time.Minute), Inline: inflate, Steps: []Step{scaleAt(time.Minute, 10)}}
	clock := cloud.NewManualClock(time.Time{})
	launcher, err := cloud.NewMemory(cloud.MemoryConfig{Clock: clock, Catalog: instancetypes.Default()})
	require.NoError(t, err)
	res, err := Run(context.Background(), sc, Config{Launcher: launcher, Clock: clock, CheckInvariants: true})
	require.NoError(t, err)
	noViolations(t, res)
	require.Len(t, kinds(res, KindLaunch), 1)
	assert.Less(t, res.TotalCost, 1.0, "instances are dated in simulated time")

	late := cloud.NewManualClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	_, err = Run(context.Background(), sc, Config{Launcher: launcher, Clock: late, CheckInvariants: true})
	assert.ErrorIs(t, err, ErrInvalidScenario)
}

func TestProgressReportsEachHundredthAndTheEnd(t *testing.T) {
	sc := Scenario{Seed: 1, Duration: dur(2 * time.Hour), Inline: inflate, Steps: []Step{scaleAt(0, 10), scaleAt(time.Hour, 0)}}
	var got []time.Duration
	_, err := Run(context.Background(), sc, Config{CheckInvariants: true, Progress: func(done, total time.Duration) {
		assert.Equal(t, 2*time.Hour, total)
		got = append(got, done)
	}})
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.Equal(t, time.Duration(0), got[0])
	assert.Equal(t, 2*time.Hour, got[len(got)-1])
	assert.LessOrEqual(t, len(got), 102)
	assert.Greater(t, len(got), 50, "disruption polls every 10 s pass every hundredth")
	assert.IsIncreasing(t, got)
}

func TestPodsWaitingForAnInterruptedInFlightNodeAreProvisionedAgain(t *testing.T) {
	res := run(t, Scenario{Seed: 1, Duration: dur(5 * time.Minute), Steps: []Step{
		scaleAt(0, 10),
		{At: dur(2 * time.Second), Interrupt: &InterruptStep{Count: 1}},
	}})
	require.Len(t, kinds(res, KindInterruption), 1, timeline(res))
	assert.Len(t, kinds(res, KindLaunch), 2, timeline(res))
	assert.Zero(t, res.Final.PendingPods, timeline(res))
}

func TestNodeClassChangeDriftsItsNodes(t *testing.T) {
	set, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	require.NoError(t, err)
	nc := set.EC2NodeClasses[0].DeepCopy()
	nc.APIVersion, nc.Kind = apis.AWSGroup+"/v1", apis.KindEC2NodeClass
	nc.Spec.Tags = map[string]string{"team": "web"}
	manifest, err := yaml.Marshal(nc)
	require.NoError(t, err)
	r := run(t, Scenario{Duration: dur(30 * time.Minute), Inline: inflate, Steps: []Step{
		scaleAt(time.Minute, 5),
		{At: dur(10 * time.Minute), NodeClass: &NodeClassStep{Manifest: string(manifest)}},
	}})
	changed := kinds(r, KindNodeClassChanged)
	require.Len(t, changed, 1, timeline(r))
	assert.Contains(t, changed[0].Reason, "EC2NodeClass default replaced")
	drifted := kinds(r, KindDrifted)
	require.Len(t, drifted, 1, timeline(r))
	assert.Contains(t, drifted[0].Reason, "NodeClassDrift")
	replaced := kinds(r, KindReplace)
	require.Len(t, replaced, 1, timeline(r))
	assert.Equal(t, "drift", replaced[0].Method)
	assert.Equal(t, drifted[0].Nodes, replaced[0].Nodes)
	assert.Equal(t, 0, r.Final.PendingPods)
}

// An inline NodePool may use an EC2NodeClass from the scenario's manifest
// files: the two are read as one set.
func TestInlineNodePoolUsesNodeClassFromFiles(t *testing.T) {
	set, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	require.NoError(t, err)
	nc, np := set.EC2NodeClasses[0].DeepCopy(), set.NodePools[0].DeepCopy()
	nc.APIVersion, nc.Kind = apis.AWSGroup+"/v1", apis.KindEC2NodeClass
	np.APIVersion, np.Kind = apis.Group+"/v1", apis.KindNodePool
	np.Name = "web"
	classYAML, err := yaml.Marshal(nc)
	require.NoError(t, err)
	poolYAML, err := yaml.Marshal(np)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "class.yaml"), classYAML, 0o644))
	r := run(t, Scenario{Duration: dur(5 * time.Minute), Manifests: []string{dir}, Inline: inflate + "---\n" + string(poolYAML),
		Steps: []Step{scaleAt(time.Minute, 3)}})
	launches := kinds(r, KindLaunch)
	require.Len(t, launches, 1, timeline(r))
	assert.Equal(t, []string{"web-00001"}, launches[0].Nodes)
}

// A scenario longer than the limit is refused before it runs, naming the
// limit and how to raise it; the limit can be raised.
func TestRunRefusesScenariosPastMaxDuration(t *testing.T) {
	sc, err := ParseScenario([]byte("name: long\nduration: 100000h\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), sc, Config{CheckInvariants: true})
	if !errors.Is(err, ErrInvalidScenario) || !strings.Contains(err.Error(), "duration 100000h0m0s is longer than 8784h0m0s") {
		t.Fatalf("err = %v", err)
	}
	sc.Duration.Duration = 10 * time.Hour
	if _, err := Run(context.Background(), sc, Config{MaxDuration: 9 * time.Hour}); !errors.Is(err, ErrInvalidScenario) {
		t.Fatalf("a lower limit is not held: %v", err)
	}
	if _, err := Run(context.Background(), sc, Config{MaxDuration: 11 * time.Hour}); err != nil {
		t.Fatal(err)
	}
}

// A scale or traffic step asking for more pods than snapshot expands is
// refused before the run, naming the step; Snapshot.MaxPods moves the
// limit for the steps as for the manifests.
func TestRunRefusesStepsPastMaxPods(t *testing.T) {
	sc, err := ParseScenario([]byte(`name: big
duration: 1h
steps:
- {at: 1m, scale: {deployment: web, replicas: 2000000000}}
- {at: 2m, traffic: {deployment: web, replicas: [1, 300000]}}
- {at: 3m, scale: {deployment: web, replicas: 20}}
inline: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default}
  spec:
    replicas: 0
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
        - {name: web, image: x, resources: {requests: {cpu: 100m}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), sc, Config{CheckInvariants: true})
	want := "invalid scenario: steps[0]: 2000000000 replicas of Deployment default/web is more than 200000, the most pods karpsim expands (snapshot.Options.MaxPods raises it)\n" +
		"invalid scenario: steps[1]: 300000 replicas of Deployment default/web is more than 200000, the most pods karpsim expands (snapshot.Options.MaxPods raises it)"
	if !errors.Is(err, ErrInvalidScenario) || err.Error() != want {
		t.Fatalf("err = %v", err)
	}
	sc.Steps = sc.Steps[2:]
	if _, err := Run(context.Background(), sc, Config{Snapshot: snapshot.Options{MaxPods: 10}}); err == nil || !strings.Contains(err.Error(), "steps[0]: 20 replicas of Deployment default/web is more than 10") {
		t.Fatalf("a lower limit is not held: %v", err)
	}
	res, err := Run(context.Background(), sc, Config{Snapshot: snapshot.Options{MaxPods: 20}, CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Timeline {
		if d.Kind == KindStepFailed {
			t.Fatalf("step failed: %s", d.Reason)
		}
	}
}

func TestZonalShiftKeepsLaunchesOutOfTheZone(t *testing.T) {
	first := run(t, Scenario{Seed: 1, Duration: dur(3 * time.Minute), Steps: []Step{scaleAt(0, 10)}})
	zone := kinds(first, KindLaunch)[0].Zone
	res := run(t, Scenario{Seed: 1, Duration: dur(3 * time.Minute), Steps: []Step{scaleAt(0, 10)},
		Cloud: CloudSpec{ZonalShifts: []string{zone}}})
	launched := kinds(res, KindLaunch)
	if len(launched) == 0 || res.Final.PendingPods != 0 {
		t.Fatalf("want launches elsewhere and no pod pending:\n%s", timeline(res))
	}
	for _, l := range launched {
		if l.Zone == zone {
			t.Errorf("launch %s in %s, the zone shifted away from", l.Nodes[0], zone)
		}
	}
}

// TestClusterObjectsAreAllRead runs on a watcher holding a Deployment and
// no pods: its replicas are the run's pods, as from a manifest file.
func TestClusterObjectsAreAllRead(t *testing.T) {
	var cluster cloud.MemoryCluster
	replicas := int32(4)
	labels := map[string]string{"app": "web"}
	cluster.Set(cloud.ClusterState{Deployments: []*appsv1.Deployment{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}},
	}}})
	res, err := Run(context.Background(), Scenario{Seed: 1, Duration: dur(2 * time.Minute)}, Config{Cluster: &cluster, CheckInvariants: true})
	require.NoError(t, err)
	noViolations(t, res)
	assert.Equal(t, 4, res.Final.Pods, "the Deployment's replicas:\n%s", timeline(res))
	assert.Zero(t, res.Final.PendingPods)
}

// TestStateSetHoldsEveryKind fills each of a ClusterState's lists with one
// object and finds each in the set the simulator reads: a kind added to
// ClusterState and left out here fails.
func TestStateSetHoldsEveryKind(t *testing.T) {
	var st cloud.ClusterState
	v := reflect.ValueOf(&st).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		require.Equal(t, reflect.Slice, f.Kind(), "ClusterState.%s", v.Type().Field(i).Name)
		f.Set(reflect.Append(f, reflect.New(f.Type().Elem().Elem())))
	}
	set := reflect.ValueOf(StateSet(st)).Elem()
	found := 0
	for i := range set.NumField() {
		if f := set.Field(i); f.Kind() == reflect.Slice && set.Type().Field(i).IsExported() && set.Type().Field(i).Name != "Warnings" {
			found += f.Len()
		}
	}
	assert.Equal(t, v.NumField(), found, "every object of the snapshot is in the set")
}
