package simulator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}

// Run changes nothing the caller passed: not the Scenario (its steps are
// pointers and slices the run could reach), not the objects of
// Config.Cluster, not the zones of Config.Snapshot. Running it twice gives
// the same result.
func TestRunDoesNotChangeWhatTheCallerPassed(t *testing.T) {
	set, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	require.NoError(t, err)
	nc := set.EC2NodeClasses[0].DeepCopy()
	nc.APIVersion, nc.Kind = apis.AWSGroup+"/v1", apis.KindEC2NodeClass
	nc.Spec.Tags = map[string]string{"team": "web"}
	class, err := yaml.Marshal(nc)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inflate.yaml"), []byte(inflate), 0o644))

	sc := Scenario{Name: "everything", Seed: 9, Duration: dur(3 * time.Hour), SampleEvery: dur(10 * time.Minute),
		Manifests: []string{dir},
		Cloud:     CloudSpec{FailureRate: 0.1, Capacity: []CapacityLimit{{InstanceType: "c6a.large", Zone: "us-east-1a", CapacityType: "spot", Count: 1}}},
		Steps: []Step{
			scaleAt(time.Minute, 6),
			{At: dur(5 * time.Minute), Interrupt: &InterruptStep{Count: 1}},
			{At: dur(6 * time.Minute), Interrupt: &InterruptStep{PerHour: 2, Until: dur(2 * time.Hour)}},
			{At: dur(10 * time.Minute), NodePool: &NodePoolStep{Manifest: pool("default")}},
			{At: dur(20 * time.Minute), NodeClass: &NodeClassStep{Manifest: string(class)}},
			{At: dur(30 * time.Minute), ReleaseAMI: &ReleaseAMIStep{ID: "ami-0new"}},
			{At: dur(40 * time.Minute), Traffic: &TrafficStep{Deployment: "inflate", Every: dur(20 * time.Minute), Replicas: []int32{2, 8, 4}}},
			{At: dur(50 * time.Minute), Arrivals: &ArrivalsStep{Deployment: "default/inflate", PerHour: 6, MeanLifetime: dur(15 * time.Minute)}},
		}}
	var cluster cloud.MemoryCluster
	pods := []*corev1.Pod{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
	}}
	cluster.Set(cloud.ClusterState{Pods: pods})
	cfg := Config{CheckInvariants: true, Cluster: &cluster, Snapshot: snapshot.Options{Zones: []string{"us-east-1a", "us-east-1b"}}}

	scBefore, podsBefore, clusterBefore, zonesBefore := jsonOf(t, sc), jsonOf(t, pods), jsonOf(t, cluster.Snapshot()), jsonOf(t, cfg.Snapshot.Zones)
	first, err := Run(context.Background(), sc, cfg)
	require.NoError(t, err)
	for _, kind := range []string{KindScale, KindInterruption, KindNodePoolChanged, KindNodeClassChanged, KindAMIReleased, KindArrive} {
		require.NotEmpty(t, kinds(first, kind), "%s: the scenario should exercise every kind of step\n%s", kind, timeline(first))
	}
	assert.Equal(t, scBefore, jsonOf(t, sc), "the Scenario changed")
	assert.Equal(t, podsBefore, jsonOf(t, pods), "the pods given to the cluster changed")
	assert.Equal(t, clusterBefore, jsonOf(t, cluster.Snapshot()), "Config.Cluster changed")
	assert.Equal(t, zonesBefore, jsonOf(t, cfg.Snapshot.Zones), "Config.Snapshot changed")

	second, err := Run(context.Background(), sc, cfg)
	require.NoError(t, err)
	assert.Equal(t, string(marshal(t, first)), string(marshal(t, second)), "a second run differs")
}

// A scenario from LoadScenario is the caller's too: running it leaves it
// as loaded.
func TestLoadedScenarioIsNotChangedByRunning(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	sc, err := LoadScenario(files[0])
	require.NoError(t, err)
	sc.Duration = dur(min(sc.Duration.Duration, 30*time.Minute))
	before := jsonOf(t, sc)
	_, err = Run(context.Background(), sc, Config{CheckInvariants: true})
	require.NoError(t, err)
	assert.Equal(t, before, jsonOf(t, sc))
}
