package manifests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Prices are bounded (apis.MaxPricePerHour, apis.MaxPriceIncreasePercent)
// so that costs summed over nodes and hours stay finite: an overlay that
// priced a node at +Inf made plan's JSON fail after the plan was made.
func TestNodeOverlayPricesAreBounded(t *testing.T) {
	huge := "+1" + strings.Repeat("0", 306) + "%"
	for doc, want := range map[string]string{
		`spec: {price: "1000001"}`:                           `NodeOverlay/x: spec.price: 1000001 is more than karpsim reads ($1e+06 an hour)`,
		`spec: {price: "1` + strings.Repeat("0", 400) + `"}`: `spec.price: 10000000000000000000… (401 characters) is more than karpsim reads`,
		`spec: {priceAdjustment: "+1000001"}`:                `spec.priceAdjustment: +1000001 is more than karpsim reads ($1e+06 an hour)`,
		`spec: {priceAdjustment: "-1000001"}`:                `spec.priceAdjustment: -1000001 is more than karpsim reads ($1e+06 an hour)`,
		`spec: {priceAdjustment: "+10001%"}`:                 `spec.priceAdjustment: +10001% is more than karpsim reads (+10000%)`,
		`spec: {priceAdjustment: "` + huge + `"}`:            `spec.priceAdjustment: +1000000000000000000… (309 characters) is more than karpsim reads (+10000%)`,
	} {
		_, err := Decode("o.yaml", []byte("apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: x}\n"+doc+"\n"))
		if assert.Error(t, err, doc) {
			assert.Contains(t, err.Error(), want, doc)
		}
	}
	for _, doc := range []string{`spec: {price: "1000000"}`, `spec: {priceAdjustment: "+10000%"}`, `spec: {priceAdjustment: "-1000000"}`} {
		_, err := Decode("o.yaml", []byte("apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: x}\n"+doc+"\n"))
		assert.NoError(t, err, doc)
	}
}
