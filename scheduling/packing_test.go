package scheduling

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// packingInput mixes sizes, a zone spread, hostname anti-affinity, a pod
// pinned to on-demand and one too large for any type.
func packingInput(packing Packing) Input {
	var ps []*corev1.Pod
	ps = append(ps, pods(6, "small", "250m", "512Mi")...)
	ps = append(ps, pods(4, "large", "3", "4Gi")...)
	ps = append(ps, pods(3, "api", "1", "1Gi", withLabels("app", "api"), withPodAntiAffinity(apis.LabelHostname, "api"))...)
	ps = append(ps, pods(4, "web", "500m", "1Gi", withLabels("app", "web"), withSpread(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule))...)
	ps = append(ps, newPod("pinned", "1", "2Gi", withNodeSelector(apis.LabelCapacityType, apis.CapacityTypeOnDemand)))
	ps = append(ps, newPod("huge", "64", "1Gi"))
	return Input{Pods: ps, NodePools: []Pool{pool(newPool("default"))}, Options: Options{Packing: packing}}
}

// Tracing a pod never changes the decisions, whatever the packing: the
// Result of Explain is Solve's for every pod.
func TestPackingExplainAgreesWithSolve(t *testing.T) {
	for _, packing := range []Packing{PackFewestPods, PackCheapest, PackEfficient, PackBalanced} {
		in := packingInput(packing)
		want := Solve(in)
		if want.Summary.UnschedulablePods != 1 {
			t.Fatalf("packing %d: %d pods unschedulable, want the huge one: %+v", packing, want.Summary.UnschedulablePods, want.Unschedulable)
		}
		for _, p := range in.Pods {
			got, e, err := Explain(in, p.Namespace+"/"+p.Name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("packing %d: explaining %s changes the plan", packing, p.Name)
			}
			if len(e.Attempts) == 0 {
				t.Errorf("packing %d: no attempt recorded for %s", packing, p.Name)
			}
		}
	}
}

// Balanced packing fills each claim's room with the pods that match it:
// on a catalog of one shape, where taking the pods in Karpenter's order
// (efficient packing) mixes them as well, it places every pod, mixes as
// many claims and costs no more. (optimize's TestBalancedPackingMixes
// holds it to a saving on the AWS catalog.)
func TestPackBalancedMixesPods(t *testing.T) {
	var ps []*corev1.Pod
	ps = append(ps, pods(60, "worker", "2", "1Gi")...)
	ps = append(ps, pods(60, "cache", "250m", "6Gi")...)
	solve := func(packing Packing) (Result, int) {
		r := Solve(Input{Pods: ps, NodePools: []Pool{pool(newPool("default"))}, Options: Options{Packing: packing}})
		mixed := 0
		for _, c := range r.NodeClaims {
			if slices.ContainsFunc(c.Pods, func(k string) bool { return strings.Contains(k, "/worker-") }) && slices.ContainsFunc(c.Pods, func(k string) bool { return strings.Contains(k, "/cache-") }) {
				mixed++
			}
		}
		return r, mixed
	}
	balanced, mixed := solve(PackBalanced)
	efficient, mixedEfficient := solve(PackEfficient)
	if balanced.Summary.UnschedulablePods != 0 {
		t.Fatalf("unschedulable: %+v", balanced.Unschedulable)
	}
	if balanced.Summary.PricePerHour > efficient.Summary.PricePerHour {
		t.Errorf("balanced packing costs $%.4f, efficient $%.4f", balanced.Summary.PricePerHour, efficient.Summary.PricePerHour)
	}
	if mixed < mixedEfficient {
		t.Errorf("%d of %d claims mix workers and caches, %d of %d under efficient packing", mixed, len(balanced.NodeClaims), mixedEfficient, len(efficient.NodeClaims))
	}
}
