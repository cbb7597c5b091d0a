package consolidation

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
)

// A NodePool limited to 100 cpu whose other nodes have 2^53 millicores
// each, 1,025 of them, is past its limit: the capacity the simulation
// charges to the pool sums past 2^63, which wrapped into room for a
// replacement. It saturates now, and the underutilized node is not
// replaced (its pods fit nowhere else).
func TestPoolCapacityPast2To63AllowsNoReplacement(t *testing.T) {
	np := newPool("general", withConsolidateAfter("0s"))
	np.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}
	nodes := []*Node{newNode("busy", "general", 8, apis.CapacityTypeOnDemand, pods(2, "web", "1"))}
	for i := range 1025 {
		n := newNode(fmt.Sprintf("giant-%04d", i), "general", 2, apis.CapacityTypeOnDemand, nil)
		n.Annotations = map[string]string{apis.AnnotationDoNotDisrupt: "true"}
		n.Node.Capacity = resources.New(resources.MaxAmount, 8<<30, 110).List()
		n.Node.Allocatable = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}
		nodes = append(nodes, n)
	}
	d := Evaluate(Cluster{Nodes: nodes, NodePools: pools(np)}, now, Options{})
	requireNoCommand(t, d)
	assert.Contains(t, verdict(t, d, "busy").Reason, "limit")
}

// A static NodePool's node limit is read bounded, as every amount is:
// apimachinery reads 1e30 as 0, which refused every replacement, and
// -1e30 must still refuse them.
func TestStaticDriftNodeLimitPastInt64(t *testing.T) {
	for limit, replaced := range map[string]bool{"1e30": true, "-1e30": false} {
		np := newPool("static", withReplicas(2))
		np.Spec.Limits = corev1.ResourceList{"nodes": resource.MustParse(limit)}
		nodes := []*Node{
			newNode("s-0", "static", 2, apis.CapacityTypeOnDemand, nil, drifted(time.Hour)),
			newNode("s-1", "static", 2, apis.CapacityTypeOnDemand, nil, drifted(2*time.Hour)),
		}
		d := Evaluate(Cluster{Nodes: nodes, NodePools: pools(np)}, now, Options{})
		if !replaced {
			requireNoCommand(t, d)
			assert.Contains(t, verdict(t, d, "s-0").Reason, "static drift: NodePool static is at its node limit", limit)
			continue
		}
		assert.Len(t, d.Commands, 2, "limit %s: verdicts %v", limit, d.Candidates)
		for _, c := range d.Commands {
			assert.Equal(t, MethodStaticDrift, c.Method)
		}
	}
}
