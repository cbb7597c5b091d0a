package pricing

import (
	"slices"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

type priceLookup struct {
	instanceType, zone string
	price              float64
	ok                 bool
}

func checkSpot(t *testing.T, table *Table, want []priceLookup) {
	t.Helper()
	for _, w := range want {
		price, ok := table.SpotPrice(w.instanceType, w.zone)
		if price != w.price || ok != w.ok {
			t.Errorf("SpotPrice(%s, %s) = %v, %v; want %v, %v", w.instanceType, w.zone, price, ok, w.price, w.ok)
		}
	}
}

func TestTableZeroValue(t *testing.T) {
	var table Table
	if _, ok := table.OnDemandPrice("m5.large"); ok {
		t.Error("zero Table knows an on-demand price")
	}
	checkSpot(t, &table, []priceLookup{{"m5.large", "us-east-1a", 0, false}})
	if types := table.OnDemandTypes(); len(types) != 0 {
		t.Errorf("OnDemandTypes = %v", types)
	}
	if table.HasSpotPrices() || len(table.SpotPrices()) != 0 {
		t.Error("zero Table has spot prices")
	}
}

func TestNewTableCopiesAndSorts(t *testing.T) {
	onDemand := map[string]float64{"m5.large": 0.096, "c5.large": 0.085, "t3.micro": 0.0104}
	table := NewTable(onDemand)
	onDemand["m5.large"] = 99
	delete(onDemand, "c5.large")
	tests := []struct {
		instanceType string
		price        float64
		ok           bool
	}{
		{"m5.large", 0.096, true},
		{"c5.large", 0.085, true},
		{"t3.micro", 0.0104, true},
		{"x9.huge", 0, false},
	}
	for _, tt := range tests {
		if price, ok := table.OnDemandPrice(tt.instanceType); price != tt.price || ok != tt.ok {
			t.Errorf("OnDemandPrice(%s) = %v, %v; want %v, %v", tt.instanceType, price, ok, tt.price, tt.ok)
		}
	}
	if got, want := table.OnDemandTypes(), []string{"c5.large", "m5.large", "t3.micro"}; !slices.Equal(got, want) {
		t.Errorf("OnDemandTypes = %v, want %v", got, want)
	}
}

func TestTableSpotPhases(t *testing.T) {
	base := NewTable(map[string]float64{"m5.large": 0.096, "c5.large": 0.085})
	modelled := base.WithSpotModel(DefaultSpotModel())
	refreshed := modelled.WithSpotPrices([]SpotPrice{
		{InstanceType: "m5.large", Zone: "us-east-1a", Price: 0.0384, Timestamp: t0},
		{InstanceType: "g5.xlarge", Zone: "us-east-1a", Price: 0.41, Timestamp: t0},
	})
	tests := []struct {
		name  string
		table *Table
		want  []priceLookup
	}{
		{"before refresh, spot = on-demand in every zone (upstream)", base, []priceLookup{
			{"m5.large", "us-east-1a", 0.096, true},
			{"m5.large", "any-zone", 0.096, true},
			{"g5.xlarge", "us-east-1a", 0, false},
		}},
		{"before refresh, with the default model", modelled, []priceLookup{
			{"m5.large", "us-east-1a", 0.0271, true},
			{"m5.large", "us-east-1b", 0.0341, true},
			{"c5.large", "us-east-1a", 0.0293, true},
			{"g5.xlarge", "us-east-1a", 0, false},
		}},
		{"after refresh, only real prices", refreshed, []priceLookup{
			{"m5.large", "us-east-1a", 0.0384, true},
			{"m5.large", "us-east-1b", 0, false},
			{"c5.large", "us-east-1a", 0, false},
			{"g5.xlarge", "us-east-1a", 0.41, true},
		}},
		{"a model given after a refresh is not consulted", refreshed.WithSpotModel(SpotModel{}), []priceLookup{
			{"m5.large", "us-east-1b", 0, false},
		}},
		{"an empty refresh changes nothing", modelled.WithSpotPrices(nil), []priceLookup{
			{"m5.large", "us-east-1a", 0.0271, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkSpot(t, tt.table, tt.want) })
	}
	if base.HasSpotPrices() || modelled.HasSpotPrices() || !refreshed.HasSpotPrices() {
		t.Error("HasSpotPrices wrong")
	}
	// On-demand prices are untouched by spot refreshes.
	if price, _ := refreshed.OnDemandPrice("c5.large"); price != 0.085 {
		t.Errorf("on-demand c5.large = %v after refresh", price)
	}
}

func TestTableWithSpotPricesMergesAndPicks(t *testing.T) {
	first := NewTable(nil).WithSpotPrices([]SpotPrice{
		{InstanceType: "m5.large", Zone: "a", Price: 0.04, Timestamp: t0},
		{InstanceType: "m5.large", Zone: "b", Price: 0.05, Timestamp: t0},
	})
	second := first.WithSpotPrices([]SpotPrice{
		// Same (type, zone) three times: the latest wins, then the higher price.
		{InstanceType: "m5.large", Zone: "a", Price: 0.09, Timestamp: t0.Add(-time.Hour)},
		{InstanceType: "m5.large", Zone: "a", Price: 0.03, Timestamp: t0.Add(time.Hour)},
		{InstanceType: "m5.large", Zone: "a", Price: 0.035, Timestamp: t0.Add(time.Hour)},
		{InstanceType: "c5.large", Zone: "a", Price: 0.02, Timestamp: t0},
	})
	// A later call replaces a (type, zone) even with an older timestamp.
	third := second.WithSpotPrices([]SpotPrice{{InstanceType: "c5.large", Zone: "a", Price: 0.025, Timestamp: t0.Add(-24 * time.Hour)}})

	wantFirst := []string{"m5.large a 0.04 0001-01-01T00:00:00Z", "m5.large b 0.05 0001-01-01T00:00:00Z"}
	wantSecond := []string{"c5.large a 0.02 0001-01-01T00:00:00Z", "m5.large a 0.035 0001-01-01T00:00:00Z", "m5.large b 0.05 0001-01-01T00:00:00Z"}
	wantThird := []string{"c5.large a 0.025 0001-01-01T00:00:00Z", "m5.large a 0.035 0001-01-01T00:00:00Z", "m5.large b 0.05 0001-01-01T00:00:00Z"}
	for _, tt := range []struct {
		name  string
		table *Table
		want  []string
	}{{"first", first, wantFirst}, {"second", second, wantSecond}, {"third", third, wantThird}} {
		if got := spotPriceStrings(tt.table.SpotPrices()); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTableFromParsedHistory(t *testing.T) {
	table := NewTable(map[string]float64{"m5.large": 0.096}).WithSpotPrices(mustParseFixture(t))
	checkSpot(t, table, []priceLookup{
		{"m5.large", "us-east-1a", 0.0384, true},
		{"m5.large", "us-east-1d", 0, false}, // Windows only
		{"t3.micro", "us-west-2a", 0.0032, true},
	})
}

func TestTableConcurrentReads(t *testing.T) {
	table := NewTable(map[string]float64{"m5.large": 0.096}).WithSpotModel(DefaultSpotModel())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				if price, ok := table.SpotPrice("m5.large", "us-east-1a"); !ok || price != 0.0271 {
					t.Errorf("SpotPrice = %v, %v", price, ok)
					return
				}
				_ = table.OnDemandTypes()
				_ = table.WithSpotPrices([]SpotPrice{{InstanceType: "m5.large", Zone: "us-east-1a", Price: 1}})
			}
		})
	}
	wg.Wait()
}

func TestSpotPriceString(t *testing.T) {
	p := SpotPrice{InstanceType: "m5.large", Zone: "us-east-1a", Price: 0.0384,
		Timestamp: time.Date(2024, 5, 1, 14, 0, 0, 5e8, time.FixedZone("CEST", 2*3600))}
	if got, want := p.String(), "m5.large us-east-1a 0.0384 2024-05-01T12:00:00.5Z"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

var _ Source = (*Table)(nil)

func BenchmarkTableSpotPrice(b *testing.B) {
	onDemand := map[string]float64{}
	types, zones := catalog()
	var history []SpotPrice
	for i, it := range types {
		onDemand[it] = 0.1 * float64(i+1)
		for _, z := range zones {
			history = append(history, SpotPrice{InstanceType: it, Zone: z, Price: 0.03 * float64(i+1), Timestamp: t0})
		}
	}
	modelled := NewTable(onDemand).WithSpotModel(DefaultSpotModel())
	refreshed := modelled.WithSpotPrices(history)
	for _, bc := range []struct {
		name  string
		table *Table
	}{{"model", modelled}, {"history", refreshed}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := bc.table.SpotPrice(types[i%len(types)], zones[i%len(zones)]); !ok {
					b.Fatal("no price")
				}
				i++
			}
		})
	}
}
