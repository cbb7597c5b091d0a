package conformance

import (
	"context"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

var _ = register("provisioning",
	// Upstream's batcher keys its triggers by pod: seeing a pending pod
	// again (a watch event for it) inside the idle window does not extend
	// the window. karpsim's Runner, watching an API server, triggers the
	// loop for pods newly pending only. With a 5 s idle and 10 s max
	// window, a pod seen at 0 s and again at 3 s is provisioned for at 5 s.
	conformanceCase{Name: "batch-same-pod-does-not-extend", Run: func(t *T) {
		clock := cloud.NewManualClock(now)
		api := &cloud.MemoryCluster{}
		set, err := manifests.Decode("defaults", snapshot.DefaultManifests())
		require.NoError(t, err)
		require.NoError(t, api.Apply(set.NodePools[0]))
		require.NoError(t, api.Apply(set.EC2NodeClasses[0]))
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", CreationTimestamp: metav1.NewTime(now)}}
		p.Spec.Containers = []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("1")}}}}
		require.NoError(t, api.Apply(p))
		launcher, err := cloud.NewMemory(cloud.MemoryConfig{Clock: clock, Catalog: instancetypes.Default(), Seed: 1})
		require.NoError(t, err)
		var log []controller.Decision
		r, err := controller.NewRunner(controller.RunnerConfig{Watcher: api, Writer: api, Launcher: launcher, Clock: clock,
			Timings: controller.Timings{BatchIdle: 5 * time.Second, BatchMax: 10 * time.Second},
			Record:  func(d controller.Decision) { log = append(log, d) }})
		require.NoError(t, err)
		defer r.Close()
		ctx := context.Background()
		for s := 0; s <= 10; s++ {
			if s == 3 {
				again := p.DeepCopy()
				again.Annotations = map[string]string{"seen": "again"}
				require.NoError(t, api.Apply(again))
			}
			require.NoError(t, r.Step(ctx))
			clock.Advance(time.Second)
		}
		l := launches(log)
		require.Len(t, l, 1, "%+v", log)
		require.Equal(t, 5*time.Second, l[0].At.Duration, "%+v", log)
	}},
)
