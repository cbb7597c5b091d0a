package provider

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/repair"
)

// RepairPolicies are the AWS provider's repair policies at v1.15.0
// (CloudProvider.RepairPolicies): the kubelet's Ready condition False or
// Unknown, and the conditions of the EKS Node Monitoring Agent. Its
// AcceleratedHardwareReady policies split GPU faults by the XID code in the
// condition's reason: transient ones reboot (with RebootForRepair, else
// replace), fatal ones replace after the same 10 minutes, and an unknown
// XID falls back to a replacement after 30 minutes, the set's one default
// fallback.
func (a *AWS) RepairPolicies() []repair.Policy {
	transient := repair.Replace
	if a.RebootForRepair {
		transient = repair.Reboot
	}
	readyLike := func(condition corev1.NodeConditionType, status corev1.ConditionStatus) repair.Policy {
		return repair.Policy{ConditionType: condition, ConditionStatus: status, ReasonRegex: ".*", Toleration: 30 * time.Minute,
			TerminationGracePeriod: minutes(10), Action: repair.Replace}
	}
	return []repair.Policy{
		readyLike(corev1.NodeReady, corev1.ConditionFalse),
		readyLike(corev1.NodeReady, corev1.ConditionUnknown),
		{ConditionType: "AcceleratedHardwareReady", ConditionStatus: corev1.ConditionFalse,
			ReasonRegex: `.*XID(46|48|54|62|63|95|109|110|136|140|143|155|156|158).*`,
			Toleration:  10 * time.Minute, TerminationGracePeriod: minutes(5), Action: transient},
		{ConditionType: "AcceleratedHardwareReady", ConditionStatus: corev1.ConditionFalse,
			ReasonRegex: `.*XID(64|74|79|119|120).*`,
			Toleration:  10 * time.Minute, TerminationGracePeriod: minutes(5), Action: repair.Replace},
		{ConditionType: "AcceleratedHardwareReady", ConditionStatus: corev1.ConditionFalse,
			Toleration: 30 * time.Minute, TerminationGracePeriod: minutes(10), Action: repair.Replace},
		readyLike("StorageReady", corev1.ConditionFalse),
		readyLike("NetworkingReady", corev1.ConditionFalse),
		readyLike("KernelReady", corev1.ConditionFalse),
		readyLike("ContainerRuntimeReady", corev1.ConditionFalse),
	}
}

// RepairPolicies are the Azure provider's at v1.14.2, written for the
// node repair controller Karpenter v1.15 replaced: none names a reason or an
// action, so repair.Compile refuses them (more than one default fallback,
// no action) as Karpenter v1.15 does when NodeRepair is on.
func (*Azure) RepairPolicies() []repair.Policy {
	return []repair.Policy{
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, Toleration: 10 * time.Minute},
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown, Toleration: 10 * time.Minute},
		{ConditionType: "kubernetes.azure.com/NodeHealthy", ConditionStatus: corev1.ConditionFalse},
		{ConditionType: "PreemptionScheduled", ConditionStatus: corev1.ConditionTrue},
	}
}

func minutes(n int) *time.Duration {
	d := time.Duration(n) * time.Minute
	return &d
}
