package conformance

import (
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// Upstream's provisioner helpers for capacity buffers: which pods are a
// buffer's virtual pods (apis.IsBufferPod in karpsim), and how many of
// them a provisioning pass puts on each existing node, the count that keeps
// emptiness away from it (the Buffer bindings of a solve, which
// snapshot.ForDisruption counts per node).

// virtualPod is the i-th virtual pod of buffer default/<buffer>, asking
// for cpu and selecting nodes labelled room=<buffer>.
func virtualPod(buffer string, i int, cpu string) *corev1.Pod {
	p := unschedPod(fmt.Sprintf("capacity-buffer-%s-%d", buffer, i), cpu,
		podAnnotation(apis.AnnotationBufferPod, "true"),
		podAnnotation(apis.AnnotationBufferName, buffer),
		podAnnotation(apis.AnnotationBufferNamespace, "default"))
	p.OwnerReferences = nil
	p.Spec.NodeSelector = map[string]string{"room": buffer}
	return p
}

// roomNode is an initialized node of the default pool labelled room=<room>
// with 4 CPUs, running pods.
func roomNode(name, room string, pods ...*corev1.Pod) *scheduling.Node {
	it, _ := schedCatalog().Get("default-instance-type")
	labels := map[string]string{apis.LabelHostname: name, apis.LabelNodePool: "default", apis.LabelNodeInitialized: "true", "room": room,
		apis.LabelTopologyZone: "test-zone-1", apis.LabelCapacityType: apis.CapacityTypeOnDemand}
	maps.Copy(labels, it.Labels())
	n := &scheduling.Node{Name: name, NodePool: "default", Labels: labels, Capacity: it.Capacity.List(),
		Allocatable: it.Allocatable().List(), Initialized: true}
	for _, p := range pods {
		b := p.DeepCopy()
		b.Spec.NodeName = name
		b.Status.Phase = corev1.PodRunning
		n.Pods = append(n.Pods, b)
	}
	return n
}

// bufferCounts is how many virtual pods the solve put on each existing node.
func bufferCounts(res scheduling.Result) map[string]int {
	out := map[string]int{}
	for _, b := range res.Bindings {
		if b.Buffer {
			out[b.Node]++
		}
	}
	return out
}

func isVirtualCase(name string, p *corev1.Pod, want bool) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		if got := apis.IsBufferPod(p); got != want {
			t.Fatalf("IsBufferPod = %v, want %v", got, want)
		}
	}}
}

var _ = register("buffers",
	isVirtualCase("nil-pod-not-virtual", nil, false),
	isVirtualCase("pod-without-annotations-not-virtual", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "real"}}, false),
	isVirtualCase("annotated-pod-virtual", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{apis.AnnotationBufferPod: "true"}}}, true),
	isVirtualCase("other-annotations-not-virtual", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"other": "value"}}}, false),
	conformanceCase{Name: "virtual-pods-counted-per-node", Run: func(t *T) {
		// Node a has room for two 1-CPU pods beside its real pod, node b
		// for two; buffer a wants three, buffer b two: a's third goes to a
		// new NodeClaim and counts on no existing node.
		real := pod("real", "1500m")
		w := newSchedWorld(schedPool(withTemplateLabel("room", "a")))
		w.in.Nodes = []*scheduling.Node{roomNode("node-a", "a", real), roomNode("node-b", "b", pod("filler", "1500m"))}
		pods := []*corev1.Pod{virtualPod("a", 0, "1"), virtualPod("a", 1, "1"), virtualPod("a", 2, "1"), virtualPod("b", 0, "1"), virtualPod("b", 1, "1")}
		res := w.solve(pods...)
		if got := bufferCounts(res); got["node-a"] != 2 || got["node-b"] != 2 || len(got) != 2 {
			t.Fatalf("virtual pods per node %v, want node-a 2 and node-b 2: %s", got, describe(res))
		}
		if len(res.NodeClaims) != 1 || res.NodeClaims[0].BufferPods != 1 {
			t.Fatalf("want buffer a's third pod on one new NodeClaim: %s", describe(res))
		}
	}},
	conformanceCase{Name: "no-pods-no-counts", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		w.in.Nodes = []*scheduling.Node{roomNode("node-a", "a")}
		if got := bufferCounts(w.solve()); len(got) != 0 {
			t.Fatalf("counts %v from an empty solve", got)
		}
	}},
	conformanceCase{Name: "real-pods-not-counted", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		w.in.Nodes = []*scheduling.Node{roomNode("node-a", "a")}
		res := w.solve(unschedPod("real", "1"))
		if boundTo(res, unschedPod("real", "1")) != "node-a" {
			t.Fatalf("want the real pod on node-a: %s", describe(res))
		}
		if got := bufferCounts(res); len(got) != 0 {
			t.Fatalf("a real pod counted as buffer room: %v", got)
		}
	}},
)
