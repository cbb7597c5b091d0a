package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpsim/karpsim/consolidation"
)

// featureGatesUsage describes --feature-gates, Karpenter's flag of that
// name, for the core gates karpsim models.
const featureGatesUsage = "Karpenter's feature `GATES`, as NAME=BOOL,... (its --feature-gates), all off by default: " +
	"PodDeletionCostManagement=true leaves pods' controller.kubernetes.io/pod-deletion-cost out of their eviction cost (only karpenter.sh/disruption-cost counts); " +
	"SpotToSpotConsolidation=true is --spot-to-spot; " +
	"TerminateFirstDrift=true deletes a drifted node before its replacement when none can launch first: in a full capacity reservation, when its pods fit once its unit is freed, or in a static NodePool at its node limit"

// coreFeatureGates are the gates of --feature-gates.
type coreFeatureGates struct {
	podDeletionCostManagement bool
	spotToSpot                bool
	terminateFirstDrift       bool
}

// coreGateNames are the gates --feature-gates knows, as the error lists them.
const coreGateNames = "PodDeletionCostManagement, SpotToSpotConsolidation and TerminateFirstDrift"

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
		default:
			return g, fmt.Errorf("%w: --feature-gates: unknown gate %q (karpsim models %s)", errUsage, strings.TrimSpace(name), coreGateNames)
		}
	}
	return g, nil
}

// apply sets the gates in a disruption evaluation's options.
func (g coreFeatureGates) apply(o *consolidation.Options) {
	o.PodDeletionCostManagement = g.podDeletionCostManagement
	o.SpotToSpotConsolidation = o.SpotToSpotConsolidation || g.spotToSpot
	o.TerminateFirstDrift = g.terminateFirstDrift
}
