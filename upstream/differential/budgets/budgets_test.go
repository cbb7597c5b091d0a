// Package budgets holds karpsim's disruption budget counts against
// Karpenter's own (pkg/controllers/disruption NodePoolStatsFromNodes and
// NodePoolBudgetMap, v1.15.0) on seeded random NodePools of nodes that are
// managed or not, initialized or not, Ready or not, deleting, terminating
// or rebooting, for every disruption reason. Karpenter reads the objects
// as its cluster state holds them; karpsim reads them as YAML through
// manifests and snapshot.ForDisruption, as `karpsim disrupt -f` does.
package budgets

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/budgets"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

var seeds = flag.Int("budget-seeds", 300, "how many seeded clusters to compare")

var reasons = []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty, karpv1.DisruptionReasonDrifted,
	karpv1.DisruptionReasonUnderutilized, karpv1.DisruptionReasonUnhealthy}

var now = time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)

func TestBudgetCountsMatchKarpenter(t *testing.T) {
	for seed := 1; seed <= *seeds; seed++ {
		np, nodes, claims := generate(uint64(seed))
		var stateNodes []*state.StateNode
		for i, n := range nodes {
			stateNodes = append(stateNodes, &state.StateNode{Node: n, NodeClaim: claims[i]})
		}
		set, err := manifests.Decode(fmt.Sprintf("seed-%d.yaml", seed), manifest(t, np, nodes, claims))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		view, err := snapshot.ForDisruption(set, snapshot.Options{}, now)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		clk := clocktesting.NewFakeClock(now)
		for _, reason := range reasons {
			numNodes, disrupting := disruption.NodePoolStatsFromNodes(stateNodes, reason)
			want := disruption.NodePoolBudgetMap(context.Background(), clk, map[string]*karpv1.NodePool{np.Name: np}, numNodes, disrupting, reason)[np.Name]
			got := consolidation.AllowedDisruptions(view.Cluster, now, apis.DisruptionReason(reason))[np.Name]
			// No active budget: Karpenter allows MaxInt32 less the nodes
			// disrupting, karpsim budgets.Unlimited; either is more than
			// any cluster here has nodes.
			if want > math.MaxInt32-1000 && got == budgets.Unlimited {
				continue
			}
			if got != want {
				t.Errorf("seed %d, %s: karpsim allows %d, Karpenter %d (Karpenter counts %d nodes, %d disrupting)",
					seed, reason, got, want, numNodes[np.Name], disrupting[np.Name])
			}
		}
	}
}

// generate is one NodePool with random budgets and 1-12 nodes of it.
func generate(seed uint64) (*karpv1.NodePool, []*corev1.Node, []*karpv1.NodeClaim) {
	r := rand.New(rand.NewPCG(seed, 0x62756467))
	np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	np.Spec.Template.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	np.Spec.Template.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{}
	np.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("0s")
	np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized
	for range 1 + r.IntN(3) {
		b := karpv1.Budget{Nodes: fmt.Sprint(r.IntN(6))}
		if r.IntN(2) == 0 {
			b.Nodes = fmt.Sprintf("%d%%", r.IntN(101))
		}
		if r.IntN(2) == 0 {
			for _, reason := range reasons {
				if r.IntN(2) == 0 {
					b.Reasons = append(b.Reasons, reason)
				}
			}
		}
		np.Spec.Disruption.Budgets = append(np.Spec.Disruption.Budgets, b)
	}
	var nodes []*corev1.Node
	var claims []*karpv1.NodeClaim
	for i := range 1 + r.IntN(12) {
		name := fmt.Sprintf("node-%d", i)
		providerID := "aws:///us-east-1a/i-" + fmt.Sprintf("%017d", i)
		labels := map[string]string{corev1.LabelInstanceTypeStable: "m5.large", corev1.LabelTopologyZone: "us-east-1a",
			karpv1.CapacityTypeLabelKey: karpv1.CapacityTypeOnDemand, corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux"}
		managed := r.IntN(8) != 0
		if managed {
			labels[karpv1.NodePoolLabelKey] = np.Name
			labels[karpv1.NodeRegisteredLabelKey] = "true"
			if r.IntN(4) != 0 {
				labels[karpv1.NodeInitializedLabelKey] = "true"
			}
		}
		ready := []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}[r.IntN(4)]
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(now.Add(-24 * time.Hour))},
			Spec: corev1.NodeSpec{ProviderID: providerID},
			Status: corev1.NodeStatus{
				Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("29")},
				Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1930m"), corev1.ResourceMemory: resource.MustParse("7Gi"), corev1.ResourcePods: resource.MustParse("29")},
				Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, LastHeartbeatTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}},
			}}
		nodes = append(nodes, node)
		if !managed {
			claims = append(claims, nil)
			continue
		}
		claim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claim-" + name, Labels: map[string]string{karpv1.NodePoolLabelKey: np.Name,
			corev1.LabelInstanceTypeStable: "m5.large", corev1.LabelTopologyZone: "us-east-1a", karpv1.CapacityTypeLabelKey: karpv1.CapacityTypeOnDemand},
			CreationTimestamp: metav1.NewTime(now.Add(-24 * time.Hour))}}
		claim.Spec.NodeClassRef = np.Spec.Template.Spec.NodeClassRef
		claim.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{}
		claim.Status.NodeName, claim.Status.ProviderID = name, providerID
		conditions := []status.Condition{{Type: karpv1.ConditionTypeLaunched, Status: metav1.ConditionTrue, Reason: "Launched", LastTransitionTime: metav1.NewTime(now.Add(-24 * time.Hour))}}
		if labels[karpv1.NodeInitializedLabelKey] == "true" {
			conditions = append(conditions, status.Condition{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, Reason: "Initialized", LastTransitionTime: metav1.NewTime(now.Add(-23 * time.Hour))})
		}
		switch r.IntN(5) {
		case 0:
			reason := []string{karpv1.RebootReasonRequested, karpv1.RebootReasonIssued}[r.IntN(2)]
			conditions = append(conditions, status.Condition{Type: karpv1.ConditionTypeRebooting, Status: metav1.ConditionTrue, Reason: reason, Message: "rebooting", LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))})
		case 1:
			conditions = append(conditions, status.Condition{Type: karpv1.ConditionTypeRebooting, Status: metav1.ConditionFalse, Reason: karpv1.RebootReasonSucceeded, LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))})
		}
		if r.IntN(8) == 0 {
			conditions = append(conditions, status.Condition{Type: karpv1.ConditionTypeInstanceTerminating, Status: metav1.ConditionTrue, Reason: "InstanceTerminating", LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))})
		}
		claim.Status.Conditions = conditions
		if r.IntN(6) == 0 {
			// Deleting: the claim, and its node with it, as Karpenter's
			// termination deletes them (a managed node deleted alone is
			// not marked for deletion in Karpenter's state).
			ts := metav1.NewTime(now.Add(-time.Minute))
			claim.DeletionTimestamp, node.DeletionTimestamp = &ts, &ts
			claim.Finalizers, node.Finalizers = []string{karpv1.TerminationFinalizer}, []string{karpv1.TerminationFinalizer}
		}
		claims = append(claims, claim)
	}
	return np, nodes, claims
}

// manifest writes the objects, with an EC2NodeClass for the NodePool, as
// one YAML stream.
func manifest(t *testing.T, np *karpv1.NodePool, nodes []*corev1.Node, claims []*karpv1.NodeClaim) []byte {
	t.Helper()
	var buf bytes.Buffer
	write := func(apiVersion, kind string, obj any) {
		data, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		var tree map[string]any
		if err := yaml.Unmarshal(data, &tree); err != nil {
			t.Fatal(err)
		}
		tree["apiVersion"], tree["kind"] = apiVersion, kind
		out, err := yaml.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(out)
	}
	class := &awsv1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	class.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{Alias: "al2023@latest"}}
	class.Spec.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "test"}}}
	class.Spec.SecurityGroupSelectorTerms = []awsv1.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "test"}}}
	class.Spec.Role = "KarpenterNodeRole"
	write("karpenter.k8s.aws/v1", "EC2NodeClass", class)
	write("karpenter.sh/v1", "NodePool", np)
	for i, n := range nodes {
		write("v1", "Node", n)
		if claims[i] != nil {
			write("karpenter.sh/v1", "NodeClaim", claims[i])
		}
	}
	return buf.Bytes()
}
