package conformance

import (
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

func priority(v int32) podOption { return func(p *corev1.Pod) { p.Spec.Priority = &v } }

var _ = register("singlenode",
	// Two equally priced nodes each hold a 20-CPU pod; a third node, which
	// may not be disrupted, has room for one of them. Together they would
	// need a dearer new node, so multi-node consolidation finds nothing and
	// single-node consolidation takes its candidates by savings ratio
	// (price over disruption cost): the node whose pod costs less to evict
	// goes.
	conformanceCase{Name: "savings-ratio-order", Run: func(t *T) {
		for _, tc := range []struct {
			dearPod, want string
		}{{"a", "b"}, {"b", "a"}} {
			podOf := func(name string) *corev1.Pod {
				if name == tc.dearPod {
					return pod("p-"+name, "20", priority(1<<25))
				}
				return pod("p-"+name, "20")
			}
			c := (&cluster{}).pool(nodePool("default", budgets(nodes("100%")))).
				node(managedNode("dest", "default", cheapestOnDemand, nodeAnnotation(apis.AnnotationDoNotDisrupt, "true"))).
				node(managedNode("a", "default", cheapestOnDemand, withPods(podOf("a")))).
				node(managedNode("b", "default", cheapestOnDemand, withPods(podOf("b"))))
			d := c.evaluate()
			require.Len(t, d.Commands, 1)
			require.Equal(t, "single-node-consolidation", d.Commands[0].Method)
			require.Equal(t, []string{tc.want}, d.Commands[0].Delete, "the pod on %s costs more to evict", tc.dearPod)
		}
	}},
)

// timeoutFails is why the single-node specs about its wall-clock timeout
// fail, as multi-node consolidation's deadline spec does.
const timeoutFails = "deliberate difference: karpsim's evaluation takes no wall-clock budget (same input, same decision), so single-node consolidation never times out and keeps no NodePools it ran out of time on"

// timeoutCluster is two NodePools of equally priced nodes, each holding
// a 20-CPU pod one do-not-disrupt node has room for: single-node
// consolidation deletes one node per pass, and with equal savings ratios
// the pool whose candidates it reaches first gives it.
func timeoutCluster() *cluster {
	c := &cluster{}
	for _, name := range []string{"pool-1", "pool-2"} {
		c.pool(nodePool(name, budgets(nodes("100%"))))
		c.node(managedNode(name+"-a", name, cheapestOnDemand, withPods(pod("p-"+name+"-a", "20"))))
	}
	return c.node(managedNode("dest", "pool-1", cheapestOnDemand, nodeAnnotation(apis.AnnotationDoNotDisrupt, "true")))
}

var _ = register("singlenode",
	// Upstream remembers pool-2 as timed out in an earlier pass and tries
	// its candidates first; karpsim never times out, so it keeps the
	// savings-ratio order, ties by name.
	conformanceCase{Name: "timed-out-pools-first", Fails: timeoutFails, Run: func(t *T) {
		d := timeoutCluster().evaluate()
		require.Len(t, d.Commands, 1)
		require.Equal(t, []string{"pool-2-a"}, d.Commands[0].Delete, "the timed-out pool's candidate goes first")
	}},
	// Upstream's timeout has already passed when the pass starts: no
	// candidate is simulated and no command is made.
	conformanceCase{Name: "timeout-stops-the-pass", Fails: timeoutFails, Run: func(t *T) {
		expectNothing(t, timeoutCluster().evaluate())
	}},
)
