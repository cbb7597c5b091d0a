package clusterautoscaler

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/instancetypes"
)

func testGroups(t *testing.T, specs ...NodeGroup) []*group {
	t.Helper()
	catalog, err := instancetypes.NewAWS(instancetypes.EmbeddedFacts(), instancetypes.AWSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*group
	for _, s := range specs {
		g, err := newGroup(s, catalog, Zones(catalog))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

func pods(n int) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = webPod(fmt.Sprintf("web-%d", i))
	}
	return out
}

func TestExpanders(t *testing.T) {
	gs := testGroups(t,
		NodeGroup{Name: "large", InstanceTypes: []string{"m5.4xlarge"}, Max: 10},
		NodeGroup{Name: "small", InstanceTypes: []string{"m5.xlarge"}, Max: 10},
		NodeGroup{Name: "spot", InstanceTypes: []string{"m5.xlarge"}, CapacityType: "spot", Max: 10})
	// Fourteen one-CPU pods: one m5.4xlarge (16 CPU) or five m5.xlarge
	// (three pods each once the kubelet's share is taken).
	large, small, spot := option{g: gs[0], nodes: 1, pods: pods(14)}, option{g: gs[1], nodes: 5, pods: pods(14)}, option{g: gs[2], nodes: 5, pods: pods(14)}
	few := option{g: gs[0], nodes: 1, pods: pods(5)}

	out, why := leastWaste([]option{large, small, spot})
	if len(out) != 1 || out[0].g.spec.Name != "large" || !strings.Contains(why, "large leaves 12% cpu") {
		t.Errorf("leastWaste = %s, %q; want large", names(out), why)
	}
	out, why = leastWaste([]option{small, spot})
	if len(out) != 2 || !strings.Contains(why, "small and spot leave 30% cpu") {
		t.Errorf("leastWaste = %s, %q; want small and spot tied", names(out), why)
	}
	out, why = mostPods([]option{few, small})
	if len(out) != 1 || out[0].g.spec.Name != "small" || !strings.Contains(why, "fits 14 pods") {
		t.Errorf("mostPods = %v, %q", out, why)
	}
	out, _ = cheapest([]option{large, small, spot})
	if len(out) != 1 || out[0].g.spec.Name != "spot" {
		t.Errorf("cheapest = %s, want spot", names(out))
	}

	a := &Autoscaler{st: settings{priorities: []priorityRule{{priority: 10, re: regexp.MustCompile("^(?:sp.*)$")}, {priority: 1, re: regexp.MustCompile("^(?:.*)$")}}}}
	out, why = a.highestPriority([]option{large, small, spot})
	if len(out) != 1 || out[0].g.spec.Name != "spot" || why != "priority: spot has priority 10" {
		t.Errorf("highestPriority = %s, %q", names(out), why)
	}
}

func TestSimilarGroupsAndBalance(t *testing.T) {
	gs := testGroups(t,
		NodeGroup{Name: "a", InstanceTypes: []string{"m5.xlarge"}, Zones: []string{"us-east-1a"}, Max: 10},
		NodeGroup{Name: "b", InstanceTypes: []string{"m5.xlarge"}, Zones: []string{"us-east-1b"}, Max: 2},
		NodeGroup{Name: "c", InstanceTypes: []string{"m5.2xlarge"}, Max: 10})
	if !similarGroups(gs[0], gs[1]) || similarGroups(gs[0], gs[2]) {
		t.Fatalf("a~b %v, a~c %v; want only a and b similar", similarGroups(gs[0], gs[1]), similarGroups(gs[0], gs[2]))
	}
	a := &Autoscaler{}
	plan := a.balance(option{g: gs[0], nodes: 6, pods: pods(18)}, []option{{g: gs[0], nodes: 6}, {g: gs[1], nodes: 6}, {g: gs[2], nodes: 3}}, 0)
	got := map[string]int{}
	for _, o := range plan {
		got[o.g.spec.Name] = o.nodes
	}
	if got["a"] != 4 || got["b"] != 2 || got["c"] != 0 {
		t.Errorf("balance = %v, want a 4 and b 2 (its max)", got)
	}
}
