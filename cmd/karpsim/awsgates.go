package main

import (
	"fmt"
	"strconv"
	"strings"
)

// awsFeatureGatesUsage describes --aws-feature-gates, the AWS provider's
// flag of that name.
const awsFeatureGatesUsage = "the AWS provider's feature `GATES`, as NAME=BOOL,... (its --aws-feature-gates): NodeClassCEL=true reads the EC2NodeClass's kubelet maxPods, kubeReserved and systemReserved expressions, evaluated per instance type"

// awsRepairFeatureGatesUsage is awsFeatureGatesUsage for the commands that
// run node repair, where RebootForRepair counts too.
const awsRepairFeatureGatesUsage = awsFeatureGatesUsage + "; " +
	"RebootForRepair=true makes node repair (--feature-gates NodeRepair=true) reboot nodes with transient GPU faults in place instead of replacing them"

// awsFeatureGates are the gates of --aws-feature-gates.
type awsFeatureGates struct {
	nodeClassCEL    bool
	rebootForRepair bool
}

// parseAWSFeatureGates reads "NodeClassCEL=true" (comma-separated, empty
// for the defaults: all off).
func parseAWSFeatureGates(s string) (awsFeatureGates, error) {
	var g awsFeatureGates
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, "=")
		on, err := strconv.ParseBool(strings.TrimSpace(value))
		if !ok || err != nil {
			return g, fmt.Errorf("%w: --aws-feature-gates %q: want NAME=true or NAME=false", errUsage, item)
		}
		switch strings.TrimSpace(name) {
		case "NodeClassCEL":
			g.nodeClassCEL = on
		case "RebootForRepair":
			g.rebootForRepair = on
		default:
			return g, fmt.Errorf("%w: --aws-feature-gates: unknown gate %q (karpsim knows NodeClassCEL and RebootForRepair)", errUsage, name)
		}
	}
	return g, nil
}
