package scheduling

import (
	"reflect"
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
	return Input{Pods: ps, NodePools: []NodePool{pool(newPool("default"))}, Options: Options{Packing: packing}}
}

// Tracing a pod never changes the decisions, whatever the packing: the
// Result of Explain is Solve's for every pod.
func TestPackingExplainAgreesWithSolve(t *testing.T) {
	for _, packing := range []Packing{PackFewestPods, PackCheapest, PackEfficient} {
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
