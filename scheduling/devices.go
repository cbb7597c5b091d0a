package scheduling

import (
	"errors"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// errDevicesTaken is why an existing node refuses a pod whose claims its
// devices cannot serve.
var errDevicesTaken = errors.New("its device claims cannot be allocated on what is left of the node's devices")

// DeviceAllocator allocates pods' DRA device claims on nodes, when they
// need more than counts of extended resources can say (package dra:
// capacity shares of multi-allocatable devices, shared counters,
// allocationMode All, firstAvailable alternatives). A pod it claims for
// goes only where its claims can be allocated on top of what the pods
// already there hold, per instance type of a NodeClaim, as Karpenter's
// allocator tracks each candidate type. A nil allocator changes nothing.
type DeviceAllocator interface {
	// Claims reports whether the pod (namespace/name) has claims to
	// allocate.
	Claims(pod string) bool
	// Node is the state of an existing node before any pod is placed on
	// it (nil: its instance type's devices, none allocated).
	Node(name, instanceType string, labels map[string]string) any
	// Allocate allocates the pod's claims on a node of the instance type
	// whose devices are in state (nil: a new node's, nothing allocated
	// yet), and returns the new state; ok is false when they cannot be.
	// held are the states every node of the solve keeps, by holder: the
	// devices several nodes reach (published in the cluster) that
	// holders other than holder keep are not free. reqs are the node's
	// requirements: a device only nodes meeting a selector reach is
	// taken only where reqs may meet it, and topology is what the devices
	// taken require of the node (empty when nothing). The state given is
	// never changed.
	Allocate(state any, instanceType, pod, holder string, held DeviceHoldings, reqs requirements.Requirements) (next any, topology requirements.Requirements, ok bool)
}

// DeviceHoldings are the device states the nodes of a solve keep, by
// holder: an existing node's one state ("node/" and its name), a
// NodeClaim's one per instance type it may still launch as (its
// placeholder hostname). A device several nodes reach, held by one
// holder, is not free for the others, whatever instance type the holder
// ends up as, as Karpenter's allocator pessimistically counts it.
type DeviceHoldings = map[string][]any

// nodeHolder is the holder name of an existing node.
func nodeHolder(name string) string { return "node/" + name }

// claimsDevices reports whether the allocator places the pod's claims.
func (s *solver) claimsDevices(p *podInfo) bool {
	return s.devices != nil && s.devices.Claims(p.key)
}

// allocateBound gives each existing node the device state of the pods
// running there, in order.
func (s *solver) allocateBound() {
	if s.devices == nil {
		return
	}
	s.held = DeviceHoldings{}
	for _, e := range s.existing {
		e.alloc, e.held = s.devices, s.held
		e.devices = s.devices.Node(e.node.Name, e.node.Labels[apis.LabelInstanceType], e.node.Labels)
		for _, p := range e.node.Pods {
			key := apis.PodKey(p)
			if !s.devices.Claims(key) {
				continue
			}
			// A running pod holds its devices whatever the search finds:
			// one that cannot be allocated again keeps the state as is.
			if next, _, ok := s.devices.Allocate(e.devices, e.node.Labels[apis.LabelInstanceType], key, nodeHolder(e.node.Name), s.held, e.labels); ok {
				e.devices = next
			}
		}
		if e.devices != nil {
			s.held[nodeHolder(e.node.Name)] = []any{e.devices}
		}
	}
}

// allocateOn tries the pod's claims on the existing node, keeping the
// state it would have in pending for tryAdd.
func (e *existingNode) allocateOn(p *podInfo) bool {
	if e.alloc == nil || !e.alloc.Claims(p.key) {
		return true
	}
	next, _, ok := e.alloc.Allocate(e.devices, e.node.Labels[apis.LabelInstanceType], p.key, nodeHolder(e.node.Name), e.held, e.labels)
	if ok {
		e.pending = next
	}
	return ok
}
