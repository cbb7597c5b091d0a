package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNodeOverlayDecodes(t *testing.T) {
	set, err := Decode("o.yaml", []byte(`apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: discount}
spec:
  weight: 5
  requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
  priceAdjustment: "-10%"
  capacity: {example.com/device: "2"}
`))
	require.NoError(t, err)
	require.Len(t, set.NodeOverlays, 1)
	o := set.NodeOverlays[0]
	assert.Equal(t, "discount", o.Name)
	assert.Equal(t, int32(5), o.OverlayWeight())
	assert.Equal(t, "-10%", o.PriceChange())
}

func TestNodeOverlayErrorsNameTheField(t *testing.T) {
	for doc, want := range map[string]string{
		`spec: {price: "1", priceAdjustment: "+1"}`:                               `o.yaml: NodeOverlay/x: spec: price and priceAdjustment are both set`,
		`spec: {priceAdjustment: "10%"}`:                                          `NodeOverlay/x: spec.priceAdjustment: "10%" is not a price adjustment`,
		`spec: {priceAdjustment: "-150%"}`:                                        `spec.priceAdjustment: "-150%" is not a price adjustment`,
		`spec: {price: "-1"}`:                                                     `spec.price: "-1" is not a price`,
		`spec: {capacity: {memory: 1Gi}}`:                                         `spec.capacity[memory]: memory may not be set`,
		`spec: {weight: 20000}`:                                                   `spec.weight: 20000 is out of range (1 to 10000`,
		`spec: {requirements: [{key: a, operator: In}]}`:                          `spec.requirements[0].values: operator In needs at least one value`,
		`spec: {requirements: [{key: a, operator: Gt, values: [x]}]}`:             `spec.requirements[0].values[0]: operator Gt needs a non-negative integer`,
		`spec: {requirements: [{key: kubernetes.io/hostname, operator: Exists}]}`: `spec.requirements[0].key: label "kubernetes.io/hostname" is restricted`,
	} {
		_, err := Decode("o.yaml", []byte("apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: x}\n"+doc+"\n"))
		if assert.Error(t, err, doc) {
			assert.Contains(t, err.Error(), want, doc)
		}
	}
	_, err := Decode("o.yaml", []byte("apiVersion: karpenter.sh/v1\nkind: NodeOverlay\nmetadata: {name: x}\nspec: {}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"karpenter.sh/v1" is not supported for NodeOverlay (use karpenter.sh/v1alpha1)`)
}
