package invariants

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// TestCheckPlanAcceptsSolve: what scheduling.Solve decides for pods of
// every constraint kind breaks no rule.
func TestCheckPlanAcceptsSolve(t *testing.T) {
	var pods []*corev1.Pod
	for i := range 6 {
		pods = append(pods, newPod("web-"+itoa(i), "500m", app("web"), spread(apis.LabelTopologyZone, "web", 1)))
		pods = append(pods, newPod("db-"+itoa(i), "700m", app("db"), podAffinity(true, apis.LabelHostname, "db")))
		pods = append(pods, newPod("cache-"+itoa(i), "300m", app("cache"), podAffinity(false, apis.LabelTopologyZone, "cache")))
		pods = append(pods, newPod("gpu-"+itoa(i), "1", toleration("dedicated"), nodeSelector(apis.LabelNodePool, "tainted")))
	}
	in := scheduling.Input{
		Pods:  pods,
		Nodes: []*scheduling.Node{node("existing", "default", "test-zone-1", 4, newPod("old", "1"))},
		NodePools: []scheduling.Pool{
			{NodePool: newPool("default", poolLimit(corev1.ResourceCPU, "100")), InstanceTypes: fake},
			{NodePool: newPool("tainted", poolTaint("dedicated"), poolRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpExists, 3)), InstanceTypes: fake},
		},
		DaemonSets: []*corev1.Pod{newPod("ds", "100m")},
	}
	r := scheduling.Solve(in)
	if len(r.Unschedulable) > 0 {
		t.Fatalf("unschedulable: %v", r.Unschedulable)
	}
	if vs := CheckPlan(in, r); len(vs) > 0 {
		t.Fatalf("violations on Solve's own plan:\n%v", Err(vs))
	}
}

// Each case is a hand-made plan that breaks one rule: the checker must
// name that rule, and the objects.
func TestCheckPlanCatchesEachRule(t *testing.T) {
	withAvailability := func(available bool) instancetypes.Catalog {
		var types []*instancetypes.InstanceType
		for _, it := range fake {
			c := *it
			c.Offerings = slices.Clone(it.Offerings)
			for i := range c.Offerings {
				c.Offerings[i].Available = available
			}
			types = append(types, &c)
		}
		cat, err := instancetypes.NewCatalog(types...)
		if err != nil {
			t.Fatal(err)
		}
		return cat
	}
	defaultPool := []scheduling.Pool{{NodePool: newPool("default"), InstanceTypes: fake}}
	cases := []struct {
		name     string
		in       scheduling.Input
		r        scheduling.Result
		rule     string
		pod, obj string
	}{{
		name: "a claim overcommitted",
		in:   scheduling.Input{Pods: []*corev1.Pod{newPod("a", "600m"), newPod("b", "600m")}, NodePools: defaultPool},
		r:    scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("default-1", "default", "test-zone-1", 1, "default/a", "default/b")}},
		rule: RuleOvercommit, obj: "default-1",
	}, {
		name: "a claim overcommitted by DaemonSet overhead",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "800m")}, NodePools: defaultPool,
			DaemonSets: []*corev1.Pod{newPod("ds", "200m")}},
		r:    scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("default-1", "default", "test-zone-1", 1, "default/a")}},
		rule: RuleOvercommit, obj: "default-1",
	}, {
		name: "an existing node overcommitted",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "600m")},
			Nodes: []*scheduling.Node{node("n1", "default", "test-zone-1", 1, newPod("old", "600m"))}},
		r:    scheduling.Result{Bindings: []scheduling.Binding{{Pod: "default/a", Node: "n1"}}},
		rule: RuleOvercommit, obj: "n1",
	}, {
		name: "more pods than max pods",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "10m")},
			Nodes: []*scheduling.Node{func() *scheduling.Node {
				n := node("n1", "default", "test-zone-1", 2, newPod("old", "10m"))
				n.Allocatable[corev1.ResourcePods] = resource.MustParse("1")
				return n
			}()}},
		r:    scheduling.Result{Bindings: []scheduling.Binding{{Pod: "default/a", Node: "n1"}}},
		rule: RuleOvercommit, obj: "n1",
	}, {
		name: "a nodeSelector not matched",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m", nodeSelector(apis.LabelTopologyZone, "test-zone-2"))},
			Nodes: []*scheduling.Node{node("n1", "default", "test-zone-1", 2)}},
		r:    scheduling.Result{Bindings: []scheduling.Binding{{Pod: "default/a", Node: "n1"}}},
		rule: RuleNodeSelector, pod: "default/a", obj: "n1",
	}, {
		name: "required node affinity not matched",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m", requiredNodeAffinity(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpGt, "4"))},
			NodePools: defaultPool},
		r:    scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("default-1", "default", "test-zone-1", 2, "default/a")}},
		rule: RuleNodeAffinity, pod: "default/a", obj: "default-1",
	}, {
		name: "a taint not tolerated",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m")},
			NodePools: []scheduling.Pool{{NodePool: newPool("tainted", poolTaint("dedicated")), InstanceTypes: fake}}},
		r:    scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("tainted-1", "tainted", "test-zone-1", 2, "default/a")}},
		rule: RuleTaints, pod: "default/a", obj: "tainted-1",
	}, {
		name: "pod affinity unmet",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m", podAffinity(false, apis.LabelTopologyZone, "db"))},
			Nodes: []*scheduling.Node{node("n1", "default", "test-zone-1", 2, newPod("db", "100m")), node("n2", "default", "test-zone-2", 2)}},
		r:    scheduling.Result{Bindings: []scheduling.Binding{{Pod: "default/a", Node: "n2"}}},
		rule: RulePodAffinity, pod: "default/a", obj: "n2",
	}, {
		name: "self affinity split over two zones with a matching pod bound before",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m", app("c"), podAffinity(false, apis.LabelTopologyZone, "c"))},
			Nodes: []*scheduling.Node{node("n1", "default", "test-zone-1", 2, newPod("c0", "100m", app("c"))), node("n2", "default", "test-zone-2", 2)}},
		r:    scheduling.Result{Bindings: []scheduling.Binding{{Pod: "default/a", Node: "n2"}}},
		rule: RulePodAffinity, pod: "default/a", obj: "n2",
	}, {
		name: "anti-affinity with a pod bound before",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m", app("db"), podAffinity(true, apis.LabelHostname, "db"))},
			Nodes: []*scheduling.Node{node("n1", "default", "test-zone-1", 2, newPod("db0", "100m", app("db")))}},
		r:    scheduling.Result{Bindings: []scheduling.Binding{{Pod: "default/a", Node: "n1"}}},
		rule: RulePodAntiAffinity, pod: "default/a", obj: "n1",
	}, {
		name: "an existing pod's anti-affinity against a placed pod",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m", app("web"))},
			Nodes: []*scheduling.Node{node("n1", "default", "test-zone-1", 2, newPod("lonely", "100m", podAffinity(true, apis.LabelTopologyZone, "web")))}},
		r:    scheduling.Result{Bindings: []scheduling.Binding{{Pod: "default/a", Node: "n1"}}},
		rule: RulePodAntiAffinity, pod: "default/lonely", obj: "n1",
	}, {
		name: "two placed pods on one new claim against their hostname anti-affinity",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m", app("db"), podAffinity(true, apis.LabelHostname, "db")),
			newPod("b", "100m", app("db"), podAffinity(true, apis.LabelHostname, "db"))}, NodePools: defaultPool},
		r:    scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("default-1", "default", "test-zone-1", 2, "default/a", "default/b")}},
		rule: RulePodAntiAffinity, pod: "default/a", obj: "default-1",
	}, {
		name: "zone spread past maxSkew",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m", app("w"), spread(apis.LabelTopologyZone, "w", 1)),
			newPod("b", "100m", app("w"), spread(apis.LabelTopologyZone, "w", 1))},
			Nodes: []*scheduling.Node{node("n1", "default", "test-zone-1", 2), node("n2", "default", "test-zone-2", 2)}},
		r:    scheduling.Result{Bindings: []scheduling.Binding{{Pod: "default/a", Node: "n1"}, {Pod: "default/b", Node: "n1"}}},
		rule: RuleTopologySpread, obj: "n1",
	}, {
		name: "a launch against the NodePool's requirements",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m")},
			NodePools: []scheduling.Pool{{NodePool: newPool("big", poolRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpGt, 0, "4")), InstanceTypes: fake}}},
		r:    scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("big-1", "big", "test-zone-1", 2, "default/a")}},
		rule: RuleNodePoolRequirements, obj: "big-1",
	}, {
		name: "too few instance types for minValues",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m")},
			NodePools: []scheduling.Pool{{NodePool: newPool("mv", poolRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpExists, 3)), InstanceTypes: fake}}},
		r:    scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("mv-1", "mv", "test-zone-1", 2, "default/a")}},
		rule: RuleNodePoolRequirements, obj: "mv-1",
	}, {
		name: "a launch outside the claim's options",
		in:   scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m")}, NodePools: defaultPool},
		r: scheduling.Result{NodeClaims: []scheduling.NodeClaim{func() scheduling.NodeClaim {
			c := claim("default-1", "default", "test-zone-1", 2, "default/a")
			c.InstanceTypeOptions = []string{"fake-it-0"}
			return c
		}()}},
		rule: RuleInstanceType, obj: "default-1",
	}, {
		name: "a launch on an unavailable offering",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m")},
			NodePools: []scheduling.Pool{{NodePool: newPool("default"), InstanceTypes: withAvailability(false)}}},
		r:    scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("default-1", "default", "test-zone-1", 2, "default/a")}},
		rule: RuleInstanceType, obj: "default-1",
	}, {
		name: "a NodePool past its limits",
		in: scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m")},
			Nodes:     []*scheduling.Node{node("n1", "capped", "test-zone-1", 2, newPod("old", "1900m"))},
			NodePools: []scheduling.Pool{{NodePool: newPool("capped", poolLimit(corev1.ResourceCPU, "5")), InstanceTypes: fake}}},
		r:    scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("capped-1", "capped", "test-zone-1", 4, "default/a")}},
		rule: RuleNodePoolLimits, obj: "capped",
	}, {
		name: "a pod neither placed nor refused",
		in:   scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m"), newPod("b", "100m")}, NodePools: defaultPool},
		r:    scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("default-1", "default", "test-zone-1", 2, "default/a")}},
		rule: RuleConservation, pod: "default/b",
	}, {
		name: "a pod placed twice",
		in:   scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m")}, NodePools: defaultPool},
		r: scheduling.Result{NodeClaims: []scheduling.NodeClaim{claim("default-1", "default", "test-zone-1", 2, "default/a")},
			Unschedulable: []scheduling.Unschedulable{{Pod: "default/a", Reason: "?"}}},
		rule: RuleConservation, pod: "default/a",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vs := CheckPlan(tc.in, tc.r)
			i := slices.IndexFunc(vs, func(v Violation) bool { return v.Rule == tc.rule })
			if i < 0 {
				t.Fatalf("want a %s violation, got %v", tc.rule, vs)
			}
			v := vs[i]
			if tc.pod != "" && v.Pod != tc.pod {
				t.Errorf("violation names pod %q, want %q: %s", v.Pod, tc.pod, v)
			}
			if tc.obj != "" && v.Node != tc.obj && v.NodePool != tc.obj {
				t.Errorf("violation names neither node nor NodePool %q: %s", tc.obj, v)
			}
			if others := slices.DeleteFunc(slices.Clone(vs), func(v Violation) bool { return v.Rule == tc.rule }); len(others) > 0 {
				t.Errorf("other violations besides %s: %v", tc.rule, others)
			}
			if err := Err(vs); err == nil || !strings.Contains(err.Error(), tc.rule) {
				t.Errorf("Err = %v", err)
			}
		})
	}
}
