package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/karpsim/karpsim/provider"
)

// cloudUsage is --cloud's help.
var cloudUsage = "the `CLOUD` (" + strings.Join(provider.Clouds, " or ") + ") where nothing in the input says which: of karpsim's default NodePool when no NodePool is given, and of nodes whose node class is unknown; a NodePool is its nodeClassRef's cloud (karpenter.k8s.aws: aws, karpenter.azure.com: azure)"

// addCloudFlag adds --cloud.
func addCloudFlag(cmd *cobra.Command, cloud *string) {
	cmd.Flags().StringVar(cloud, "cloud", provider.CloudAWS, cloudUsage)
	completeValues(cmd, "cloud", provider.Clouds...)
}

// checkCloud refuses a --cloud karpsim does not model.
func checkCloud(cloud string) error {
	if _, err := provider.ParseCloud(cloud); err != nil {
		return fmt.Errorf("%w: --cloud: %v", errUsage, err)
	}
	return nil
}

// addRegionFlag adds --region to a command that has no zones flags.
func addRegionFlag(cmd *cobra.Command, region *string) {
	cmd.Flags().StringVar(region, "region", "", regionUsage)
	noCompletion(cmd, "region")
}

// regionUsage is --region's help.
const regionUsage = "region of the instance types' offerings (default: us-east-1 on AWS, eastus on Azure)"
