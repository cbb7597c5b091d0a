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
