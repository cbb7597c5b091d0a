package conformance

import (
	"slices"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/consolidation"
)

// Capacity buffers (v1.14): Karpenter's provisioner places virtual pods of
// CapacityBuffers on nodes and keeps a count per node in its cluster state;
// emptiness takes no node whose count is above zero. consolidation.Node's
// BufferPods is that count.

func bufferPods(n int) nodeOption { return func(node *consolidation.Node) { node.BufferPods = n } }

var _ = register("emptiness",
	conformanceCase{Name: "buffer-pods-protect-node", Run: func(t *T) {
		expectDeleted(t, oneNode(bufferPods(3)))
	}},
	conformanceCase{Name: "buffer-pods-gone-node-removed", Run: func(t *T) {
		expectDeleted(t, oneNode(bufferPods(2)))
		expectDeleted(t, oneNode(), "node")
	}},
	conformanceCase{Name: "buffer-pods-protect-their-node-only", Run: func(t *T) {
		expectDeleted(t, oneNode(bufferPods(1)).node(managedNode("node-2", "default", cheapestSpot)), "node-2")
	}},
	conformanceCase{Name: "buffer-pods-and-real-pods-not-empty", Run: func(t *T) {
		expectDeleted(t, oneNode(withPods(pod("p", "")), bufferPods(2)))
	}},
	conformanceCase{Name: "buffer-pods-protect-each-node", Run: func(t *T) {
		expectDeleted(t, oneNode(bufferPods(2)).node(managedNode("node-2", "default", cheapestSpot, bufferPods(3))))
	}},
	conformanceCase{Name: "zero-buffer-pods-no-protection", Run: func(t *T) {
		expectDeleted(t, oneNode(bufferPods(0)), "node")
	}},
)

var _ = register("consolidation",
	conformanceCase{Name: "buffer-only-node-not-empty-consolidated", Run: func(t *T) {
		c := consolidationCluster().node(managedNode("node", "default", dearest(false), bufferPods(5)))
		expectNothing(t, c.evaluate())
	}},
	conformanceCase{Name: "buffer-and-real-pods-node-replaced", Run: func(t *T) {
		c := consolidationCluster().node(managedNode("node", "default", dearest(false), withPods(pod("p", "1")), bufferPods(2)))
		expectReplaced(t, c.evaluate(), "node", dearest(false))
	}},
	conformanceCase{Name: "buffer-only-node-no-candidate", Run: func(t *T) {
		c := consolidationCluster().
			node(managedNode("buffer-only", "default", dearest(false), allocatable("32"), bufferPods(4))).
			node(managedNode("busy", "default", dearest(false), allocatable("32"), withPods(pod("p", "1")), bufferPods(2)))
		d := c.evaluate()
		for _, cmd := range d.Commands {
			require.False(t, slices.Contains(cmd.Delete, "buffer-only"), "a buffer-only node in a command: %+v", cmd)
		}
	}},
	conformanceCase{Name: "buffer-node-consolidated-once-cleared", Run: func(t *T) {
		expectNothing(t, consolidationCluster().node(managedNode("node", "default", dearest(false), bufferPods(3))).evaluate())
		c := consolidationCluster().node(managedNode("node", "default", dearest(false)))
		require.Equal(t, []string{"node"}, deleted(c.evaluate()))
	}},
)
