package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Decision kinds the loop makes.
const (
	KindLaunch            = "launch"
	KindLaunchFailed      = "launch-failed"
	KindReady             = "ready"
	KindUnschedulable     = "unschedulable"
	KindDelete            = "delete"
	KindReplace           = "replace"
	KindValidationFailed  = "validation-failed"
	KindDisruptionAborted = "disruption-aborted"
	KindDeleteFailed      = "delete-failed"
	KindExpire            = "expire"
	KindDrifted           = "drifted"
	KindInterruption      = "interruption"
	// KindPlannerFailed: Config.Planner returned an error; the pass used
	// Karpenter's plan instead.
	KindPlannerFailed = "planner-failed"
	// KindOverlayConflict: a NodeOverlay is left out for conflicting with
	// another of equal weight.
	KindOverlayConflict = "overlay-conflict"
	// KindDrainBlocked: a node's drain waits, an eviction refused (a
	// PodDisruptionBudget allows none now, or a pod is do-not-disrupt);
	// recorded once per drain. KindDrained: such a drain ended, the node
	// deleted.
	KindDrainBlocked = "drain-blocked"
	KindDrained      = "drained"
)

// Disruption methods the loop adds to consolidation's Method* constants.
const (
	MethodExpiration   = "expiration"
	MethodInterruption = "interruption"
)

// Decision is one thing that happened, and why.
type Decision struct {
	// At is when it happened, as an offset from a start the host chooses
	// (the simulator: the start of the run). The loop leaves it zero.
	At   metav1.Duration `json:"at"`
	Kind string          `json:"kind"`
	// Method is the disruption method of delete, replace, expire and
	// interruption decisions.
	Method string `json:"method,omitempty"`
	// Nodes are the nodes acted on (sorted where there are several).
	Nodes []string `json:"nodes,omitempty"`
	// Replacements are the nodes launched to replace Nodes.
	Replacements []string `json:"replacements,omitempty"`
	// Pods counts the pods concerned: placed on a launched node, bound,
	// evicted, or the replicas of a scale.
	Pods           int     `json:"pods,omitempty"`
	InstanceType   string  `json:"instanceType,omitempty"`
	Zone           string  `json:"zone,omitempty"`
	CapacityType   string  `json:"capacityType,omitempty"`
	PricePerHour   float64 `json:"pricePerHour,omitempty"`
	SavingsPerHour float64 `json:"savingsPerHour,omitempty"`
	Reason         string  `json:"reason"`
}

// Disrupted returns the disruption method d deleted nodes by and how many,
// or "" and 0 for a decision that deleted none.
func (d Decision) Disrupted() (method string, nodes int) {
	switch d.Kind {
	case KindDelete, KindReplace, KindExpire, KindInterruption:
		return d.Method, len(d.Nodes)
	}
	return "", 0
}
