package conformance

import (
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
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
	// pool-2 ran out of time in an earlier pass: its candidates are tried
	// first, so its node goes though pool-1's comes first by name.
	conformanceCase{Name: "timed-out-pools-first", Run: func(t *T) {
		c := timeoutCluster()
		d := c.evaluate()
		require.Len(t, d.Commands, 1)
		require.Equal(t, []string{"pool-1-a"}, d.Commands[0].Delete, "without a timed-out pool, ties go by name")
		c.opts.TimedOutNodePools = []string{"pool-2"}
		d = c.evaluate()
		require.Len(t, d.Commands, 1)
		require.Equal(t, []string{"pool-2-a"}, d.Commands[0].Delete, "the timed-out pool's candidate goes first")
		require.Equal(t, []string{"pool-2"}, d.TimedOutNodePools, "a command leaves the timed-out pools as they were")
	}},
	// The single-node budget is spent before the first candidate (upstream
	// sets it to -5s): no candidate is simulated, no command is made, and
	// every NodePool with a candidate is remembered as timed out.
	conformanceCase{Name: "timeout-stops-the-pass", Run: func(t *T) {
		c := timeoutCluster()
		c.opts.Timeouts = &consolidation.Timeouts{SingleNode: -5 * time.Second}
		d := c.evaluate()
		expectNothing(t, d)
		require.Equal(t, []string{"pool-1", "pool-2"}, d.TimedOutNodePools)
	}},
	// Each pool's node holds a pod no other node has room for, on the
	// cheapest type: single-node consolidation tries every candidate and
	// finds nothing, so the pool remembered as timed out is forgotten.
	conformanceCase{Name: "timed-out-pools-forgotten", Run: func(t *T) {
		c := &cluster{}
		for _, name := range []string{"pool-1", "pool-2", "pool-3"} {
			c.pool(nodePool(name, budgets(nodes("100%"))))
			c.node(managedNode(name+"-a", name, cheapestOnDemand, withPods(pod("p-"+name+"-a", "20"))))
		}
		c.opts.TimedOutNodePools = []string{"pool-2"}
		d := c.evaluate()
		expectNothing(t, d)
		require.Empty(t, d.TimedOutNodePools)
	}},
)
