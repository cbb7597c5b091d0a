package conformance

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// Upstream's provisioning suite: a plain NodePool over the default fake
// catalog unless a spec says otherwise.

func provWorld(opts ...poolOption) *world {
	return newWorld(defaultFakeCatalog(), nodePool("default", opts...))
}

// exampleCatalog is the default catalog plus upstream's three large
// "example" types of 10/4Gi, 11/5Gi and 12/6Gi, sold as spot in zone 1.
func exampleCatalog() instancetypes.Catalog {
	types := []*instancetypes.InstanceType{}
	for _, n := range defaultFakeCatalog().Names() {
		it, _ := defaultFakeCatalog().Get(n)
		types = append(types, it)
	}
	for _, size := range [][2]int64{{10, 4}, {11, 5}, {12, 6}} {
		price := 0.1*float64(size[0]) + 0.1*float64(size[1]<<30)/1e9
		types = append(types, mustType(instancetypes.Spec{
			Name:      fmt.Sprintf("example-%d", size[0]),
			Labels:    map[string]string{apis.LabelArch: "arch", apis.LabelOS: "linux"},
			Capacity:  resources.New(size[0]*1000, size[1]<<30, 5),
			Overhead:  fakeOverhead,
			Offerings: []instancetypes.Offering{offering("test-zone-1", apis.CapacityTypeSpot, price, true)},
		}))
	}
	return mustCatalog(types...)
}

// container is a container requesting (and limited to) cpu and memory.
func container(name, cpu, mem string, sidecar bool) corev1.Container {
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	c := corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: rl, Limits: rl.DeepCopy()}}
	if sidecar {
		always := corev1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
	}
	return c
}

// withContainers replaces the pod's containers and init containers.
func withContainers(app []corev1.Container, init ...corev1.Container) podOption {
	return func(p *corev1.Pod) { p.Spec.Containers, p.Spec.InitContainers = app, init }
}

// launchesCapacity provisions p into a world over exampleCatalog and
// checks the launched type's CPU and memory capacity.
func launchesCapacity(p *corev1.Pod, cpu, mem string) func(t *T) {
	return func(t *T) {
		w := newWorld(exampleCatalog(), nodePool("default"))
		w.provision(p)
		require.True(t, scheduled(p), "%v", w.last.Unschedulable)
		n := w.nodeOf(p)
		require.True(t, n.Capacity.Cpu().Equal(resource.MustParse(cpu)), "cpu %v", n.Capacity.Cpu())
		require.True(t, n.Capacity.Memory().Equal(resource.MustParse(mem)), "memory %v", n.Capacity.Memory())
	}
}

func withLimits(kv ...string) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Limits = corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			np.Spec.Limits[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
	}
}

var fooAntiAffinity = []podOption{labelled("app", "foo"), requiredAntiAffinity(affinityTerm(apis.LabelHostname, map[string]string{"app": "foo"})),
	requests("cpu", "1.5")}

var _ = register("provisioning",
	conformanceCase{Name: "pod-gets-node", Run: func(t *T) {
		w := provWorld()
		p := ppod("p")
		w.provision(p)
		require.True(t, scheduled(p))
		require.Len(t, w.nodes, 1)
	}},
	conformanceCase{Name: "many-pods-get-nodes", Run: func(t *T) {
		w := provWorld()
		pods := ppods(100, "p")
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.NotEmpty(t, w.nodes)
	}},
	conformanceCase{Name: "deleting-pool-launches-nothing", Run: func(t *T) {
		np := nodePool("default")
		np.DeletionTimestamp = &metav1.Time{Time: now}
		w := newWorld(defaultFakeCatalog(), np)
		p := ppod("p")
		w.provision(p)
		require.False(t, scheduled(p))
		require.Empty(t, w.nodes)
	}},
	conformanceCase{Name: "no-usable-pool-unschedulable", Run: func(t *T) {
		np := nodePool("default")
		np.DeletionTimestamp = &metav1.Time{Time: now}
		w := newWorld(defaultFakeCatalog(), np)
		p := ppod("p")
		res := w.provision(p)
		require.Len(t, res.Unschedulable, 1)
		require.Equal(t, "default/p", res.Unschedulable[0].Pod)
	}},
	conformanceCase{Name: "well-known-node-selectors", Run: func(t *T) {
		w := provWorld()
		ok := []*corev1.Pod{
			ppod("pool", nodeSelector(apis.LabelNodePool, "default")),
			ppod("zone", nodeSelector(apis.LabelTopologyZone, "test-zone-1")),
			ppod("type", nodeSelector(apis.LabelInstanceType, "default-instance-type")),
			ppod("arch", nodeSelector(apis.LabelArch, apis.ArchitectureArm64)),
			ppod("os", nodeSelector(apis.LabelOS, "linux")),
		}
		w.provision(ok...)
		for _, p := range ok {
			require.True(t, scheduled(p), p.Name)
		}
		var refused []*corev1.Pod
		for _, kv := range [][2]string{{apis.LabelNodePool, "unknown"}, {apis.LabelTopologyZone, "unknown"}, {apis.LabelInstanceType, "unknown"},
			{apis.LabelArch, "unknown"}, {apis.LabelOS, "unknown"}, {apis.LabelCapacityType, "unknown"}, {"foo", "bar"}} {
			refused = append(refused, ppod("not-"+strings.NewReplacer("/", "-", ".", "-").Replace(kv[0]), nodeSelector(kv[0], kv[1])))
		}
		w.provision(refused...)
		require.Equal(t, 0, countScheduled(refused))
	}},
	conformanceCase{Name: "well-known-node-affinity", Run: func(t *T) {
		w := provWorld()
		ok := []*corev1.Pod{
			ppod("pool", nodeRequirements(in(apis.LabelNodePool, "default"))),
			ppod("zone", nodeRequirements(in(apis.LabelTopologyZone, "test-zone-1"))),
			ppod("type", nodeRequirements(in(apis.LabelInstanceType, "default-instance-type"))),
			ppod("arch", nodeRequirements(in(apis.LabelArch, apis.ArchitectureArm64))),
			ppod("os", nodeRequirements(in(apis.LabelOS, "linux"))),
		}
		w.provision(ok...)
		for _, p := range ok {
			require.True(t, scheduled(p), p.Name)
		}
		var refused []*corev1.Pod
		for _, kv := range [][2]string{{apis.LabelNodePool, "unknown"}, {apis.LabelTopologyZone, "unknown"}, {apis.LabelInstanceType, "unknown"},
			{apis.LabelArch, "unknown"}, {apis.LabelOS, "unknown"}, {apis.LabelCapacityType, "unknown"}, {"foo", "bar"}} {
			refused = append(refused, ppod("not-"+strings.NewReplacer("/", "-", ".", "-").Replace(kv[0]), nodeRequirements(in(kv[0], kv[1]))))
		}
		w.provision(refused...)
		require.Equal(t, 0, countScheduled(refused))
	}},
	conformanceCase{Name: "accelerators", Run: func(t *T) {
		w := provWorld()
		pods := []*corev1.Pod{ppod("a", limits(string(gpuVendorA), "1")), ppod("b", limits(string(gpuVendorB), "1"))}
		w.provision(pods...)
		require.True(t, scheduled(pods...))
	}},
	conformanceCase{Name: "max-pods-splits", Run: func(t *T) {
		w := provWorld(withRequirements(in(apis.LabelInstanceType, "single-pod-instance-type")))
		pods := ppods(3, "p")
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, w.nodes, 3)
	}},
	conformanceCase{Name: "deleting-node-pods-share-one-node", Run: func(t *T) {
		// The node being deleted is no option: its three pods are placed
		// again, as a karpsim caller passes them, with two pending pods.
		w := provWorld()
		var evicted []*corev1.Pod
		for i := range 3 {
			evicted = append(evicted, ppod(fmt.Sprintf("on-old-%d", i)))
		}
		pods := append(evicted, ppod("new-0"), ppod("new-1"))
		res := w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, res.NodeClaims, 1, "the deleting node's pods and the pending ones share one new node")
	}},
	conformanceCase{Name: "sidecar-after-init", Run: launchesCapacity(ppod("p", withContainers(
		[]corev1.Container{container("app", "6", "2Gi", false)},
		container("init", "10", "4Gi", false), container("sidecar", "4.9", "2.9Gi", true))), "11", "5Gi")},
	conformanceCase{Name: "sidecar-first-smaller-init", Run: launchesCapacity(ppod("p", withContainers(
		[]corev1.Container{container("app", "6", "2Gi", false)},
		container("sidecar", "4.9", "2.9Gi", true), container("init", "5", "1Gi", false))), "11", "5Gi")},
	conformanceCase{Name: "sidecar-first-larger-init", Run: launchesCapacity(ppod("p", withContainers(
		[]corev1.Container{container("app", "5", "1Gi", false)},
		container("sidecar", "4.9", "2.9Gi", true), container("init", "6", "2Gi", false))), "11", "5Gi")},
	conformanceCase{Name: "pod-level-resources", Run: launchesCapacity(ppod("p", withContainers(
		[]corev1.Container{container("app", "5", "1Gi", false)},
		container("init", "6", "2Gi", false), container("sidecar", "4", "2Gi", true)), func(p *corev1.Pod) {
		p.Spec.Resources = &corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("9.9"), corev1.ResourceMemory: resource.MustParse("3.9Gi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10"), corev1.ResourceMemory: resource.MustParse("4Gi")},
		}
	}), "10", "4Gi")},
	conformanceCase{Name: "limits-already-used", Run: func(t *T) {
		w := provWorld(withLimits("cpu", "20"))
		w.nodes = append(w.nodes, &scheduling.Node{Name: "in-flight", NodePool: "default",
			Labels:   map[string]string{apis.LabelNodePool: "default"},
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}, Allocatable: corev1.ResourceList{}})
		p := ppod("p")
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "limits-met", Run: func(t *T) {
		w := provWorld(withLimits("cpu", "2"))
		p := ppod("p", requests("cpu", "1.75"))
		w.provision(p)
		require.True(t, scheduled(p))
	}},
	conformanceCase{Name: "limits-partial", Run: func(t *T) {
		w := provWorld(withLimits("cpu", "3"))
		pods := ppods(2, "p", fooAntiAffinity...)
		w.provision(pods...)
		require.Equal(t, 1, countScheduled(pods))
	}},
	conformanceCase{Name: "limits-exceeded", Run: func(t *T) {
		w := provWorld(withLimits("cpu", "2"))
		p := ppod("p", requests("cpu", "2.1"))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "limits-exceeded-gpu", Run: func(t *T) {
		w := provWorld(withLimits("pods", "1"))
		p := ppod("p", limits(string(gpuVendorA), "1"))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "limits-across-rounds", Run: func(t *T) {
		w := provWorld(withLimits("cpu", "2"))
		a := ppod("a", requests("cpu", "1.75"))
		w.provision(a)
		require.True(t, scheduled(a))
		b := ppod("b", requests("cpu", "1.75"))
		w.provision(b)
		require.False(t, scheduled(b))
	}},
	conformanceCase{Name: "limits-node-count", Run: func(t *T) {
		w := provWorld(withLimits("nodes", "2"))
		for i, want := range []bool{true, true, false} {
			p := ppod(fmt.Sprintf("p%d", i), fooAntiAffinity...)
			w.provision(p)
			require.Equal(t, want, scheduled(p), "pod %d", i)
		}
	}},
)
