package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// A Compiler's solves read each pod once and share the read between
// them (podReads): every solve after the first, under other options,
// other NodePools and subsets of the pods, answers as a fresh solve of
// its own, whatever the pods ask (preferences relaxed away, spread
// constraints, anti-affinity, a restricted selector, a deferred pod).
func TestCompilerSolvesShareTheirPodReads(t *testing.T) {
	spread := pods(9, "spread", "500m", "512Mi", withLabels("app", "spread"), withSpread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule))
	lonely := pods(3, "lonely", "1", "1Gi", withLabels("app", "lonely"), withPodAntiAffinity(apis.LabelHostname, "lonely"))
	// Pods the anti-affinity selects, with no constraint of their own:
	// a solve with the lonely pods gives them shapes another must not see.
	selected := pods(2, "selected", "300m", "256Mi", withLabels("app", "lonely"))
	picky := pods(6, "picky", "700m", "1Gi", withPreferredNodeAffinity(50, apis.LabelInstanceType, corev1.NodeSelectorOpIn, "no-such-type"))
	restricted := newPod("restricted", "100m", "128Mi", withNodeSelector(apis.LabelHostname, "node-a"))
	deferred := newPod("deferred", "100m", "128Mi")
	deferred.Annotations = map[string]string{AnnotationDeferred: "waits for its claim"}
	all := append(append(append(append(append(pods(20, "web", "700m", "1Gi"), spread...), lonely...), picky...), selected...), restricted, deferred)
	subsets := [][]*corev1.Pod{all, all[10:], all[:20], picky, append(append([]*corev1.Pod{}, selected...), spread...), selected, all}

	def := newPool("default")
	capped := newPool("default", withRequirement(apis.LabelInstanceCPU, corev1.NodeSelectorOpLt, "5"))
	nodes := []*Node{makeNode("node-a", "default", true, "4", "8Gi")}
	c := NewCompiler(nil, Options{})
	for i, pools := range [][]Pool{{pool(def)}, {pool(capped)}, {pool(def)}} {
		prep := c.Prepare(pools)
		for j, sub := range subsets {
			for _, opts := range []Options{{}, {IgnorePreferences: true}, {Packing: PackCheapest}, {Packing: PackBalanced}} {
				in := Input{Pods: sub, Nodes: nodes, NodePools: pools, Options: opts}
				want := Solve(in)
				got := prep.WithOptions(opts).Solve(in)
				require.Equal(t, want, got, "pools %d, pods %d, %+v", i, j, opts)
			}
		}
	}
	// Every pod was read once, with and without its preferences (the
	// relaxed copies a solve reads are its own), and no solve changed
	// what it shares: topology gives its shapes to copies.
	var read []*corev1.Pod
	for k, info := range c.reads.infos {
		require.Nil(t, info.topo, "pod %s", info.key)
		if k.prefs == requirements.WithPreferences {
			read = append(read, k.pod)
		}
	}
	assert.ElementsMatch(t, all, read)
	assert.Len(t, c.reads.infos, 2*len(all))
}

// Inputs whose pods read differently from solve to solve (volumes
// resolved against the input's claims and classes) are read afresh each
// time, and nothing of them is kept.
func TestCompilerReadsPodsWithVolumesAfresh(t *testing.T) {
	c := NewCompiler(nil, Options{})
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard"}, Provisioner: "ebs.csi.aws.com"}
	in := Input{Pods: pods(4, "web", "1", "1Gi"), NodePools: []Pool{pool(newPool("default"))}, StorageClasses: []*storagev1.StorageClass{class}}
	prep := c.Prepare(in.NodePools)
	for range 2 {
		assert.Equal(t, Solve(in), prep.Solve(in))
	}
	assert.Empty(t, c.reads.infos)
}
