package conformance

import (
	"fmt"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
)

// partitioned labels a node test-partition=<value>.
func partitioned(value string) nodeOption {
	return func(n *consolidation.Node) { n.Node.Labels["test-partition"] = value }
}

var _ = register("suite",
	// Nine of ten nodes are being deleted; the tenth's pod, 2 of the
	// nodes' 3 cpu, has nowhere to go but a new node: the simulation for
	// that candidate still places it (on the replacement it launches).
	conformanceCase{Name: "pods-of-deleting-nodes-may-go-to-new-nodes", Run: func(t *T) {
		c := consolidationCluster()
		for i := range 10 {
			opts := []nodeOption{allocatable("3")}
			if i == 0 {
				opts = append(opts, withPods(pod("p", "2")))
			}
			n := managedNode(fmt.Sprintf("node-%d", i), "default", dearestOnDemand, opts...)
			n.Deleting = i > 0
			c.node(n)
		}
		d := c.evaluate()
		require.Len(t, d.Commands, 1, "%+v", d.Candidates)
		cmd := d.Commands[0]
		require.Equal(t, []string{"node-0"}, cmd.Delete)
		require.Len(t, cmd.Replacements, 1)
		require.Contains(t, cmd.Moves, consolidation.Move{Pod: "default/p", To: cmd.Replacements[0].Name})
	}},
	// Ten drifted nodes, each holding a pod that only its partition of the
	// NodePool fits, and a budget of three nodes: three replacements in
	// turn, each command counting against the budget once executed, then
	// none.
	conformanceCase{Name: "successive-replace-commands", Run: func(t *T) {
		c := consolidationCluster(nodePool("default", consolidateAfter("Never"), budgets(nodes("3")), func(np *apis.NodePool) {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
				apis.NodeSelectorRequirementWithMinValues{Key: "test-partition", Operator: corev1.NodeSelectorOpExists})
		}))
		for i := range 10 {
			v := fmt.Sprint(i)
			c.node(managedNode("node-"+v, "default", dearestOnDemand, allocatable("3"), partitioned(v), driftedFor(time.Hour),
				withPods(pod("p-"+v, "100m", nodeSelector("test-partition", v)))))
		}
		// Each pass's command is carried out: its node marked for deletion
		// and its replacement up (initialized, in the pod's partition), as
		// upstream deploys the new NodeClaim before the next pass.
		for pass := range 4 {
			d := c.evaluate()
			if pass == 3 {
				expectNothing(t, d)
				break
			}
			require.Len(t, d.Commands, 1, "pass %d: %+v", pass, d.Candidates)
			cmd := d.Commands[0]
			require.Equal(t, consolidation.MethodDrift, cmd.Method)
			require.Len(t, cmd.Delete, 1)
			require.Len(t, cmd.Replacements, 1, "pass %d", pass)
			c.execute(d)
			r := cmd.Replacements[0]
			partition := ""
			for _, req := range r.Requirements {
				if req.Key == "test-partition" && len(req.Values) == 1 {
					partition = req.Values[0]
				}
			}
			c.node(managedNode(r.Name, "default", r.InstanceType, partitioned(partition)))
		}
	}},
	// A pod whose volume is a local PersistentVolume pinned to its node by
	// hostname: Karpenter ignores that hostname affinity when it simulates,
	// so the node may be replaced. karpsim's disruption view carries no
	// volumes, so nothing pins the pod there either.
	conformanceCase{Name: "local-volume-pod-node-replaced", Run: func(t *T) {
		p := pod("db", "1", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "local-claim"}}}}
		})
		c := consolidationCluster().node(managedNode("node", "default", dearestOnDemand, withPods(p)))
		expectReplaced(t, c.evaluate(), "node", dearestOnDemand)
	}},
	// Upstream's reconcile runs under a context whose deadline has passed:
	// multi-node consolidation's search stops before its first simulation
	// with no command proven, and every later simulation of the pass fails,
	// so nothing is disrupted. Both budgets are spent before they start.
	conformanceCase{Name: "multi-node-stops-at-deadline",
		Run: func(t *T) {
			c := consolidationCluster()
			c.node(managedNode("node-0", "default", dearestOnDemand, withPods(pod("p-0", ""))))
			c.node(managedNode("node-1", "default", dearestOnDemand, withPods(pod("p-1", ""))))
			c.node(managedNode("node-2", "default", dearestOnDemand, withPods(pod("p-2", ""), pod("p-3", ""))))
			require.Equal(t, "multi-node-consolidation", c.evaluate().Commands[0].Method, "without a deadline the three nodes consolidate")
			c.opts.Timeouts = &consolidation.Timeouts{MultiNode: -consolidation.MultiNodeTimeout, SingleNode: -consolidation.MultiNodeTimeout}
			expectNothing(t, c.evaluate())
		}},
)

var _ = register("consolidation",
	// A node is being deleted with three of its pods still on it; the node
	// launched for them already holds two others. Consolidating the new node
	// would leave the deleting node's pods without room: no command.
	conformanceCase{Name: "node-for-deleting-nodes-pods-kept", Run: func(t *T) {
		c := consolidationCluster()
		old := managedNode("old", "default", dearestOnDemand, allocatable("5"),
			withPods(pod("p-2", "1"), pod("p-3", "1"), pod("p-4", "1")))
		old.Deleting = true
		c.node(old)
		// The new node is the cheapest type with room for the five pods, as
		// the provisioner chose it.
		c.node(managedNode("new", "default", "8-cpu-1-mem-amd64-linux-test-zone-1-spot", allocatable("5"),
			withPods(pod("p-0", "1"), pod("p-1", "1"))))
		expectNothing(t, c.evaluate())
	}},
)
