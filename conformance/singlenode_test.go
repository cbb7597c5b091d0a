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
