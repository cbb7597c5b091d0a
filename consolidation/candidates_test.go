package consolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
)

// blockingCluster has one candidate, "target" (2 CPUs, a 500m pod), whose
// pod fits on "other", an unmanaged 4-CPU node: unless something blocks
// it, single-node consolidation deletes target.
func blockingCluster(poolOpts ...poolOption) (Cluster, *Node) {
	target := newNode("target", "default", 2, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("web", "500m")})
	other := newNode("other", "", 4, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("db", "1", withLabel("app", "db"))}, unmanaged)
	return Cluster{Nodes: []*Node{target, other}, NodePools: pools(newPool("default", poolOpts...))}, target
}

func TestEveryBlockingRuleIsNamed(t *testing.T) {
	intOr := func(i int) *intstr.IntOrString { v := intstr.FromInt32(int32(i)); return &v }
	for _, tc := range []struct {
		name   string
		pool   []poolOption
		mutate func(c *Cluster, target *Node)
		// want is a part of target's reason; "" means target is deleted.
		want string
		// empty is set when target is deleted as empty, its pod gone.
		empty bool
	}{
		{name: "nothing blocks"},
		{name: "unmanaged", mutate: func(_ *Cluster, n *Node) { unmanaged(n) }, want: "not managed by Karpenter (no NodeClaim)"},
		{name: "not initialized", mutate: func(_ *Cluster, n *Node) { uninitialized(n) }, want: "not initialized"},
		{name: "deleting", mutate: func(_ *Cluster, n *Node) { deleting(n) }, want: "being deleted"},
		{name: "nominated 10s ago", mutate: func(_ *Cluster, n *Node) { n.NominatedAt = now.Add(-10 * time.Second) }, want: "nominated for a pending pod (10s left)"},
		{name: "nominated 20s ago", mutate: func(_ *Cluster, n *Node) { n.NominatedAt = now.Add(-20 * time.Second) }},
		{name: "node do-not-disrupt", mutate: func(_ *Cluster, n *Node) { n.Annotations = map[string]string{apis.AnnotationDoNotDisrupt: "true"} },
			want: `has the karpenter.sh/do-not-disrupt: "true" annotation`},
		{name: "no NodePool label", mutate: func(_ *Cluster, n *Node) { delete(n.Node.Labels, apis.LabelNodePool) }, want: "has no karpenter.sh/nodepool label"},
		{name: "unknown NodePool", mutate: func(_ *Cluster, n *Node) { n.Node.Labels[apis.LabelNodePool] = "ghost" }, want: "NodePool ghost not found"},
		{name: "pod do-not-disrupt", mutate: func(_ *Cluster, n *Node) { withAnnotation(apis.AnnotationDoNotDisrupt, "true")(n.Node.Pods[0]) },
			want: `pod default/web has the karpenter.sh/do-not-disrupt annotation ("true")`},
		{name: "pod do-not-disrupt for a duration not elapsed", mutate: func(_ *Cluster, n *Node) {
			withAnnotation(apis.AnnotationDoNotDisrupt, "1h")(n.Node.Pods[0])
			startedAgo(30 * time.Minute)(n.Node.Pods[0])
		}, want: `pod default/web has the karpenter.sh/do-not-disrupt annotation ("1h", 30m0s left)`},
		{name: "pod do-not-disrupt for a duration elapsed", mutate: func(_ *Cluster, n *Node) {
			withAnnotation(apis.AnnotationDoNotDisrupt, "1h")(n.Node.Pods[0])
			startedAgo(2 * time.Hour)(n.Node.Pods[0])
		}},
		{name: "terminating pod's do-not-disrupt is ignored", mutate: func(_ *Cluster, n *Node) {
			withAnnotation(apis.AnnotationDoNotDisrupt, "true")(n.Node.Pods[0])
			terminatingPod(n.Node.Pods[0])
		}, empty: true},
		{name: "PDB with 0 disruptions allowed", mutate: func(c *Cluster, _ *Node) {
			c.PDBs = append(c.PDBs, newPDB("web-pdb", intOr(1), nil, map[string]string{"app": "web"}))
		}, want: "blocked by PDB default/web-pdb (0 disruptions allowed) of pod default/web"},
		{name: "PDB allowing one disruption", mutate: func(c *Cluster, _ *Node) {
			c.PDBs = append(c.PDBs, newPDB("web-pdb", nil, intOr(1), map[string]string{"app": "web"}))
		}},
		{name: "pod under two PDBs", mutate: func(c *Cluster, _ *Node) {
			c.PDBs = append(c.PDBs, newPDB("b", nil, intOr(1), map[string]string{"app": "web"}), newPDB("a", nil, intOr(1), map[string]string{"app": "web"}))
		}, want: "pod default/web is selected by more than one PDB (default/a, default/b)"},
		{name: "PDB status wins over its spec", mutate: func(c *Cluster, _ *Node) {
			b := newPDB("web-pdb", nil, intOr(1), map[string]string{"app": "web"})
			b.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 0}
			c.PDBs = append(c.PDBs, b)
		}, want: "blocked by PDB default/web-pdb (0 disruptions allowed)"},
		{name: "consolidateAfter not elapsed", pool: []poolOption{withConsolidateAfter("5m")},
			mutate: func(_ *Cluster, n *Node) { lastPodEvent(150 * time.Second)(n) }, want: "consolidateAfter 5m not elapsed (2m30s left)"},
		{name: "consolidateAfter counts from initialization", pool: []poolOption{withConsolidateAfter("2h")},
			want: "consolidateAfter 2h not elapsed (1h0m0s left)"},
		{name: "consolidateAfter elapsed", pool: []poolOption{withConsolidateAfter("5m")}, mutate: func(_ *Cluster, n *Node) { lastPodEvent(6 * time.Minute)(n) }},
		{name: "consolidation disabled", pool: []poolOption{withConsolidateAfter("Never")}, want: "NodePool default has consolidation disabled (consolidateAfter: Never)"},
		{name: "WhenEmpty pool", pool: []poolOption{withPolicy(apis.ConsolidationPolicyWhenEmpty)},
			want: "NodePool default has consolidation policy WhenEmpty and the node is not empty"},
		{name: "static pool", pool: []poolOption{withReplicas(1)}, want: "NodePool default is static (replicas set): it is not consolidated"},
		{name: "budget of 0", pool: []poolOption{withBudgets(apis.Budget{Nodes: "0"})},
			want: "budget of NodePool default allows no Underutilized disruption: 0 nodes (budget 0) of 1 nodes, 0 already disrupting"},
		{name: "budget for another reason", pool: []poolOption{withBudgets(apis.Budget{Nodes: "0", Reasons: []apis.DisruptionReason{apis.DisruptionReasonDrifted}})}},
		{name: "unknown instance type", mutate: func(_ *Cluster, n *Node) { n.Node.Labels[apis.LabelInstanceType] = "mystery" },
			want: `instance type "mystery" not found in NodePool default's catalog`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, target := blockingCluster(tc.pool...)
			if tc.mutate != nil {
				tc.mutate(&c, target)
			}
			d := Evaluate(c, now, Options{})
			v := verdict(t, d, "target")
			if tc.want == "" {
				require.Len(t, d.Commands, 1, "verdicts: %v", d.Candidates)
				assert.Equal(t, []string{"target"}, d.Commands[0].Delete)
				assert.True(t, v.Disruptable)
				if tc.empty {
					assert.Equal(t, MethodEmptiness, d.Commands[0].Method)
				} else {
					assert.Equal(t, []Move{{Pod: "default/web", To: "other"}}, d.Commands[0].Moves)
				}
				return
			}
			requireNoCommand(t, d)
			assert.False(t, v.Disruptable)
			assert.Contains(t, v.Reason, tc.want)
		})
	}
}

func TestUnmanagedNodesAreNeverCandidates(t *testing.T) {
	c, _ := blockingCluster()
	d := Evaluate(c, now, Options{})
	v := verdict(t, d, "other")
	assert.Equal(t, CandidateVerdict{Node: "other", Reason: "not managed by Karpenter (no NodeClaim)"}, v)
}
