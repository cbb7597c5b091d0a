package instancetypes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/apis"
)

// incompatibility says why type f cannot launch under the EC2NodeClass's
// launch settings, or "" when it can. The checks are the AWS provider's
// (its compatibility package), in its order: the network interfaces the
// node class attaches, the AMI family, nested virtualization, Nitro
// Enclaves, the placement group's strategy and connection tracking.
func (c *awsConfig) incompatibility(f EC2Facts) string {
	if why := c.networkInterfaceProblem(f); why != "" {
		return why
	}
	// AL2023 does not boot on a1, the first Graviton types (AL2023 user
	// guide, system requirements).
	if c.family.name == apis.AMIFamilyAL2023 && strings.HasPrefix(f.InstanceType, "a1.") {
		return "AL2023 does not run on a1 types"
	}
	if c.nestedVirtualization && !f.NestedVirtualization {
		return "nested virtualization is enabled and the type does not offer it"
	}
	// enclaveOptions (v1.15.0) keeps the types EC2 says support Nitro
	// Enclaves; a type whose support is not known is refused too, which
	// facts without NitroEnclaves state.
	if c.nitroEnclaves && !f.NitroEnclaves {
		return "Nitro Enclaves are enabled and the type does not support them"
	}
	if c.placementStrategy != "" && !slices.Contains(f.PlacementStrategies, c.placementStrategy) {
		return fmt.Sprintf("the type cannot launch into a %s placement group", c.placementStrategy)
	}
	// Connection tracking timeouts need the Nitro System; bare metal types
	// have no hypervisor and are refused too.
	if c.connectionTracking && f.Hypervisor != "nitro" {
		return "connection tracking needs a Nitro type"
	}
	return ""
}

// networkCards are the interfaces each of f's network cards takes: one card
// of MaxENIs when the facts do not say.
func networkCards(f EC2Facts) []int64 {
	if f.NetworkCardENIs == nil {
		return []int64{f.MaxENIs}
	}
	return f.NetworkCardENIs
}

// networkInterfaceProblem checks the node class's interfaces against f:
// the type needs ENA, every interface's card must exist and have room at
// its device index, and the EFA-only interfaces may not outnumber the
// type's EFAs.
func (c *awsConfig) networkInterfaceProblem(f EC2Facts) string {
	if c.networkInterfaces == nil {
		return ""
	}
	if f.ENAUnsupported {
		return "network interfaces need ENA, which the type lacks"
	}
	cards := networkCards(f)
	efaOnly := int64(0)
	for _, ni := range c.networkInterfaces {
		if int(ni.NetworkCardIndex) >= len(cards) {
			return fmt.Sprintf("network card %d: the type has %d cards", ni.NetworkCardIndex, len(cards))
		}
		if int64(ni.DeviceIndex) >= cards[ni.NetworkCardIndex] {
			return fmt.Sprintf("device index %d: network card %d takes %d interfaces", ni.DeviceIndex, ni.NetworkCardIndex, cards[ni.NetworkCardIndex])
		}
		if ni.InterfaceType == apis.InterfaceTypeEFAOnly {
			efaOnly++
		}
	}
	if efaOnly > f.MaxEFAInterfaces {
		return fmt.Sprintf("%d EFA-only interfaces: the type takes %d", efaOnly, f.MaxEFAInterfaces)
	}
	return ""
}

// efaOnlyOnDefaultCard counts the node class's EFA-only interfaces on card
// 0: each takes an interface slot there that carries no pod addresses.
func (c *awsConfig) efaOnlyOnDefaultCard() int64 {
	var n int64
	for _, ni := range c.networkInterfaces {
		if ni.NetworkCardIndex == 0 && ni.InterfaceType == apis.InterfaceTypeEFAOnly {
			n++
		}
	}
	return n
}

// efas is the vpc.amazonaws.com/efa capacity: the node class's EFA-only
// interfaces when it lists interfaces, else all the type's EFAs.
func (c *awsConfig) efas(f EC2Facts) int64 {
	if c.networkInterfaces == nil {
		return f.MaxEFAInterfaces
	}
	var n int64
	for _, ni := range c.networkInterfaces {
		if ni.InterfaceType == apis.InterfaceTypeEFAOnly {
			n++
		}
	}
	return n
}

// PlacementStrategyFor is the AWSOptions.PlacementGroupStrategy for nc when
// the placement group it would select has the given strategy: the strategy
// when nc has a placementGroupSelector, else "" (a class without one
// launches into no group, whatever strategy a caller knows of).
func PlacementStrategyFor(nc *apis.EC2NodeClass, strategy string) string {
	if nc == nil || nc.Spec.PlacementGroupSelector == nil {
		return ""
	}
	return strategy
}
