package instancetypes

import (
	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/pricing"
)

// EmbeddedPrices is the price table the default catalog uses: the embedded
// on-demand prices, with pricing.DefaultSpotModel for spot until real spot
// prices are added with WithSpotPrices.
func EmbeddedPrices() *pricing.Table {
	return onDemandTable(EmbeddedFacts())
}

// WithSpotPrices returns the catalog with its spot offerings priced from
// real spot prices, as a Karpenter spot price refresh does: a spot offering
// whose (type, zone) has a price takes it; one without becomes unavailable.
// An empty spot changes nothing, as upstream rejects an empty refresh. The
// receiver and its instance types are not modified.
func (c Catalog) WithSpotPrices(spot []pricing.SpotPrice) (Catalog, error) {
	if len(spot) == 0 {
		return c, nil
	}
	latest := pricing.NewTable(nil).WithSpotPrices(spot)
	out := make(Catalog, 0, len(c))
	for _, it := range c {
		labels, absent, undefined, err := labelsOf(it)
		if err != nil {
			return nil, err
		}
		offerings := make([]Offering, len(it.Offerings))
		copy(offerings, it.Offerings)
		for i := range offerings {
			o := &offerings[i]
			if o.CapacityType != apis.CapacityTypeSpot {
				continue
			}
			price, ok := latest.SpotPrice(it.Name, o.Zone)
			o.Price, o.Available = price, ok && o.Available
		}
		repriced, err := NewInstanceType(Spec{Name: it.Name, Labels: labels, AbsentLabels: absent, UndefinedLabels: undefined, LabelChoices: it.LabelChoices,
			VolumeAttachmentLimits: it.VolumeAttachmentLimits, Capacity: it.Capacity, Overhead: it.Overhead, Offerings: offerings, LabelRules: it.labelRules})
		if err != nil {
			return nil, err
		}
		out = append(out, repriced)
	}
	return out, nil
}
