package conformance

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
)

var (
	hostnameSpread     = spread(apis.LabelHostname, 1, corev1.DoNotSchedule, testLabels)
	capacityTypeSpread = spread(apis.LabelCapacityType, 1, corev1.DoNotSchedule, testLabels)
)

// capacityTypes requires the pool's capacity types to be among cts.
func capacityTypes(cts ...string) poolOption {
	return withRequirements(req(apis.LabelCapacityType, corev1.NodeSelectorOpIn, cts...))
}

// appSpread is a pod of app spreading one per hostname among its app.
func appSpread(app string, opts ...podOption) []podOption {
	return append([]podOption{labelled("app", app), spreads(spread(apis.LabelHostname, 1, corev1.DoNotSchedule, map[string]string{"app": app}))}, opts...)
}

// boundCounting places, on three existing nodes (values a and b of key, and
// one without key), pods that a spread over key must not count (unlabelled,
// other namespace, failed, succeeded, on the node without key) and three it
// must (two on a, one on b).
func boundCounting(w *world, key, a, b string) {
	first := w.existingNode("first", map[string]string{key: a})
	second := w.existingNode("second", map[string]string{key: b})
	third := w.existingNode("third", nil)
	running := func(name string, opts ...podOption) *corev1.Pod {
		p := pod(name, "", opts...)
		delete(p.Labels, "app")
		return p
	}
	phase := func(ph corev1.PodPhase) podOption { return func(p *corev1.Pod) { p.Status.Phase = ph } }
	first.Pods = []*corev1.Pod{
		running("unlabelled"),
		running("other-namespace", labelled("test", "test"), inNamespace("elsewhere")),
		running("failed", labelled("test", "test"), phase(corev1.PodFailed)),
		running("succeeded", labelled("test", "test"), phase(corev1.PodSucceeded)),
		running("a", labelled("test", "test")),
		running("b", labelled("test", "test")),
	}
	second.Pods = []*corev1.Pod{running("c", labelled("test", "test"))}
	third.Pods = []*corev1.Pod{running("no-domain", labelled("test", "test"))}
	for _, n := range w.nodes {
		for _, p := range n.Pods {
			p.Spec.NodeName = n.Name
		}
	}
}

var _ = register("topology",
	conformanceCase{Name: "hostname-one-per-node", Run: func(t *T) {
		w := topoWorld()
		w.provision(spreadPods(4, "p", hostnameSpread)...)
		require.Equal(t, []int{1, 1, 1, 1}, w.skew(apis.LabelHostname, hostnameSpread.LabelSelector))
	}},
	conformanceCase{Name: "hostname-up-to-max-skew", Run: func(t *T) {
		cs := spread(apis.LabelHostname, 4, corev1.DoNotSchedule, testLabels)
		w := topoWorld()
		w.provision(spreadPods(4, "p", cs)...)
		require.Equal(t, []int{4}, w.skew(apis.LabelHostname, cs.LabelSelector))
	}},
	conformanceCase{Name: "hostname-several-deployments", Run: func(t *T) {
		w := topoWorld()
		var pods []*corev1.Pod
		for _, app := range []string{"app1", "app1", "app2", "app2"} {
			pods = append(pods, ppod(app+"-"+string(rune('a'+len(pods))), appSpread(app)...))
		}
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, w.nodes, 2, "two nodes each holding one pod of each deployment")
	}},
	conformanceCase{Name: "hostname-several-deployments-arch", Run: func(t *T) {
		w := topoWorld()
		var pods []*corev1.Pod
		for _, a := range [][2]string{{"app1", apis.ArchitectureAmd64}, {"app1", apis.ArchitectureAmd64}, {"app2", apis.ArchitectureArm64}, {"app2", apis.ArchitectureArm64}} {
			pods = append(pods, ppod(a[0]+"-"+string(rune('a'+len(pods))),
				appSpread(a[0], nodeRequirements(req(apis.LabelArch, corev1.NodeSelectorOpIn, a[1])))...))
		}
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, w.nodes, 4)
	}},
	conformanceCase{Name: "capacity-type-spread", Run: func(t *T) {
		w := topoWorld()
		w.provision(spreadPods(4, "p", capacityTypeSpread)...)
		require.Equal(t, []int{2, 2}, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector))
	}},
	conformanceCase{Name: "capacity-type-pool-constraint", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("default", capacityTypes(apis.CapacityTypeSpot, apis.CapacityTypeOnDemand)))
		w.provision(spreadPods(4, "p", capacityTypeSpread)...)
		require.Equal(t, []int{2, 2}, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector))
	}},
	conformanceCase{Name: "capacity-type-max-skew-kept", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("default", capacityTypes(apis.CapacityTypeSpot)))
		w.provision(spreadPods(1, "a", capacityTypeSpread, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1}, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector))
		w.setPool(nodePool("default", capacityTypes(apis.CapacityTypeOnDemand)))
		w.provision(spreadPods(5, "b", capacityTypeSpread, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1, 2}, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector))
	}},
	conformanceCase{Name: "capacity-type-schedule-anyway", Run: func(t *T) {
		cs := spread(apis.LabelCapacityType, 1, corev1.ScheduleAnyway, testLabels)
		w := newWorld(defaultFakeCatalog(), nodePool("default", capacityTypes(apis.CapacityTypeSpot)))
		w.provision(spreadPods(1, "a", cs, requests("cpu", "1.1"))...)
		w.setPool(nodePool("default", capacityTypes(apis.CapacityTypeOnDemand)))
		w.provision(spreadPods(5, "b", cs, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1, 5}, w.skew(apis.LabelCapacityType, cs.LabelSelector))
	}},
	conformanceCase{Name: "capacity-type-counts-only-bound-matching-pods", Run: func(t *T) {
		w := topoWorld()
		boundCounting(w, apis.LabelCapacityType, apis.CapacityTypeSpot, apis.CapacityTypeOnDemand)
		newPods := spreadPods(2, "new", capacityTypeSpread)
		w.provision(newPods...)
		require.True(t, scheduled(newPods...))
		require.Equal(t, []int{2, 3}, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector))
	}},
	conformanceCase{Name: "capacity-type-no-selector", Run: func(t *T) {
		w := topoWorld()
		w.provision(ppod("p"))
		require.Equal(t, []int{1}, w.skew(apis.LabelCapacityType, nil))
	}},
	conformanceCase{Name: "capacity-type-interdependent-selectors", Run: func(t *T) {
		w := topoWorld()
		pods := ppods(5, "p", spreads(hostnameSpread))
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, w.nodes, 1)
	}},
	conformanceCase{Name: "capacity-type-required-affinity", Run: func(t *T) {
		w := topoWorld()
		first := ppod("first", labelled("test", "test"), nodeRequirements(
			req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1"), req(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand)))
		w.provision(first)
		require.True(t, scheduled(first))
		// The new pods' own affinity rules out on-demand, so the on-demand
		// pod is outside their spread and five spot pods do not break it.
		w.provision(spreadPods(5, "p", capacityTypeSpread, nodeRequirements(
			req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-2"), req(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot)))...)
		require.Equal(t, []int{1, 5}, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector))
	}},
	conformanceCase{Name: "capacity-type-unconstrained", Run: func(t *T) {
		w := topoWorld()
		first := ppod("first", labelled("test", "test"), nodeSelector(apis.LabelInstanceType, "single-pod-instance-type"),
			nodeRequirements(req(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand)))
		w.provision(first)
		require.True(t, scheduled(first))
		w.setPool(nodePool("default", capacityTypes(apis.CapacityTypeSpot)))
		w.provision(spreadPods(5, "p", capacityTypeSpread, requests("cpu", "2"))...)
		require.Equal(t, []int{1, 2}, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector))
	}},
	conformanceCase{Name: "arch-spread", Run: func(t *T) {
		cs := spread(apis.LabelArch, 1, corev1.DoNotSchedule, testLabels)
		w := topoWorld()
		first := ppod("first", labelled("test", "test"), nodeSelector(apis.LabelInstanceType, "single-pod-instance-type"),
			nodeRequirements(req(apis.LabelArch, corev1.NodeSelectorOpIn, apis.ArchitectureAmd64)))
		w.provision(first)
		require.True(t, scheduled(first))
		w.setPool(nodePool("default", withRequirements(req(apis.LabelArch, corev1.NodeSelectorOpIn, apis.ArchitectureArm64))))
		w.provision(spreadPods(5, "p", cs, requests("cpu", "2"))...)
		require.Equal(t, []int{1, 2}, w.skew(apis.LabelArch, cs.LabelSelector))
	}},
	conformanceCase{Name: "hostname-and-zone", Run: func(t *T) {
		host := spread(apis.LabelHostname, 3, corev1.DoNotSchedule, testLabels)
		w := topoWorld()
		for i, round := range []struct {
			n    int
			want []int
		}{{2, []int{1, 1}}, {3, []int{1, 2, 2}}, {5, []int{3, 3, 4}}, {11, []int{7, 7, 7}}} {
			w.provision(spreadPods(round.n, string(rune('a'+i)), zoneSpread, spreads(host))...)
			require.Equal(t, round.want, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector), "round %d", i)
			for _, c := range w.skew(apis.LabelHostname, host.LabelSelector) {
				require.LessOrEqual(t, c, 3, "round %d", i)
			}
		}
	}},
	conformanceCase{Name: "pool-requirement-values", Run: func(t *T) {
		const key = "capacity.spread.4-1"
		spot := nodePool("spot", withRequirements(req(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot),
			req(key, corev1.NodeSelectorOpIn, "2", "3", "4", "5")))
		onDemand := nodePool("on-demand", withRequirements(req(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand),
			req(key, corev1.NodeSelectorOpIn, "1")))
		w := newWorld(defaultFakeCatalog(), spot, onDemand)
		cs := spread(key, 1, corev1.DoNotSchedule, testLabels)
		pods := spreadPods(20, "p", cs)
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Equal(t, []int{4, 4, 4, 4, 4}, w.skew(key, cs.LabelSelector))
		require.Equal(t, []int{4, 16}, w.skew(apis.LabelCapacityType, cs.LabelSelector))
	}},
	conformanceCase{Name: "zone-and-hostname-schedule-anyway", Run: func(t *T) {
		host := spread(apis.LabelHostname, 1, corev1.ScheduleAnyway, testLabels)
		disabled := nodePool("b", withRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-3")))
		disabled.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0")}
		w := newWorld(defaultFakeCatalog(), topoPool(zones("test-zone-1", "test-zone-2")), disabled)
		w.provision(spreadPods(10, "p", zoneSpread, spreads(host))...)
		require.Equal(t, []int{1, 1}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector),
			"zone 3 is a domain no pool can reach, so one pod per reachable zone is all the skew allows")
		require.Equal(t, []int{1, 1}, w.skew(apis.LabelHostname, host.LabelSelector))
	}},
	conformanceCase{Name: "capacity-type-and-hostname", Run: func(t *T) {
		host := spread(apis.LabelHostname, 3, corev1.DoNotSchedule, testLabels)
		w := topoWorld()
		for i, round := range []struct {
			n    int
			want []int
		}{{2, []int{1, 1}}, {3, []int{2, 3}}, {5, []int{5, 5}}, {11, []int{10, 11}}} {
			w.provision(spreadPods(round.n, string(rune('a'+i)), capacityTypeSpread, spreads(host))...)
			require.Equal(t, round.want, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector), "round %d", i)
			for _, c := range w.skew(apis.LabelHostname, host.LabelSelector) {
				require.LessOrEqual(t, c, 3, "round %d", i)
			}
		}
	}},
	conformanceCase{Name: "match-label-keys", Run: func(t *T) {
		cs := hostnameSpread
		cs.MatchLabelKeys = []string{"test-label"}
		w := topoWorld()
		pods := append(spreadPods(2, "a", cs, labelled("test-label", "value-a")), spreadPods(2, "b", cs, labelled("test-label", "value-b"))...)
		w.provision(pods...)
		require.Equal(t, []int{2, 2}, w.skew(apis.LabelHostname, cs.LabelSelector), "two nodes, each with one pod of each value")
	}},
	conformanceCase{Name: "match-label-keys-unknown-label", Run: func(t *T) {
		cs := hostnameSpread
		cs.MatchLabelKeys = []string{"test-label"}
		w := topoWorld()
		w.provision(spreadPods(4, "p", cs)...)
		require.Equal(t, []int{1, 1, 1, 1}, w.skew(apis.LabelHostname, cs.LabelSelector))
	}},
)
