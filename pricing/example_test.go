package pricing_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/karpsim/karpsim/pricing"
)

func ExampleTable() {
	table := pricing.NewTable(map[string]float64{"m5.large": 0.096, "c5.large": 0.085})

	// Before the first spot refresh Karpenter prices spot like on-demand.
	spot, ok := table.SpotPrice("m5.large", "us-east-1a")
	fmt.Println("before refresh:", spot, ok)

	// After a refresh only (type, zone) pairs with a real price have spot.
	history := `{"SpotPriceHistory": [{"AvailabilityZone": "us-east-1a", "InstanceType": "m5.large",
		"ProductDescription": "Linux/UNIX", "SpotPrice": "0.038400", "Timestamp": "2024-05-01T12:00:00+00:00"}]}`
	prices, err := pricing.ParseSpotPriceHistory(strings.NewReader(history), "history.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	refreshed := table.WithSpotPrices(prices)
	for _, zone := range []string{"us-east-1a", "us-east-1b"} {
		spot, ok := refreshed.SpotPrice("m5.large", zone)
		fmt.Println("after refresh:", zone, spot, ok)
	}
	fmt.Println(refreshed.OnDemandTypes())
	// Output:
	// before refresh: 0.096 true
	// after refresh: us-east-1a 0.0384 true
	// after refresh: us-east-1b 0 false
	// [c5.large m5.large]
}

func ExampleSpotModel() {
	model := pricing.DefaultSpotModel()
	for _, zone := range []string{"us-east-1a", "us-east-1b", "us-east-1c"} {
		fmt.Printf("m5.large %s: spot %.4f (discount %.3f)\n",
			zone, model.Price("m5.large", zone, 0.096), model.Discount("m5.large", zone))
	}
	// The zero model is Karpenter's "spot = on-demand" before a refresh.
	fmt.Println(pricing.SpotModel{}.Price("m5.large", "us-east-1a", 0.096))
	// Output:
	// m5.large us-east-1a: spot 0.0271 (discount 0.717)
	// m5.large us-east-1b: spot 0.0341 (discount 0.645)
	// m5.large us-east-1c: spot 0.0313 (discount 0.674)
	// 0.096
}

func ExampleUnavailableOfferings() {
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	var ice pricing.UnavailableOfferings // TTL 0 means the default, 3 minutes
	ice.MarkUnavailable("spot", "m5.large", "us-east-1a", start)
	fmt.Println(ice.IsUnavailable("spot", "m5.large", "us-east-1a", start),
		ice.IsUnavailable("on-demand", "c5.large", "us-east-1c", start))

	ice.MarkZoneUnavailable("us-east-1c", start.Add(time.Minute))
	for _, offset := range []time.Duration{3 * time.Minute, 4 * time.Minute} {
		now := start.Add(offset)
		fmt.Println(offset, ice.IsUnavailable("spot", "m5.large", "us-east-1a", now),
			ice.IsUnavailable("on-demand", "c5.large", "us-east-1c", now))
	}
	for _, entry := range ice.Entries(start.Add(2 * time.Minute)) {
		fmt.Println(entry)
	}
	fmt.Println("pruned", ice.Prune(start.Add(time.Hour)), "seq", ice.Seq())
	// Output:
	// true false
	// 3m0s true true
	// 4m0s false true
	// offering spot/m5.large/us-east-1a until 2024-05-01T12:03:00Z
	// zone us-east-1c until 2024-05-01T12:04:00Z
	// pruned 2 seq 4
}
