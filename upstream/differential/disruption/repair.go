package disruption

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/repair"
)

// unhealthyConditions are the faults GenerateUnhealthy gives nodes: the
// AWS provider's policies cover all but the last (a condition no policy
// names); the XID 13 reason falls to the AcceleratedHardwareReady fallback.
var unhealthyConditions = []corev1.NodeCondition{
	{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady"},
	{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown"},
	{Type: "AcceleratedHardwareReady", Status: corev1.ConditionFalse, Reason: "NvidiaXID79Fatal"},
	{Type: "AcceleratedHardwareReady", Status: corev1.ConditionFalse, Reason: "NvidiaXID13Error"},
	{Type: "StorageReady", Status: corev1.ConditionFalse, Reason: "DiskPressureFatal"},
	{Type: "KernelReady", Status: corev1.ConditionFalse, Reason: "KernelBug"},
	{Type: "NetworkingReady", Status: corev1.ConditionFalse, Reason: "IPAMDNotReady"},
	{Type: "ExampleDiagnostic", Status: corev1.ConditionFalse, Reason: "Unknown"},
}

// GenerateUnhealthy is Generate's cluster with node faults for node repair:
// each node, with a chance of one in three, gets one or two of
// unhealthyConditions, turned so at a minute between at and at + span
// (its Ready condition replaced when the fault is Ready's); one such node
// in six never initialized (a third of those never registered), and one
// in eight carries karpenter.sh/do-not-repair.
func GenerateUnhealthy(seed uint64, at time.Time, span time.Duration) *Cluster {
	c := Generate(seed, at)
	r := rand.New(rand.NewPCG(seed, 0x7265706169722121))
	for _, n := range c.Nodes {
		if r.IntN(3) != 0 {
			continue
		}
		for range 1 + r.IntN(2) {
			cond := unhealthyConditions[r.IntN(len(unhealthyConditions))]
			since := metav1.NewTime(at.Add(time.Duration(r.IntN(int(span/time.Minute))) * time.Minute))
			cond.LastTransitionTime, cond.LastHeartbeatTime = since, since
			replaced := false
			for i := range n.Status.Conditions {
				if n.Status.Conditions[i].Type == cond.Type {
					n.Status.Conditions[i], replaced = cond, true
				}
			}
			if !replaced {
				n.Status.Conditions = append(n.Status.Conditions, cond)
			}
		}
		// One unhealthy node in six never initialized; one in three of
		// those never registered either.
		if r.IntN(6) == 0 {
			uninitialize(c, n, r.IntN(3) == 0)
		}
		if r.IntN(8) == 0 {
			if n.Annotations == nil {
				n.Annotations = map[string]string{}
			}
			n.Annotations[karpv1.DoNotRepairAnnotationKey] = "true"
		}
	}
	return c
}

// uninitialize makes the node one that registered but never initialized:
// no initialized label on the node, no Initialized condition on its claim;
// unregistered drops the registered label and condition too.
func uninitialize(c *Cluster, n *corev1.Node, unregistered bool) {
	delete(n.Labels, karpv1.NodeInitializedLabelKey)
	drop := []string{karpv1.ConditionTypeInitialized}
	if unregistered {
		delete(n.Labels, karpv1.NodeRegisteredLabelKey)
		drop = append(drop, karpv1.ConditionTypeRegistered)
	}
	for _, claim := range c.NodeClaims {
		if claim.Status.NodeName != n.Name {
			continue
		}
		claim.Status.Conditions = slices.DeleteFunc(claim.Status.Conditions, func(s status.Condition) bool { return slices.Contains(drop, s.Type) })
	}
}

// AWSRepairPolicies are karpsim's copy of the AWS provider's repair
// policies (package provider) in Karpenter's type, for its fake cloud
// provider: the differential run compares both sides on the same set.
func AWSRepairPolicies() []cloudprovider.RepairPolicy {
	var out []cloudprovider.RepairPolicy
	for _, p := range (&provider.AWS{}).RepairPolicies() {
		out = append(out, cloudprovider.RepairPolicy{ConditionType: p.ConditionType, ConditionStatus: p.ConditionStatus,
			ReasonRegex: p.ReasonRegex, TolerationDuration: p.Toleration, TerminationGracePeriod: p.TerminationGracePeriod,
			Priority: p.Priority, Action: cloudprovider.RepairAction(p.Action)})
	}
	return out
}

// karpsimRepair is karpsim's side's matcher over the same policies.
func karpsimRepair() (*repair.Matcher, error) {
	return repair.Compile((&provider.AWS{}).RepairPolicies())
}
