package scheduling

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// A Compiler's preparations solve as fresh solves do, however the
// NodePools vary between them: edited copies of one NodePool, others
// kept, a cut catalog, and variations met again.
func TestCompilerSolvesEqualFreshOnes(t *testing.T) {
	daemons := []*corev1.Pod{daemonSet("logging", "100m", "64Mi")}
	def := newPool("default")
	big := newPool("big", withWeight(5), withLimit(corev1.ResourceCPU, "30"))
	capped := newPool("default", withRequirement(apis.LabelInstanceCPU, corev1.NodeSelectorOpLt, "5"))
	heavy := newPool("big", withWeight(5), withLimit(corev1.ResourceCPU, "30"), withTaint("dedicated", corev1.TaintEffectNoSchedule))
	cut := Pool{NodePool: def, InstanceTypes: fake[:len(fake)/2]}
	variations := [][]Pool{
		{pool(def), pool(big)},
		{pool(capped), pool(big)},
		{cut, pool(big)},
		{pool(def), pool(heavy)},
		{pool(capped), pool(heavy)},
		{pool(def), pool(big)},
		{cut},
	}
	in := Input{Pods: append(pods(40, "web", "700m", "1Gi"), pods(7, "db", "2", "6Gi")...), Nodes: []*Node{makeNode("node-a", "default", true, "4", "8Gi")}}
	for _, opts := range []Options{{}, {Packing: PackCheapest, MinValuesBestEffort: true}, {Packing: PackEfficient}} {
		// The Prepareds of one Compiler share what their solves work out
		// from the NodePools they share, under every price cap.
		c := NewCompiler(daemons, opts)
		for i, pools := range variations {
			want := Solve(Input{Pods: in.Pods, Nodes: in.Nodes, NodePools: pools, DaemonSets: daemons, Options: opts})
			assert.Equal(t, want, c.Prepare(pools).Solve(in), "variation %d, %+v", i, opts)
			for _, below := range []float64{1.3, 0.4} {
				want, wantNarrowed := Prepare(pools, daemons, opts).SolveBelow(in, below)
				got, narrowed := c.Prepare(pools).SolveBelow(in, below)
				assert.Equal(t, wantNarrowed, narrowed)
				assert.Equal(t, want, got, "variation %d below %v, %+v", i, below, opts)
			}
		}
		// Pods queued before in one order are queued again in it only if
		// they are the same: another list of as many, from the same first
		// pod, is sorted afresh.
		other := in
		other.Pods = append(slices.Clone(in.Pods[:len(in.Pods)-1]), newPod("late", "3", "1Gi"))
		want := Solve(Input{Pods: other.Pods, Nodes: in.Nodes, NodePools: variations[0], DaemonSets: daemons, Options: opts})
		assert.Equal(t, want, c.Prepare(variations[0]).Solve(other), "%+v", opts)
	}
}
