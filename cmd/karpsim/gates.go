package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/repair"
)

// featureGatesUsage describes --feature-gates, Karpenter's flag of that
// name, for the core gates karpsim models.
const featureGatesUsage = "Karpenter's feature `GATES`, as NAME=BOOL,... (its --feature-gates), all off by default: " +
	"PodDeletionCostManagement=true leaves pods' controller.kubernetes.io/pod-deletion-cost out of their eviction cost (only karpenter.sh/disruption-cost counts); " +
	"SpotToSpotConsolidation=true consolidates spot nodes into cheaper spot nodes (as --spot-to-spot does where a command has it); " +
	"TerminateFirstDrift=true deletes a drifted node before its replacement when none can launch first: in a full capacity reservation, when its pods fit once its unit is freed, or in a static NodePool at its node limit; " +
	"NodeRepair=true runs node repair first: a node whose conditions match one of the cloud provider's repair policies past its toleration is replaced (or deleted when empty) under the Unhealthy budget; " +
	"TerminateFirstRepair=true lets node repair delete a node first where TerminateFirstDrift would"

// coreFeatureGates are the gates of --feature-gates.
type coreFeatureGates struct {
	podDeletionCostManagement bool
	spotToSpot                bool
	terminateFirstDrift       bool
	nodeRepair                bool
	terminateFirstRepair      bool
}

// coreGateNames are the gates --feature-gates knows, as the error lists them.
const coreGateNames = "PodDeletionCostManagement, SpotToSpotConsolidation, TerminateFirstDrift, NodeRepair and TerminateFirstRepair"

// parseFeatureGates reads "PodDeletionCostManagement=true,..."
// (comma-separated, empty for the defaults: all off).
func parseFeatureGates(s string) (coreFeatureGates, error) {
	var g coreFeatureGates
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, "=")
		on, err := strconv.ParseBool(strings.TrimSpace(value))
		if !ok || err != nil {
			return g, fmt.Errorf("%w: --feature-gates %q: want NAME=true or NAME=false", errUsage, item)
		}
		switch strings.TrimSpace(name) {
		case "PodDeletionCostManagement":
			g.podDeletionCostManagement = on
		case "SpotToSpotConsolidation":
			g.spotToSpot = on
		case "TerminateFirstDrift":
			g.terminateFirstDrift = on
		case "NodeRepair":
			g.nodeRepair = on
		case "TerminateFirstRepair":
			g.terminateFirstRepair = on
		default:
			return g, fmt.Errorf("%w: --feature-gates: unknown gate %q (karpsim models %s)", errUsage, strings.TrimSpace(name), coreGateNames)
		}
	}
	return g, nil
}

// apply sets the gates in a disruption evaluation's options; with
// NodeRepair on, the repair policies of the cloud's provider (--cloud; the
// AWS provider's with --aws-feature-gates RebootForRepair as given), which
// Karpenter refuses to start with when they are not a valid set.
func (g coreFeatureGates) apply(o *consolidation.Options, cloud string, aws awsFeatureGates) error {
	o.PodDeletionCostManagement = g.podDeletionCostManagement
	o.SpotToSpotConsolidation = o.SpotToSpotConsolidation || g.spotToSpot
	o.TerminateFirstDrift = g.terminateFirstDrift
	o.TerminateFirstRepair = g.terminateFirstRepair
	if !g.nodeRepair {
		return nil
	}
	p := provider.Providers{Default: cloud, AWS: &provider.AWS{RebootForRepair: aws.rebootForRepair}}.DefaultProvider()
	m, err := repair.Compile(p.RepairPolicies())
	if err != nil {
		return fmt.Errorf("--feature-gates NodeRepair=true: the %s provider's repair policies: %w", p.Cloud(), err)
	}
	o.NodeRepair = m
	return nil
}
