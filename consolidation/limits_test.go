package consolidation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
)

// The candidates' capacity and the deleting nodes' do not count against
// their NodePool's limits in a consolidation simulation: Karpenter's
// SimulateScheduling builds its scheduler over the active nodes less the
// candidates, and the scheduler's remaining resources are the limits less
// those nodes' capacity. Found by the differential run against Karpenter
// v1.15.0 (upstream/differential/disruption, seed 4034).
func TestConsolidationFreesTheCandidatesCapacityUnderTheLimits(t *testing.T) {
	np := newPool("default")
	// other keeps 4 of the 12 CPUs; big (8) leaves and gone (4) is being
	// deleted. Counting either, no 4-CPU replacement would fit.
	np.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("12")}
	big := newNode("big", "default", 8, apis.CapacityTypeOnDemand, pods(1, "web", "3"))
	other := newNode("other", "default", 4, apis.CapacityTypeOnDemand, pods(1, "db", "3500m", withAnnotation(apis.AnnotationDoNotDisrupt, "true")))
	gone := newNode("gone", "default", 4, apis.CapacityTypeOnDemand, nil, deleting)
	d := Evaluate(Cluster{Nodes: []*Node{big, other, gone}, NodePools: pools(np)}, now, Options{})
	assert.Equal(t, []string{"single-node-consolidation delete=[big] replace=[fake-it-3 spot]"}, summary(d))
}

// A replacement goes to the first NodePool, in Karpenter's order, that can
// take the pods, even when only its dear types can: here pool b (tried
// before a, names descending) fits the 3-CPU pod on its 8-CPU type only,
// which is dearer than the candidate, so nothing is consolidated; a
// simulation that offered only the types cheaper than the candidate would
// have skipped b and replaced the node in pool a. Found by the differential
// run against Karpenter v1.15.0 (seed 100014).
func TestConsolidationReplacesInTheFirstPoolThatFitsNotTheFirstCheapOne(t *testing.T) {
	a := newPool("a", withRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "fake-it-3", "fake-it-5"))
	b := newPool("b", withRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "fake-it-0", "fake-it-7"))
	n := newNode("n", "a", 6, apis.CapacityTypeOnDemand, pods(1, "web", "3"))
	d := Evaluate(Cluster{Nodes: []*Node{n}, NodePools: pools(a, b)}, now, Options{})
	requireNoCommand(t, d)
	assert.Contains(t, verdict(t, d, "n").Reason, "cheaper")

	// Without pool b the node is replaced in a.
	d = Evaluate(Cluster{Nodes: []*Node{n}, NodePools: pools(a)}, now, Options{})
	assert.Equal(t, []string{"single-node-consolidation delete=[n] replace=[fake-it-3 spot]"}, summary(d))
}
