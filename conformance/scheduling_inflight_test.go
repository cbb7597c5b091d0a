package conformance

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// The suite's in-flight and existing-node specs. Upstream provisions a first
// pod, lets the fake cloud provider create its node, and provisions again;
// here the first solve's NodeClaims become in-flight nodes of the second.

// firstNode solves for p and turns its NodeClaim into an in-flight node;
// empty leaves the pod off it (upstream deletes the first pod).
func firstNode(t *T, w *schedWorld, p *corev1.Pod, empty bool) *scheduling.Node {
	t.Helper()
	res := w.solve(p)
	claimOf(t, res, p)
	n := w.launch(res, p)[0]
	if empty {
		n.Pods = nil
	}
	return n
}

// sameNode: the second pod goes to the first pod's in-flight node.
func sameNode(t *T, w *schedWorld, n *scheduling.Node, p *corev1.Pod) {
	t.Helper()
	res := w.solve(p)
	if got := boundTo(res, p); got != n.Name {
		t.Fatalf("pod %s not bound to in-flight %s: %s", p.Name, n.Name, describe(res))
	}
}

// otherNode: the second pod gets a new NodeClaim.
func otherNode(t *T, w *schedWorld, p *corev1.Pod) {
	t.Helper()
	claimOf(t, w.solve(p), p)
}

func schedSpreadPods(prefix string, n int, key string) []*corev1.Pod {
	return podsOf(n, prefix, podLabel("foo", "bar"), func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}}, MaxSkew: 1}}
	})
}

// skew counts the pods labelled foo=bar per value of key over w's nodes
// and res's claims, sorted.
func skew(w *schedWorld, res scheduling.Result, key string) []int {
	count := map[string]int{}
	for _, n := range w.in.Nodes {
		for _, p := range n.Pods {
			if p.Labels["foo"] == "bar" {
				count[n.Labels[key]]++
			}
		}
	}
	for _, b := range res.Bindings {
		for _, n := range w.in.Nodes {
			if n.Name == b.Node {
				count[n.Labels[key]]++
			}
		}
	}
	for _, c := range res.NodeClaims {
		v := c.Name
		if key == zone {
			v = c.Zone
		}
		count[v] += len(c.Pods)
	}
	var out []int
	for _, n := range count {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func spreadRounds(name, key string, first, second []int, newInSecond bool) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		w := newSchedWorld(schedPool())
		round1 := schedSpreadPods("a", 4, key)
		res := w.solve(round1...)
		if got := skew(w, res, key); !slices.Equal(got, first) {
			t.Fatalf("first round spreads %v, want %v: %s", got, first, describe(res))
		}
		w.launch(res, round1...)
		res = w.solve(schedSpreadPods("b", 5, key)...)
		if got := skew(w, res, key); !slices.Equal(got, second) {
			t.Fatalf("second round spreads %v, want %v: %s", got, second, describe(res))
		}
		if !newInSecond && len(res.NodeClaims) > 0 {
			t.Fatalf("second round launched %d nodes", len(res.NodeClaims))
		}
	}}
}

// fleet is n in-flight nodes of the default type, named nc-000…, of which
// only the one at initialized is initialized.
func fleet(n, initialized int) []*scheduling.Node {
	it, _ := schedCatalog().Get("default-instance-type")
	var out []*scheduling.Node
	for i := range n {
		name := fmt.Sprintf("nc-%03d", i)
		labels := map[string]string{apis.LabelHostname: name, apis.LabelNodePool: "default", apis.LabelInstanceType: it.Name,
			apis.LabelTopologyZone: "test-zone-1", apis.LabelCapacityType: apis.CapacityTypeSpot}
		for k, v := range it.Labels() {
			labels[k] = v
		}
		out = append(out, &scheduling.Node{Name: name, NodePool: "default", Labels: labels, Capacity: it.Capacity.List(),
			Allocatable: it.Allocatable().List(), Initialized: i == initialized})
	}
	return out
}

func initializedFirst(name string) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		w := newSchedWorld(schedPool())
		w.in.Nodes = fleet(100, 42)
		p := unschedPod("p", "")
		if got := boundTo(w.solve(p), p); got != "nc-042" {
			t.Fatalf("pod went to %q, want the initialized nc-042", got)
		}
	}}
}

// foreignNode is an initialized node Karpenter does not manage, with no
// zone or other well-known labels but its hostname.
func foreignNode(cpu, mem string) *scheduling.Node {
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		corev1.ResourcePods: resource.MustParse("110")}
	return &scheduling.Node{Name: "node", Labels: map[string]string{apis.LabelHostname: "node"}, Capacity: alloc.DeepCopy(),
		Allocatable: alloc, Initialized: true}
}

var cpu10m = requests("cpu", "10m")

var _ = register("scheduling",
	conformanceCase{Name: "inflight-node-takes-pod", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		n := firstNode(t, w, unschedPod("a", "", cpu10m), false)
		sameNode(t, w, n, unschedPod("b", "", cpu10m))
	}},
	conformanceCase{Name: "inflight-node-matching-selector", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		n := firstNode(t, w, unschedPod("a", "", cpu10m, nodeRequirements(req(zone, opIn, "test-zone-2"))), false)
		b := unschedPod("b", "", cpu10m, nodeRequirements(req(zone, opIn, "test-zone-1", "test-zone-2")))
		sameNode(t, w, n, b)
		w.launch(w.solve(b), b)
		n.Pods = append(n.Pods, b)
		otherNode(t, w, unschedPod("c", "", cpu10m, nodeRequirements(req(zone, opIn, "test-zone-1", "test-zone-3"))))
	}},
	conformanceCase{Name: "pod-not-fitting-inflight-node", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		firstNode(t, w, unschedPod("a", "1001m"), false)
		otherNode(t, w, unschedPod("b", "1"))
	}},
	conformanceCase{Name: "selector-rules-out-inflight-node", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		firstNode(t, w, unschedPod("a", "", cpu10m), false)
		otherNode(t, w, unschedPod("b", "", nodeSelector(apis.LabelArch, apis.ArchitectureArm64)))
	}},
	spreadRounds("zone-spread-counts-inflight", zone, []int{1, 1, 2}, []int{3, 3, 3}, false),
	spreadRounds("hostname-spread-counts-inflight", apis.LabelHostname, []int{1, 1, 1, 1}, []int{1, 1, 1, 1, 1, 1, 1, 1, 1}, true),
	conformanceCase{Name: "untainted-inflight-node-takes-pod", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		n := firstNode(t, w, unschedPod("a", "8"), true)
		n.Taints = nil
		sameNode(t, w, n, unschedPod("b", ""))
	}},
	conformanceCase{Name: "not-ready-taint-ignored-until-initialized", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		n := firstNode(t, w, unschedPod("a", ""), true)
		n.Taints = []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}}
		sameNode(t, w, n, unschedPod("b", ""))
		n.Initialized = true
		n.Labels[apis.LabelNodeInitialized] = "true"
		otherNode(t, w, unschedPod("c", ""))
	}},
	conformanceCase{Name: "tainted-node-refuses-pod", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		n := firstNode(t, w, unschedPod("a", "8"), true)
		n.Initialized = true
		n.Labels[apis.LabelNodeInitialized] = "true"
		n.Taints = append(n.Taints, corev1.Taint{Key: "foo.com/taint", Value: "tainted", Effect: corev1.TaintEffectNoSchedule})
		otherNode(t, w, unschedPod("b", ""))
	}},
	conformanceCase{Name: "startup-taint-ignored-inflight", Run: func(t *T) {
		w := newSchedWorld(schedPool(withStartupTaint(corev1.Taint{Key: "foo.com/taint", Value: "tainted", Effect: corev1.TaintEffectNoSchedule})))
		n := firstNode(t, w, unschedPod("a", "8"), true)
		if len(n.Taints) == 0 {
			t.Fatalf("the in-flight node has no startup taint")
		}
		sameNode(t, w, n, unschedPod("b", ""))
	}},
	conformanceCase{Name: "startup-taint-respected-after-initialization", Run: func(t *T) {
		startup := corev1.Taint{Key: "ignore-me", Value: "nothing-to-see-here", Effect: corev1.TaintEffectNoSchedule}
		w := newSchedWorld(schedPool(withStartupTaint(startup)))
		n := firstNode(t, w, unschedPod("a", ""), true)
		n.Initialized = true
		n.Labels[apis.LabelNodeInitialized] = "true"
		n.Taints = []corev1.Taint{startup}
		otherNode(t, w, unschedPod("b", ""))
	}},
	conformanceCase{Name: "not-ready-initialized-node-in-flight", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		n := firstNode(t, w, unschedPod("a", "", cpu10m), false)
		n.Labels[apis.LabelNodeInitialized] = "true"
		n.Taints = []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
			{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
			{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
		sameNode(t, w, n, unschedPod("b", "", cpu10m))
	}},

	conformanceCase{Name: "bound-daemon-pods-reduce-expected-overhead", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		w.in.DaemonSets = []*corev1.Pod{daemonPod("ds", requests("cpu", "1", "memory", "1Gi"))}
		n := firstNode(t, w, unschedPod("a", "8"), true)
		ds := daemonPod("ds-pod", requests("cpu", "1", "memory", "2Gi"))
		ds.Spec.NodeName = n.Name
		n.Pods = []*corev1.Pod{ds}
		sameNode(t, w, n, unschedPod("b", "14.9"))
	}},
	conformanceCase{Name: "unexpected-daemon-pod-counted", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		w.in.DaemonSets = []*corev1.Pod{daemonPod("ds1", nodeSelector("my-node-label", "value"), requests("cpu", "1", "memory", "1Gi")),
			daemonPod("ds2", requests("cpu", "1m"))}
		n := firstNode(t, w, unschedPod("a", "8"), true)
		n.Labels["my-node-label"] = "value"
		ds := daemonPod("ds1-pod", nodeSelector("my-node-label", "value"), requests("cpu", "1", "memory", "2Gi"))
		ds.Spec.NodeName = n.Name
		n.Pods = []*corev1.Pod{ds}
		p := unschedPod("b", "15.5")
		res := w.solve(p)
		if boundTo(res, p) == n.Name {
			t.Fatalf("pod bound to %s, which has too little room left", n.Name)
		}
	}},
	conformanceCase{Name: "daemons-selecting-karpenter-lifecycle-labels", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		w.in.DaemonSets = []*corev1.Pod{
			daemonPod("ds1", nodeRequirements(req(apis.LabelNodeInitialized, opIn, "true")), requests("cpu", "1")),
			daemonPod("ds2", nodeRequirements(req(apis.Group+"/registered", opIn, "true")), requests("cpu", "1")),
		}
		a := unschedPod("a", "2")
		res := w.solve(a)
		c := claimOf(t, res, a)
		for _, r := range c.Requirements {
			if r.Key == apis.LabelNodeInitialized || r.Key == apis.Group+"/registered" {
				t.Fatalf("the NodeClaim requires %s", r.Key)
			}
		}
		n := w.launch(res, a)[0]
		n.Pods = nil
		n.Labels[apis.LabelNodeInitialized], n.Labels[apis.Group+"/registered"] = "true", "true"
		for _, name := range []string{"ds1", "ds2"} {
			ds := daemonPod(name+"-pod", requests("cpu", "1"))
			ds.Spec.NodeName = n.Name
			n.Pods = append(n.Pods, ds)
		}
		// With both DaemonSet pods bound, 13.9 of the arm type's 15.9 CPUs
		// are left.
		sameNode(t, w, n, unschedPod("b", "13.9"))
		if c := unschedPod("c", "14"); boundTo(w.solve(c), c) == n.Name {
			t.Fatalf("a 14-CPU pod was bound to %s", n.Name)
		}
	}},
	conformanceCase{Name: "inflight-nodes-packed-before-launching", Run: func(t *T) {
		medium := fakeProviderType("medium", apis.ArchitectureAmd64, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4.25"), corev1.ResourcePods: resource.MustParse("4")})
		w := newWorldOf(mustCatalog(medium), schedPool())
		for round, n := range []int{3, 7, 1, 9, 0, 5, 2, 8, 4, 6} {
			ps := podsOf(n, fmt.Sprintf("r%d", round), requests("cpu", "1"))
			res := w.solve(ps...)
			expectNotScheduled(t, res)
			byKey := map[string]*corev1.Pod{}
			for _, p := range ps {
				byKey[apis.PodKey(p)] = p
			}
			for _, b := range res.Bindings {
				for _, node := range w.in.Nodes {
					if node.Name == b.Node {
						bound := byKey[b.Pod].DeepCopy()
						bound.Spec.NodeName = node.Name
						node.Pods = append(node.Pods, bound)
					}
				}
			}
			w.launch(res, ps...)
		}
		free := 0
		for _, n := range w.in.Nodes {
			if len(n.Pods) < 4 {
				free++
			}
		}
		if free > 1 {
			t.Fatalf("%d in-flight nodes have room for another pod", free)
		}
	}},
	conformanceCase{Name: "pending-again-reuses-inflight-node", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		p := unschedPod("a", "", cpu10m)
		n := firstNode(t, w, p, true)
		sameNode(t, w, n, p)
	}},
	initializedFirst("initialized-node-tried-first"),
	conformanceCase{Name: "shared-host-port-separate-nodes", Run: func(t *T) {
		port := func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080}}
		}
		separateNodes(t, newSchedWorld(schedPool()), unschedPod("a", "", port), unschedPod("b", "", port))
	}},

	conformanceCase{Name: "unmanaged-node-takes-pod", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		w.in.Nodes = []*scheduling.Node{foreignNode("10", "10Gi")}
		sameNode(t, w, w.in.Nodes[0], unschedPod("p", "", cpu10m))
	}},
	conformanceCase{Name: "unmanaged-node-takes-many-pods", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		w.in.Nodes = []*scheduling.Node{foreignNode("10", "100Gi")}
		ps := podsOf(100, "p", cpu10m)
		res := w.solve(ps...)
		for _, p := range ps {
			if boundTo(res, p) != "node" {
				t.Fatalf("pod %s not on the existing node: %s", p.Name, describe(res))
			}
		}
	}},
	conformanceCase{Name: "pod-incompatible-with-existing-node", Run: func(t *T) {
		p := unschedPod("p", "", nodeRequirements(req(zone, opIn, "test-zone-1")))
		w := newSchedWorld()
		w.in.Nodes = []*scheduling.Node{foreignNode("10", "10Gi")}
		w.in.Nodes[0].NodePool = "default"
		expectNotScheduled(t, w.solve(p), p)
		w.in.NodePools = newSchedWorld(schedPool()).in.NodePools
		claimOf(t, w.solve(p), p)
	}},
	conformanceCase{Name: "daemon-overhead-needs-strict-compatibility", Run: func(t *T) {
		w := newSchedWorld()
		w.in.Nodes = []*scheduling.Node{foreignNode("1", "1Gi")}
		w.in.Nodes[0].NodePool = "default"
		w.in.DaemonSets = []*corev1.Pod{daemonPod("ds", requests("cpu", "100", "memory", "100Gi"), nodeRequirements(req(zone, opIn, "test-zone-1")))}
		a := unschedPod("a", "", requests("cpu", "1", "memory", "1Gi"))
		sameNode(t, w, w.in.Nodes[0], a)
		a.Spec.NodeName = "node"
		w.in.Nodes[0].Pods = []*corev1.Pod{a}
		w.in.NodePools = newSchedWorld(schedPool()).in.NodePools
		b := unschedPod("b", "", requests("cpu", "1", "memory", "1Gi"))
		expectNotScheduled(t, w.solve(b), b)
	}},
)
