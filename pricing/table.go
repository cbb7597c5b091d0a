package pricing

import (
	"cmp"
	"slices"
	"strconv"
	"time"
)

// Source gives the price of an offering in USD per hour.
type Source interface {
	OnDemandPrice(instanceType string) (float64, bool)
	SpotPrice(instanceType, zone string) (float64, bool)
}

// SpotPrice is one observed spot price of an instance type in a zone.
type SpotPrice struct {
	InstanceType, Zone string
	// Price is in USD per hour.
	Price float64
	// Timestamp is when the price took effect. WithSpotPrices uses it only to
	// pick between two prices for the same (type, zone) in one call.
	Timestamp time.Time
}

// String reads "m5.large us-east-1a 0.0384 2024-05-01T12:00:00Z": the price
// in its shortest exact decimal form and the timestamp in UTC, RFC 3339.
func (p SpotPrice) String() string {
	return p.InstanceType + " " + p.Zone + " " + strconv.FormatFloat(p.Price, 'f', -1, 64) + " " +
		p.Timestamp.UTC().Format(time.RFC3339Nano)
}

// Table is a Source from explicit tables. The zero value knows no prices.
//
// A Table is immutable: the With methods return a new Table and leave the
// receiver alone, so one Table may be shared between goroutines.
//
// Spot prices follow Karpenter's two phases. Until real spot prices are given
// (WithSpotPrices), every type with an on-demand price has a spot price in
// every zone, computed by the Table's SpotModel; the zero SpotModel, which
// NewTable uses, makes it equal to the on-demand price as Karpenter does
// before its first spot refresh. Once real prices are given, a (type, zone)
// without one has no spot price.
type Table struct {
	onDemand map[string]float64
	// spot is nil until real spot prices are given; never mutated after.
	spot  map[spotKey]float64
	model SpotModel
}

type spotKey struct{ instanceType, zone string }

// NewTable returns a Table with the given on-demand prices, in USD per hour.
// The map is copied; the caller may change it afterwards.
func NewTable(onDemand map[string]float64) *Table {
	prices := make(map[string]float64, len(onDemand))
	for instanceType, price := range onDemand {
		prices[instanceType] = price
	}
	return &Table{onDemand: prices}
}

// WithSpotPrices returns a new Table that also knows the given spot prices,
// as a Karpenter spot refresh does.
//
// From then on a (type, zone) without a real spot price has no spot price,
// whatever the SpotModel. Prices from an earlier call are kept unless this
// call gives a new price for the same (type, zone), as upstream keeps the
// data of earlier refreshes. Within one call, when a (type, zone) appears
// more than once, the entry with the latest Timestamp wins and, at equal
// timestamps, the higher price, so the order of spot does not matter.
//
// An empty spot is a refresh that found nothing: upstream rejects it and keeps
// what it had, so the result prices exactly like the receiver.
func (t *Table) WithSpotPrices(spot []SpotPrice) *Table {
	next := *t
	if len(spot) == 0 {
		return &next
	}
	next.spot = make(map[spotKey]float64, len(t.spot)+len(spot))
	for key, price := range t.spot {
		next.spot[key] = price
	}
	for key, entry := range latestSpotPrices(spot) {
		next.spot[key] = entry.Price
	}
	return &next
}

// latestSpotPrices picks one entry per (type, zone): the latest, then the
// highest priced.
func latestSpotPrices(spot []SpotPrice) map[spotKey]SpotPrice {
	latest := make(map[spotKey]SpotPrice, len(spot))
	for _, entry := range spot {
		key := spotKey{entry.InstanceType, entry.Zone}
		if current, ok := latest[key]; !ok || supersedes(entry, current) {
			latest[key] = entry
		}
	}
	return latest
}

// supersedes reports whether a should replace b for the same (type, zone).
func supersedes(a, b SpotPrice) bool {
	if c := a.Timestamp.Compare(b.Timestamp); c != 0 {
		return c > 0
	}
	return a.Price > b.Price
}

// WithSpotModel returns a new Table whose spot prices come from m until real
// ones are given. After WithSpotPrices the model is not consulted.
func (t *Table) WithSpotModel(m SpotModel) *Table {
	next := *t
	next.model = m
	return &next
}

// OnDemandPrice returns the on-demand price of instanceType and whether the
// Table knows it.
func (t *Table) OnDemandPrice(instanceType string) (float64, bool) {
	price, ok := t.onDemand[instanceType]
	return price, ok
}

// SpotPrice returns the spot price of instanceType in zone and whether there
// is one. Before real spot prices are given it is the SpotModel's price for
// every zone of a type with an on-demand price; afterwards only the real
// prices exist.
func (t *Table) SpotPrice(instanceType, zone string) (float64, bool) {
	if t.spot != nil {
		price, ok := t.spot[spotKey{instanceType, zone}]
		return price, ok
	}
	onDemand, ok := t.onDemand[instanceType]
	if !ok {
		return 0, false
	}
	return t.model.Price(instanceType, zone, onDemand), true
}

// HasSpotPrices reports whether real spot prices have been given, that is,
// whether a missing spot price means the offering does not exist.
func (t *Table) HasSpotPrices() bool { return t.spot != nil }

// OnDemandTypes returns the instance types with an on-demand price, sorted.
func (t *Table) OnDemandTypes() []string {
	types := make([]string, 0, len(t.onDemand))
	for instanceType := range t.onDemand {
		types = append(types, instanceType)
	}
	slices.Sort(types)
	return types
}

// SpotPrices returns the real spot prices the Table holds, sorted by instance
// type then zone, with zero Timestamps. It is empty before WithSpotPrices.
func (t *Table) SpotPrices() []SpotPrice {
	prices := make([]SpotPrice, 0, len(t.spot))
	for key, price := range t.spot {
		prices = append(prices, SpotPrice{InstanceType: key.instanceType, Zone: key.zone, Price: price})
	}
	slices.SortFunc(prices, compareSpotPrice)
	return prices
}

// compareSpotPrice orders by instance type then zone, the unique key of a
// deduplicated list.
func compareSpotPrice(a, b SpotPrice) int {
	return cmp.Or(cmp.Compare(a.InstanceType, b.InstanceType), cmp.Compare(a.Zone, b.Zone))
}
