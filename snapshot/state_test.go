package snapshot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/manifests"
)

// FromState decides from a watched cluster's objects exactly what
// ForDisruption decides from the same objects read from files: the live
// path and the file path are one path.
func TestFromStateIsForDisruption(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/disrupt/*")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			set, err := manifests.Load(filepath.Join(dir, "input.yaml"))
			require.NoError(t, err)
			if len(set.Deployments)+len(set.ReplicaSets)+len(set.StatefulSets)+len(set.Jobs)+
				len(set.PersistentVolumes)+len(set.PersistentVolumeClaims)+len(set.StorageClasses) > 0 {
				t.Skip("a watched cluster's state holds no workload controllers or volumes")
			}
			if len(set.CapacityBuffers)+len(set.NodeOverlays)+len(set.Services) > 0 || set.SchedulerConfig != nil {
				t.Skip("a watched cluster's state holds no CapacityBuffers, NodeOverlays, Services or scheduler configuration (the watcher does not read them yet)")
			}
			now := LatestTime(set)
			want, err := ForDisruption(set, Options{}, now)
			require.NoError(t, err)
			state := cloud.ClusterState{Pods: set.Pods, Nodes: set.Nodes, NodeClaims: set.NodeClaims,
				PDBs: set.PodDisruptionBudgets, NodePools: set.NodePools, EC2NodeClasses: set.EC2NodeClasses,
				DaemonSets: set.DaemonSets}
			got, err := FromState(state, Options{}, now)
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

// FromState's errors name the object at Options.Origin.
func TestFromStateErrorNamesOrigin(t *testing.T) {
	set := decode(t, nodeClassYAML, nodePoolYAML)
	set.NodePools[0].Spec.Template.Spec.NodeClassRef.Name = "missing"
	_, err := FromState(cloud.ClusterState{NodePools: set.NodePools, EC2NodeClasses: set.EC2NodeClasses},
		Options{Origin: "cluster"}, LatestTime(set))
	require.Error(t, err)
	require.Contains(t, err.Error(), "cluster: NodePool/general")
}
