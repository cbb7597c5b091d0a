package apis

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Operators a requirement may use besides corev1's In, NotIn, Exists,
// DoesNotExist, Gt and Lt. Gte and Lte compare integers inclusively.
const (
	NodeSelectorOpGte corev1.NodeSelectorOperator = "Gte"
	NodeSelectorOpLte corev1.NodeSelectorOperator = "Lte"
)

// Kinds karpsim reads in the karpenter.sh and karpenter.k8s.aws groups.
const (
	KindNodePool     = "NodePool"
	KindNodeClaim    = "NodeClaim"
	KindEC2NodeClass = "EC2NodeClass"
)

// NodePool is a karpenter.sh/v1 NodePool: a template for the NodeClaims
// Karpenter may create, with limits and disruption rules.
type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NodePoolSpec   `json:"spec"`
	Status NodePoolStatus `json:"status,omitempty"`
}

// NodePoolSpec is what a NodePool may launch and how its nodes are disrupted.
type NodePoolSpec struct {
	// Template is the shape of every NodeClaim made from this pool.
	Template NodeClaimTemplate `json:"template"`
	// Disruption configures consolidation and disruption budgets.
	Disruption Disruption `json:"disruption"`
	// Limits caps the summed capacity of the pool's nodes.
	Limits corev1.ResourceList `json:"limits,omitempty"`
	// Weight orders pools during scheduling, higher first; nil counts as 0.
	Weight *int32 `json:"weight,omitempty"`
	// Replicas, when set, makes the pool static: it keeps this many nodes
	// regardless of pending pods (alpha upstream).
	Replicas *int64 `json:"replicas,omitempty"`
}

// NodeClaimTemplate is the metadata and spec copied into new NodeClaims.
type NodeClaimTemplate struct {
	ObjectMeta TemplateMetadata      `json:"metadata,omitempty"`
	Spec       NodeClaimTemplateSpec `json:"spec"`
}

// TemplateMetadata is the part of ObjectMeta a NodeClaim template may set.
type TemplateMetadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NodeClaimTemplateSpec is a NodeClaimSpec without resource requests.
type NodeClaimTemplateSpec struct {
	// Taints are set on the node; pods must tolerate them.
	Taints []corev1.Taint `json:"taints,omitempty"`
	// StartupTaints are set on the node at launch and expected to be removed
	// by something else; pods need not tolerate them to be provisioned for.
	StartupTaints []corev1.Taint `json:"startupTaints,omitempty"`
	// Requirements constrain the labels (instance type, zone, ...) of nodes.
	Requirements []NodeSelectorRequirementWithMinValues `json:"requirements"`
	// NodeClassRef names the provider configuration (an EC2NodeClass).
	NodeClassRef *NodeClassReference `json:"nodeClassRef"`
	// ExpireAfter is how long after creation a node is replaced; default 720h.
	ExpireAfter NillableDuration `json:"expireAfter,omitempty"`
	// TerminationGracePeriod bounds how long draining a node may take.
	TerminationGracePeriod *metav1.Duration `json:"terminationGracePeriod,omitempty"`
}

// NodeSelectorRequirementWithMinValues is a node selector requirement that
// may also demand at least MinValues distinct values across the instance
// types a NodeClaim may launch as.
type NodeSelectorRequirementWithMinValues struct {
	Key       string                      `json:"key"`
	Operator  corev1.NodeSelectorOperator `json:"operator"`
	Values    []string                    `json:"values,omitempty"`
	MinValues *int                        `json:"minValues,omitempty"`
}

// NodeClassReference names a cluster-scoped provider node class.
type NodeClassReference struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

// Disruption holds a NodePool's consolidation settings and budgets.
type Disruption struct {
	// ConsolidateAfter is how long a node must go without pod events before
	// it may be consolidated; "Never" disables consolidation.
	ConsolidateAfter NillableDuration `json:"consolidateAfter"`
	// ConsolidationPolicy says which nodes consolidation may act on.
	ConsolidationPolicy ConsolidationPolicy `json:"consolidationPolicy,omitempty"`
	// Budgets limit how many nodes may be disrupted at once.
	Budgets []Budget `json:"budgets,omitempty"`
}

// ConsolidationPolicy says which nodes consolidation may remove or replace.
type ConsolidationPolicy string

// The consolidation policies of karpenter.sh/v1.
const (
	ConsolidationPolicyWhenEmpty                ConsolidationPolicy = "WhenEmpty"
	ConsolidationPolicyWhenEmptyOrUnderutilized ConsolidationPolicy = "WhenEmptyOrUnderutilized"
	// ConsolidationPolicyBalanced (Karpenter v1.14) consolidates only when
	// a move's savings justify the disruption it causes.
	ConsolidationPolicyBalanced ConsolidationPolicy = "Balanced"
)

// DisruptionReason is a disruption method a budget may be limited to.
type DisruptionReason string

// The disruption reasons a budget may name.
const (
	DisruptionReasonUnderutilized DisruptionReason = "Underutilized"
	DisruptionReasonEmpty         DisruptionReason = "Empty"
	DisruptionReasonDrifted       DisruptionReason = "Drifted"
	// DisruptionReasonUnhealthy (v1.15) paces node repair, which karpsim
	// does not run: budgets for it are read and counted, no method uses
	// them.
	DisruptionReasonUnhealthy DisruptionReason = "Unhealthy"
)

// Budget caps the number of a pool's nodes being disrupted at once, for some
// or all reasons, always or during a cron-scheduled window.
type Budget struct {
	// Reasons limits the budget to these methods; empty means all.
	Reasons []DisruptionReason `json:"reasons,omitempty"`
	// Nodes is a count ("5") or a percentage of the pool's nodes ("10%").
	Nodes string `json:"nodes"`
	// Schedule is a cron expression in UTC at which the budget turns active.
	Schedule *string `json:"schedule,omitempty"`
	// Duration is how long the budget stays active after each Schedule hit.
	Duration *metav1.Duration `json:"duration,omitempty"`
}

// MarshalJSON writes Duration the way the CRD's pattern states it, in hours
// and minutes ("8h", "30m", "1h30m", "0m"), where metav1.Duration writes
// "8h0m0s" and, for zero, "0s", which the pattern refuses: a NodePool
// karpsim writes out (a sweep's patched manifests) reads back.
func (b Budget) MarshalJSON() ([]byte, error) {
	type fields Budget // without this method
	out := struct {
		fields
		Duration *string `json:"duration,omitempty"`
	}{fields: fields(b)}
	if b.Duration != nil {
		text := budgetDuration(b.Duration.Duration)
		out.Duration = &text
	}
	return json.Marshal(out)
}

// budgetDuration writes d in hours and minutes; what they cannot state
// (seconds, a negative duration), which validation refuses, is written as
// time.Duration writes it.
func budgetDuration(d time.Duration) string {
	if d < 0 || d%time.Minute != 0 {
		return d.String()
	}
	hours, minutes := d/time.Hour, (d%time.Hour)/time.Minute
	switch {
	case hours > 0 && minutes > 0:
		return fmt.Sprintf("%dh%dm", hours, minutes)
	case hours > 0:
		return fmt.Sprintf("%dh", hours)
	default:
		return fmt.Sprintf("%dm", minutes)
	}
}

// NodePoolStatus is the observed state of a NodePool.
type NodePoolStatus struct {
	Resources                   corev1.ResourceList `json:"resources,omitempty"`
	Nodes                       *int64              `json:"nodes,omitempty"`
	NodeClassObservedGeneration int64               `json:"nodeClassObservedGeneration,omitempty"`
	Conditions                  []metav1.Condition  `json:"conditions,omitempty"`
}

// DeepCopy returns a copy of the NodePool that shares no memory with it.
func (in *NodePool) DeepCopy() *NodePool {
	if in == nil {
		return nil
	}
	out := &NodePool{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = NodePoolSpec{
		Template:   in.Spec.Template.DeepCopy(),
		Disruption: in.Spec.Disruption.DeepCopy(),
		Limits:     in.Spec.Limits.DeepCopy(),
		Weight:     copyPtr(in.Spec.Weight),
		Replicas:   copyPtr(in.Spec.Replicas),
	}
	out.Status = NodePoolStatus{
		Resources:                   in.Status.Resources.DeepCopy(),
		Nodes:                       copyPtr(in.Status.Nodes),
		NodeClassObservedGeneration: in.Status.NodeClassObservedGeneration,
		Conditions:                  copyConditions(in.Status.Conditions),
	}
	return out
}

// DeepCopy returns a copy of the template that shares no memory with it.
func (in NodeClaimTemplate) DeepCopy() NodeClaimTemplate {
	return NodeClaimTemplate{
		ObjectMeta: TemplateMetadata{
			Labels:      copyMap(in.ObjectMeta.Labels),
			Annotations: copyMap(in.ObjectMeta.Annotations),
		},
		Spec: NodeClaimTemplateSpec{
			Taints:                 CopyTaints(in.Spec.Taints),
			StartupTaints:          CopyTaints(in.Spec.StartupTaints),
			Requirements:           CopyRequirements(in.Spec.Requirements),
			NodeClassRef:           copyPtr(in.Spec.NodeClassRef),
			ExpireAfter:            in.Spec.ExpireAfter.DeepCopy(),
			TerminationGracePeriod: copyPtr(in.Spec.TerminationGracePeriod),
		},
	}
}

// DeepCopy returns a copy of the disruption settings sharing no memory.
func (in Disruption) DeepCopy() Disruption {
	out := in
	out.ConsolidateAfter = in.ConsolidateAfter.DeepCopy()
	if in.Budgets != nil {
		out.Budgets = make([]Budget, len(in.Budgets))
		for i, b := range in.Budgets {
			out.Budgets[i] = Budget{
				Reasons:  slices.Clone(b.Reasons),
				Nodes:    b.Nodes,
				Schedule: copyPtr(b.Schedule),
				Duration: copyPtr(b.Duration),
			}
		}
	}
	return out
}

// CopyRequirements returns a deep copy of reqs (nil stays nil).
func CopyRequirements(reqs []NodeSelectorRequirementWithMinValues) []NodeSelectorRequirementWithMinValues {
	if reqs == nil {
		return nil
	}
	out := make([]NodeSelectorRequirementWithMinValues, len(reqs))
	for i, r := range reqs {
		out[i] = NodeSelectorRequirementWithMinValues{
			Key:       r.Key,
			Operator:  r.Operator,
			Values:    slices.Clone(r.Values),
			MinValues: copyPtr(r.MinValues),
		}
	}
	return out
}

// copyPtr returns a pointer to a copy of *p, or nil. Only for types whose
// value copy is deep (no pointers, slices or maps inside).
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func copyMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return nil
	}
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// CopyTaints returns a deep copy of taints (nil for nil).
func CopyTaints(taints []corev1.Taint) []corev1.Taint {
	if taints == nil {
		return nil
	}
	out := make([]corev1.Taint, len(taints))
	for i := range taints {
		taints[i].DeepCopyInto(&out[i])
	}
	return out
}

func copyConditions(conditions []metav1.Condition) []metav1.Condition {
	if conditions == nil {
		return nil
	}
	out := make([]metav1.Condition, len(conditions))
	for i := range conditions {
		conditions[i].DeepCopyInto(&out[i])
	}
	return out
}
