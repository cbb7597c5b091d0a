package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// Result is what Karpenter would do for the input's pods.
type Result struct {
	// NodeClaims are the new NodeClaims to launch, in creation order.
	NodeClaims []NodeClaim `json:"nodeClaims"`
	// Bindings place pods on existing or in-flight nodes, sorted by pod.
	Bindings []Binding `json:"bindings"`
	// Unschedulable are the pods that fit nowhere, sorted by pod, each with
	// the reason every option refused it.
	Unschedulable []Unschedulable `json:"unschedulable"`
	Summary       Summary         `json:"summary"`
	// Warnings name what the input asked for that karpsim does not model,
	// and what of it could not be read, such as a bound pod's requests.
	Warnings []string `json:"warnings,omitempty"`
}

// NodeClaim is a new node to launch.
type NodeClaim struct {
	// Name is "<nodepool>-<n>", n counting the pool's new claims from 1.
	Name     string `json:"name"`
	NodePool string `json:"nodePool"`
	// InstanceType, Zone, CapacityType and PricePerHour are the launch
	// choice: the cheapest available offering the claim allows, spot when
	// spot is allowed and offered, reserved first when reserved is, among
	// the offerings the AWS provider's launch filters leave (LaunchOptions:
	// no bare-metal or accelerated type while another fits, no spot
	// offering dearer than the cheapest on-demand one).
	InstanceType string  `json:"instanceType"`
	CapacityType string  `json:"capacityType"`
	Zone         string  `json:"zone"`
	PricePerHour float64 `json:"pricePerHour"`
	// InstanceTypeOptions are every instance type the claim may launch,
	// cheapest first, truncated to Options.MaxInstanceTypes. NodeClaims
	// of one Result share lists, or parts of one, as they share
	// LaunchOptions and their Requirements' values: they are not to be
	// changed in place.
	InstanceTypeOptions []string `json:"instanceTypeOptions"`
	// LaunchOptions are the instance types Karpenter's AWS provider offers
	// EC2 when it launches the claim (its CreateFleet overrides): of at
	// most instancetypes.MaxLaunchOptions of InstanceTypeOptions, exotic
	// types and dearer spot offerings set aside (see launchFilter), those
	// with an offering of CapacityType. InstanceType is one of them. Plans
	// leave them out.
	LaunchOptions []string `json:"-"`
	// Requirements are the claim's label requirements (NodePool, pods and
	// topology combined).
	Requirements []corev1.NodeSelectorRequirement `json:"requirements"`
	// MinValuesRelaxed are the minValues MinValuesPolicy BestEffort let the
	// claim fall short of, by key, each lowered to the distinct values its
	// instance types have, as Karpenter writes them on the NodeClaim; nil
	// when it falls short of none.
	MinValuesRelaxed map[string]int `json:"minValuesRelaxed,omitempty"`
	// Requests are the pods' requests plus the smallest DaemonSet overhead
	// among the instance-type options.
	Requests map[string]string `json:"requests"`
	// Pods are "namespace/name" of the pods placed on the claim, in the
	// order they were placed.
	Pods []string `json:"pods"`
	// BufferPods counts the CapacityBuffer virtual pods among Pods: room
	// the claim holds for pods not yet created.
	BufferPods int `json:"bufferPods,omitempty"`
}

// Binding places a pod on an existing node or an in-flight NodeClaim.
type Binding struct {
	Pod  string `json:"pod"`
	Node string `json:"node"`
	// Buffer marks a CapacityBuffer's virtual pod: the node has room for
	// it, and nothing binds.
	Buffer bool `json:"buffer,omitempty"`
}

// Unschedulable is a pod that fits nowhere, and why.
type Unschedulable struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
	// Buffer marks a CapacityBuffer's virtual pod.
	Buffer bool `json:"buffer,omitempty"`
}

// Summary counts the result.
type Summary struct {
	Pods              int     `json:"pods"`
	ScheduledPods     int     `json:"scheduledPods"`
	UnschedulablePods int     `json:"unschedulablePods"`
	NodeClaims        int     `json:"nodeClaims"`
	PricePerHour      float64 `json:"pricePerHour"`
	// BufferPods counts the CapacityBuffer virtual pods among Pods, and
	// ScheduledBufferPods those of them placed.
	BufferPods          int `json:"bufferPods,omitempty"`
	ScheduledBufferPods int `json:"scheduledBufferPods,omitempty"`
}

// LaunchLabels are the labels a node launched for the claim carries: the
// instance type's, the NodePool template's, every single-valued In
// requirement of the claim, the type's label choices the claim leaves
// open (InstanceType.LaunchLabelChoice: default tenancy unless the claim
// rules it out), and the offering's (its zone, capacity type and Label),
// pool, hostname and type. The map is
// new; the caller may change it.
func (c *NodeClaim) LaunchLabels(it *instancetypes.InstanceType, np *apis.NodePool) map[string]string {
	labels := it.Labels()
	for k, v := range np.Spec.Template.ObjectMeta.Labels {
		labels[k] = v
	}
	for _, r := range c.Requirements {
		if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
			labels[r.Key] = r.Values[0]
		}
	}
	if len(it.LabelChoices) > 0 {
		// The claim's requirements were built from valid requirements, so
		// they read back; a label it sets to one value is set above.
		reqs, _ := requirements.FromNodeSelectorRequirements(c.Requirements...)
		for key := range it.LabelChoices {
			if _, set := labels[key]; set {
				continue
			}
			if v, ok := it.LaunchLabelChoice(key, reqs); ok {
				labels[key] = v
			}
		}
	}
	labels[apis.LabelTopologyZone] = c.Zone
	labels[apis.LabelCapacityType] = c.CapacityType
	for _, o := range it.Offerings {
		if o.Label.Key != "" && o.Zone == c.Zone && o.CapacityType == c.CapacityType {
			labels[o.Label.Key] = o.Label.Value
			break
		}
	}
	labels[apis.LabelNodePool] = np.Name
	labels[apis.LabelHostname] = c.Name
	labels[apis.LabelInstanceType] = it.Name
	return labels
}
