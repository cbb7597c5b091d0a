package conformance

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// Preview instance types: EC2 describes them, but the price list has no
// price for them, so their offerings are unavailable. Since v1.14.0 the AWS
// provider prices them from a NodeOverlay that names them (behind the
// NodeOverlay feature gate), which makes them launchable. p5e.48xlarge has
// no price in karpsim's facts either.

// previewOverlay prices p5e.48xlarge, as upstream's spec does.
func previewOverlay() *apis.NodeOverlay {
	price := "98.32"
	o := &apis.NodeOverlay{Spec: apis.NodeOverlaySpec{Price: &price, Requirements: []corev1.NodeSelectorRequirement{{
		Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"p5e.48xlarge"}}}}}
	o.Name = "preview-price"
	return o
}

// previewOfferings are p5e.48xlarge's available offerings under the options.
func previewOfferings(t *T, opts instancetypes.AWSOptions) []instancetypes.Offering {
	t.Helper()
	it := awsType(t, awsNodeClass("al2023@latest", nil), opts, "p5e.48xlarge")
	require.NotEmpty(t, it.Offerings)
	var out []instancetypes.Offering
	for _, o := range it.Offerings {
		if o.Available {
			out = append(out, o)
		}
	}
	return out
}

var _ = register("aws-preview",
	conformanceCase{Name: "overlay-price-makes-available", Run: func(t *T) {
		got := previewOfferings(t, instancetypes.AWSOptions{NodeOverlays: []*apis.NodeOverlay{previewOverlay()}, NodeOverlayGate: true})
		require.NotEmpty(t, got)
		for _, o := range got {
			require.Equal(t, 98.32, o.Price)
		}
	}},
	conformanceCase{Name: "no-overlay-unavailable", Run: func(t *T) {
		require.Empty(t, previewOfferings(t, instancetypes.AWSOptions{NodeOverlayGate: true}))
	}},
	conformanceCase{Name: "gate-off-unavailable", Run: func(t *T) {
		require.Empty(t, previewOfferings(t, instancetypes.AWSOptions{NodeOverlays: []*apis.NodeOverlay{previewOverlay()}}))
	}},
)
