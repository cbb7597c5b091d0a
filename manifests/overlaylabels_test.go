package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
)

const azurePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: azure}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements: [{key: kubernetes.io/os, operator: In, values: [linux]}]
---
apiVersion: karpenter.azure.com/v1beta1
kind: AKSNodeClass
metadata: {name: default}
spec: {}
`

func overlayOn(key string) string {
	return "---\napiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: o}\nspec:\n  requirements: [{key: " + key +
		", operator: In, values: [x]}]\n  priceAdjustment: \"-10%\"\n"
}

// An overlay's requirement keys follow the cloud of the NodePools it
// applies to: karpenter.k8s.aws/team is a custom label on Azure, and
// karpenter.azure.com/team is refused there (the Azure provider's overlay
// CRD and its well-known labels), as karpenter.k8s.aws/team is on AWS.
func TestNodeOverlayLabelsFollowTheNodePoolsCloud(t *testing.T) {
	set, err := Decode("o.yaml", []byte(azurePool+overlayOn("karpenter.k8s.aws/team")))
	require.NoError(t, err, "an overlay on an AWS-domain key with only Azure NodePools")
	require.Len(t, set.NodeOverlays, 1)

	_, err = Decode("o.yaml", []byte(azurePool+overlayOn("karpenter.azure.com/team")))
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), `NodeOverlay/o: spec.requirements[0].key: label "karpenter.azure.com/team" is restricted`)
	}
	_, err = Decode("o.yaml", []byte(azurePool+overlayOn("kubernetes.azure.com/team")))
	assert.Error(t, err, "the Azure CRD's kubernetes.azure.com domain")

	// No NodePools: the default cloud's (AWS) rules.
	_, err = Decode("o.yaml", []byte(overlayOn("karpenter.k8s.aws/team")))
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), `spec.requirements[0].key: label "karpenter.k8s.aws/team" is restricted`)
	}
	_, err = Decode("o.yaml", []byte(overlayOn(apis.LabelCapacityReservationInterruptible)))
	assert.NoError(t, err, "a well-known AWS label")
}

// A part read alone leaves the check to the set it joins.
func TestNodeOverlayLabelsOfAPart(t *testing.T) {
	part, err := DecodePart("edit.yaml", []byte(overlayOn("karpenter.k8s.aws/team")))
	require.NoError(t, err)
	set, err := Decode("cluster.yaml", []byte(azurePool))
	require.NoError(t, err)
	set.NodeOverlays = append(set.NodeOverlays, part.NodeOverlays...)
	require.NoError(t, CheckOverlayLabels(set))
	set.NodeOverlays[0].Spec.Requirements[0].Key = "karpenter.azure.com/team"
	assert.Error(t, CheckOverlayLabels(set))
}
