package apis

import (
	"regexp"
	"slices"
)

// The EC2NodeClass settings below shape how an instance is launched, and
// so which instance types can launch at all: the AWS provider keeps a type
// whose hardware cannot honour them, but with none of its offerings
// available (instancetypes applies the rules; see its compatibility.go).

// Network interface types of spec.networkInterfaces.
const (
	// InterfaceTypeInterface is an ordinary ENA interface with IP addresses.
	InterfaceTypeInterface = "interface"
	// InterfaceTypeEFAOnly is an Elastic Fabric Adapter without IP
	// networking: it takes a slot on its network card but carries no pods.
	InterfaceTypeEFAOnly = "efa-only"
)

// NetworkInterface is one interface to attach at launch, on a network card
// (NetworkCardIndex) at a position on that card (DeviceIndex).
type NetworkInterface struct {
	NetworkCardIndex int32  `json:"networkCardIndex"`
	DeviceIndex      int32  `json:"deviceIndex"`
	InterfaceType    string `json:"interfaceType"`
}

// PlacementGroupSelector names the EC2 placement group instances launch
// into, by name or by ID (one of them). karpsim has no EC2 API to look the
// group up, so the group's strategy is given to instancetypes.NewAWS
// (AWSOptions.PlacementGroupStrategy).
type PlacementGroupSelector struct {
	Name *string `json:"name,omitempty"`
	ID   *string `json:"id,omitempty"`
}

// ConnectionTracking sets the idle timeouts, in seconds, of the connection
// tracking of the interfaces Karpenter launches. Only Nitro instances
// accept it.
type ConnectionTracking struct {
	TCPEstablishedTimeout *int32 `json:"tcpEstablishedTimeout,omitempty"`
	UDPStreamTimeout      *int32 `json:"udpStreamTimeout,omitempty"`
	UDPTimeout            *int32 `json:"udpTimeout,omitempty"`
}

// CPUOptions are the CPU settings of launched instances.
type CPUOptions struct {
	// NestedVirtualization is "enabled" or "disabled"; enabled keeps only
	// the types whose processors offer nested virtualization.
	NestedVirtualization *string `json:"nestedVirtualization,omitempty"`
}

// EnclaveOptions enables AWS Nitro Enclaves on launched instances (AWS
// provider v1.15.0): when Enabled is true only the types that support
// Nitro Enclaves can launch. Enabled is required once enclaveOptions is
// given; a pointer, so that leaving it out is told apart from false.
type EnclaveOptions struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// NitroEnclavesEnabled reports whether the node class enables Nitro
// Enclaves.
func (in *EC2NodeClass) NitroEnclavesEnabled() bool {
	o := in.Spec.EnclaveOptions
	return o != nil && o.Enabled != nil && *o.Enabled
}

// Values of CPUOptions.NestedVirtualization.
const (
	NestedVirtualizationEnabled  = "enabled"
	NestedVirtualizationDisabled = "disabled"
)

// Placement group strategies, as EC2 names them.
const (
	PlacementStrategyCluster   = "cluster"
	PlacementStrategyPartition = "partition"
	PlacementStrategySpread    = "spread"
)

// PlacementStrategies are the strategies an EC2 placement group may have.
var PlacementStrategies = []string{PlacementStrategyCluster, PlacementStrategyPartition, PlacementStrategySpread}

// NestedVirtualizationEnabled reports whether the node class asks for
// nested virtualization.
func (in *EC2NodeClass) NestedVirtualizationEnabled() bool {
	o := in.Spec.CPUOptions
	return o != nil && o.NestedVirtualization != nil && *o.NestedVirtualization == NestedVirtualizationEnabled
}

const maxNetworkInterfaces = 150

var placementGroupIDPattern = regexp.MustCompile(`^pg-[0-9a-z]+$`)

// validateLaunchSettings checks the launch settings against the
// EC2NodeClass CRD's schema and CEL rules.
func validateLaunchSettings(e *errs, s *EC2NodeClassSpec) {
	if pg := s.PlacementGroupSelector; pg != nil {
		path := "spec.placementGroupSelector"
		switch {
		case pg.Name == nil && pg.ID == nil:
			e.add(path, "set name or id")
		case pg.Name != nil && pg.ID != nil:
			e.add(path, "name and id are mutually exclusive")
		}
		if pg.Name != nil && *pg.Name == "" {
			e.add(child(path, "name"), "must not be empty")
		}
		if pg.ID != nil {
			validateID(e, child(path, "id"), *pg.ID, placementGroupIDPattern, "pg-0123456789abcdef0")
		}
	}
	validateNetworkInterfaces(e, "spec.networkInterfaces", s.NetworkInterfaces)
	if ct := s.ConnectionTracking; ct != nil {
		path := "spec.connectionTracking"
		if ct.TCPEstablishedTimeout == nil && ct.UDPStreamTimeout == nil && ct.UDPTimeout == nil {
			e.add(path, "set at least one of tcpEstablishedTimeout, udpStreamTimeout and udpTimeout")
		}
		validateRange(e, child(path, "tcpEstablishedTimeout"), ct.TCPEstablishedTimeout, 60, 432000)
		validateRange(e, child(path, "udpStreamTimeout"), ct.UDPStreamTimeout, 60, 180)
		validateRange(e, child(path, "udpTimeout"), ct.UDPTimeout, 30, 60)
	}
	if o := s.CPUOptions; o != nil && o.NestedVirtualization != nil {
		if v := *o.NestedVirtualization; v != NestedVirtualizationEnabled && v != NestedVirtualizationDisabled {
			e.add("spec.cpuOptions.nestedVirtualization", "%q is not allowed (use enabled or disabled)", v)
		}
	}
	if o := s.EnclaveOptions; o != nil && o.Enabled == nil {
		e.add("spec.enclaveOptions.enabled", "required when enclaveOptions is given (true or false)")
	}
}

func validateRange(e *errs, path string, v *int32, lo, hi int32) {
	if v != nil && (*v < lo || *v > hi) {
		e.add(path, "%d is outside %d to %d seconds", *v, lo, hi)
	}
}

// validateNetworkInterfaces checks the CRD's rules: at most 150
// interfaces, known types, non-negative indexes, a primary ENA interface
// at card 0 device 0, no two interfaces at one card and device, and at
// most one EFA-only interface per card.
func validateNetworkInterfaces(e *errs, path string, nis []*NetworkInterface) {
	if len(nis) > maxNetworkInterfaces {
		e.add(path, "%d interfaces, at most %d are allowed", len(nis), maxNetworkInterfaces)
	}
	type slot struct{ card, device int32 }
	seen := map[slot]int{}
	efaOnCard := map[int32]int{}
	primary := false
	for i, ni := range nis {
		p := index(path, i)
		if ni == nil {
			e.add(p, "empty interface")
			continue
		}
		if !slices.Contains([]string{InterfaceTypeInterface, InterfaceTypeEFAOnly}, ni.InterfaceType) {
			e.add(child(p, "interfaceType"), "%q is not allowed (use interface or efa-only)", ni.InterfaceType)
		}
		if ni.NetworkCardIndex < 0 {
			e.add(child(p, "networkCardIndex"), "%d is negative", ni.NetworkCardIndex)
		}
		if ni.DeviceIndex < 0 {
			e.add(child(p, "deviceIndex"), "%d is negative", ni.DeviceIndex)
		}
		s := slot{ni.NetworkCardIndex, ni.DeviceIndex}
		if first, dup := seen[s]; dup {
			e.add(p, "networkCardIndex %d and deviceIndex %d are also those of %s", s.card, s.device, index(path, first))
		} else {
			seen[s] = i
		}
		if ni.InterfaceType == InterfaceTypeEFAOnly {
			efaOnCard[ni.NetworkCardIndex]++
			if efaOnCard[ni.NetworkCardIndex] == 2 {
				e.add(p, "a second efa-only interface on network card %d (at most one per card)", ni.NetworkCardIndex)
			}
		}
		if s == (slot{}) && ni.InterfaceType == InterfaceTypeInterface {
			primary = true
		}
	}
	if len(nis) > 0 && !primary {
		e.add(path, "no primary interface: one must have networkCardIndex 0, deviceIndex 0 and interfaceType interface")
	}
}

// copyLaunchSettings deep-copies the launch settings of in into out.
func (in EC2NodeClassSpec) copyLaunchSettings(out *EC2NodeClassSpec) {
	if pg := in.PlacementGroupSelector; pg != nil {
		out.PlacementGroupSelector = &PlacementGroupSelector{Name: copyPtr(pg.Name), ID: copyPtr(pg.ID)}
	}
	out.NetworkInterfaces = nil
	for _, ni := range in.NetworkInterfaces {
		out.NetworkInterfaces = append(out.NetworkInterfaces, copyPtr(ni))
	}
	keepEmpty(&out.NetworkInterfaces, in.NetworkInterfaces)
	if ct := in.ConnectionTracking; ct != nil {
		out.ConnectionTracking = &ConnectionTracking{
			TCPEstablishedTimeout: copyPtr(ct.TCPEstablishedTimeout),
			UDPStreamTimeout:      copyPtr(ct.UDPStreamTimeout),
			UDPTimeout:            copyPtr(ct.UDPTimeout),
		}
	}
	if o := in.CPUOptions; o != nil {
		out.CPUOptions = &CPUOptions{NestedVirtualization: copyPtr(o.NestedVirtualization)}
	}
	if o := in.EnclaveOptions; o != nil {
		out.EnclaveOptions = &EnclaveOptions{Enabled: copyPtr(o.Enabled)}
	}
}
