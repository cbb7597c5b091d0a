package conformance

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// daemon is the pod a DaemonSet would run on every node it tolerates and
// selects, built with opts.
func daemon(name string, opts ...podOption) *corev1.Pod {
	p := ppod(name, append([]podOption{ownedBy("DaemonSet")}, opts...)...)
	return p
}

func hostPort(port int32) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port})
	}
}

// withDaemons provisions pod beside daemons into a world of one pool (with
// opts) over the default catalog and checks the launched type's CPU and
// memory capacity; an empty cpu means the pod must stay pending.
func withDaemons(daemons []*corev1.Pod, pod *corev1.Pod, cpu, mem string, opts ...poolOption) func(t *T) {
	return func(t *T) {
		w := provWorld(opts...)
		w.daemons = daemons
		w.provision(pod)
		if cpu == "" {
			require.False(t, scheduled(pod))
			require.Empty(t, w.nodes)
			return
		}
		require.True(t, scheduled(pod), "%v", w.last.Unschedulable)
		n := w.nodeOf(pod)
		it, _ := defaultFakeCatalog().Get(n.Labels[apis.LabelInstanceType])
		wantCPU, wantMem := mustQuantity(cpu), mustQuantity(mem)
		require.Equal(t, wantCPU.MilliValue(), it.Capacity.CPU(), "type %s", it.Name)
		require.Equal(t, wantMem.Value(), it.Capacity.Memory(), "type %s", it.Name)
	}
}

func oneCPU() *corev1.Pod { return ppod("p", requests("cpu", "1", "memory", "1Gi")) }

var twoCPUDaemon = []podOption{requests("cpu", "2", "memory", "2Gi")}

func initContainer(c corev1.Container) podOption {
	return func(p *corev1.Pod) { p.Spec.InitContainers = append(p.Spec.InitContainers, c) }
}

var _ = register("provisioning",
	conformanceCase{Name: "daemonset-overhead", Run: withDaemons([]*corev1.Pod{daemon("ds", twoCPUDaemon...)}, oneCPU(), "4", "4Gi")},
	conformanceCase{Name: "daemonset-host-port", Run: withDaemons([]*corev1.Pod{daemon("ds", append(twoCPUDaemon, hostPort(8080))...)},
		ppod("p", requests("cpu", "1", "memory", "1Gi"), hostPort(8080)), "", "")},
	conformanceCase{Name: "daemonset-startup-taint", Run: withDaemons([]*corev1.Pod{daemon("ds", twoCPUDaemon...)}, oneCPU(), "4", "4Gi",
		func(np *apis.NodePool) {
			np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "foo.com/taint", Effect: corev1.TaintEffectNoSchedule}}
		})},
	conformanceCase{Name: "daemonset-too-large", Run: withDaemons([]*corev1.Pod{daemon("ds", requests("cpu", "10000", "memory", "10000Gi"))}, ppod("p"), "", "")},
	// The DaemonSet's pod asks for 2 CPUs and 2Gi; through the door its
	// template, as written upstream, asks for 4 and 4Gi.
	conformanceCase{Name: "daemonset-pod-spec", Run: withDaemons([]*corev1.Pod{daemonWithTemplate(daemon("ds-newest", twoCPUDaemon...),
		daemon("ds-newest", requests("cpu", "4", "memory", "4Gi")))},
		ppod("p", requests("cpu", "1", "memory", "1Gi"), nodeSelector(apis.LabelNodePool, "default")), "4", "4Gi")},
	conformanceCase{Name: "daemonset-limits-as-requests", Run: withDaemons([]*corev1.Pod{daemon("ds", requests("cpu", "1"), limits("cpu", "10000", "memory", "10000Gi"))},
		ppod("p"), "", "")},
	conformanceCase{Name: "daemonset-init-containers", Run: withDaemons([]*corev1.Pod{daemon("ds", requests("cpu", "1"), limits("cpu", "10000", "memory", "1Gi"),
		initContainer(corev1.Container{Name: "init", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("3")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: mustQuantity("10000"), corev1.ResourceMemory: mustQuantity("3Gi")}}}))},
		ppod("p"), "4", "4Gi")},
	conformanceCase{Name: "daemonset-init-containers-too-large", Run: withDaemons([]*corev1.Pod{daemon("ds", requests("cpu", "1"), limits("cpu", "10000", "memory", "1Gi"),
		initContainer(corev1.Container{Name: "init", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("1")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: mustQuantity("10000"), corev1.ResourceMemory: mustQuantity("10000Gi")}}}))},
		ppod("p"), "", "")},
	conformanceCase{Name: "daemonset-init-container-alone-too-large", Run: withDaemons([]*corev1.Pod{daemon("ds",
		initContainer(corev1.Container{Name: "init", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("10000"), corev1.ResourceMemory: mustQuantity("10000Gi")}}}))},
		ppod("p"), "", "")},
	conformanceCase{Name: "daemonset-no-requests", Run: func(t *T) {
		w := provWorld()
		w.daemons = []*corev1.Pod{daemon("ds")}
		p := ppod("p")
		w.provision(p)
		require.True(t, scheduled(p))
	}},
	conformanceCase{Name: "daemonset-untolerated-taint", Run: withDaemons([]*corev1.Pod{daemon("ds", twoCPUDaemon...)},
		ppod("p", requests("cpu", "1", "memory", "1Gi"), tolerates(corev1.Toleration{Operator: corev1.TolerationOpExists})), "2", "2Gi",
		withTaints(corev1.Taint{Key: "foo", Value: "bar", Effect: corev1.TaintEffectNoSchedule}))},
	conformanceCase{Name: "daemonset-invalid-selector", Run: withDaemons([]*corev1.Pod{daemon("ds", append(twoCPUDaemon, nodeSelector("node", "invalid"))...)},
		oneCPU(), "2", "2Gi")},
	conformanceCase{Name: "daemonset-no-type-meets-requirements", Run: withDaemons([]*corev1.Pod{daemon("ds",
		append(twoCPUDaemon, nodeRequirements(in(apis.LabelInstanceType, "non-existent-instance-type")))...)}, oneCPU(), "2", "2Gi")},
	conformanceCase{Name: "daemonset-custom-label", Run: withDaemons([]*corev1.Pod{daemon("ds", append(twoCPUDaemon, nodeSelector("purpose", "monitoring"))...)},
		oneCPU(), "4", "4Gi", withLabels("purpose", "monitoring"))},
	conformanceCase{Name: "daemonset-per-type-requirements", Run: withDaemons([]*corev1.Pod{
		daemon("small", requests("cpu", "1"), nodeRequirements(in(instancetypes.FakeLabelSize, "small"))),
		daemon("large", requests("cpu", "10"), nodeRequirements(in(instancetypes.FakeLabelSize, "large")))}, oneCPU(), "4", "4Gi")},
	conformanceCase{Name: "daemonset-not-in-open-key", Run: withDaemons([]*corev1.Pod{daemon("ds",
		append(twoCPUDaemon, nodeRequirements(req("foo", corev1.NodeSelectorOpNotIn, "bar")))...)},
		ppod("p", requests("cpu", "1", "memory", "1Gi"), nodeRequirements(in(apis.LabelTopologyZone, "test-zone-2"))), "4", "4Gi")},
	conformanceCase{Name: "daemonset-hostname-affinity-ignored", Run: withDaemons([]*corev1.Pod{daemon("ds", twoCPUDaemon[0], func(p *corev1.Pod) {
		// A DaemonSet's pods are pinned to their node by a field selector
		// on its name, beside the DaemonSet's own affinity.
		a := podNodeAffinity(p)
		a.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{in("foo", "bar")},
			MatchFields:      []corev1.NodeSelectorRequirement{in("metadata.name", "node-name")},
		}}}
	})}, ppod("p", requests("cpu", "1", "memory", "1Gi"), nodeSelector("foo", "bar")), "4", "4Gi", withLabels("foo", "bar"))},
	conformanceCase{Name: "daemonset-any-affinity-term", Run: withDaemons([]*corev1.Pod{daemon("ds", append(twoCPUDaemon, func(p *corev1.Pod) {
		a := podNodeAffinity(p)
		a.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{in("foo", "voo")}},
			{MatchExpressions: []corev1.NodeSelectorRequirement{in("foo", "bar")}},
		}}
	})...)}, oneCPU(), "4", "4Gi", withLabels("foo", "bar"))},
	conformanceCase{Name: "daemonset-unmatched-preference", Run: withDaemons([]*corev1.Pod{daemon("ds",
		append(twoCPUDaemon, nodePreference(1, in("node", "invalid")))...)}, oneCPU(), "4", "4Gi")},
	conformanceCase{Name: "daemonset-prefer-no-schedule", Run: withDaemons([]*corev1.Pod{daemon("ds", twoCPUDaemon...)}, oneCPU(), "4", "4Gi",
		withTaints(corev1.Taint{Key: "test", Effect: corev1.TaintEffectPreferNoSchedule}))},
	// The pod asks for small types, which the type label guarantees.
	conformanceCase{Name: "daemonset-host-port-elsewhere", Run: withDaemons([]*corev1.Pod{
		daemon("large", requests("cpu", "4", "memory", "4Gi"), nodeRequirements(in(instancetypes.FakeLabelSize, "large")), hostPort(8080)),
		daemon("small", requests("cpu", "2", "memory", "2Gi"), nodeRequirements(in(instancetypes.FakeLabelSize, "small")), hostPort(8081)),
	}, ppod("p", requests("cpu", "1", "memory", "1Gi"), nodeRequirements(in(instancetypes.FakeLabelSize, "small")), hostPort(8080)), "4", "4Gi")},
)
