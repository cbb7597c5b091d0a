package pricing

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// The golden prices were checked against an independent Python
// implementation of the documented formula; a change here changes every
// simulated spot price.
func TestSpotModelPriceGolden(t *testing.T) {
	tests := []struct {
		instanceType, zone string
		onDemand, want     float64
	}{
		{"m5.large", "us-east-1a", 0.096, 0.0271},
		{"m5.large", "us-east-1b", 0.096, 0.0341},
		{"m5.large", "us-east-1c", 0.096, 0.0313},
		{"c5.large", "us-east-1a", 0.085, 0.0293},
		{"t4g.nano", "us-east-1a", 0.0042, 0.0012},
		{"p5.48xlarge", "us-west-2b", 98.32, 28.9405},
	}
	m := DefaultSpotModel()
	for _, tt := range tests {
		if got := m.Price(tt.instanceType, tt.zone, tt.onDemand); got != tt.want {
			t.Errorf("Price(%s, %s, %v) = %v, want %v", tt.instanceType, tt.zone, tt.onDemand, got, tt.want)
		}
	}
	if got, want := zoneHash("m5.large", "us-east-1a"), uint64(0xd6308ebd655aec98); got != want {
		t.Errorf("zoneHash = %#x, want %#x", got, want)
	}
}

func TestSpotModelPriceEdges(t *testing.T) {
	def := DefaultSpotModel()
	tests := []struct {
		name     string
		model    SpotModel
		onDemand float64
		want     float64
	}{
		{"zero value is spot = on-demand", SpotModel{}, 0.096, 0.096},
		{"SpotFromOnDemand ignores discounts", SpotModel{Mode: SpotFromOnDemand, MinDiscount: 0.5, MaxDiscount: 0.6}, 0.123456, 0.123456},
		{"fixed discount", SpotModel{Mode: SpotDiscounted, MinDiscount: 0.5, MaxDiscount: 0.5}, 0.096, 0.048},
		{"no discount keeps more than 4 decimals rounded", SpotModel{Mode: SpotDiscounted}, 0.00525, 0.0053},
		{"floor at the smallest price step", def, 0.0002, 0.0001},
		{"never above a tiny on-demand price", def, 0.00005, 0.00005},
		{"zero on-demand", def, 0, 0},
		{"negative on-demand unchanged", def, -1, -1},
		{"infinite on-demand unchanged", def, math.Inf(1), math.Inf(1)},
		{"invalid model falls back to on-demand", SpotModel{Mode: SpotDiscounted, MinDiscount: 0.8, MaxDiscount: 0.2}, 0.096, 0.096},
		{"unknown mode falls back to on-demand", SpotModel{Mode: 9, MinDiscount: 0.5, MaxDiscount: 0.5}, 0.096, 0.096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.model.Price("m5.large", "us-east-1a", tt.onDemand); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if got := def.Price("m5.large", "us-east-1a", math.NaN()); !math.IsNaN(got) {
		t.Errorf("NaN on-demand: got %v, want NaN", got)
	}
}

// catalog is a spread of names shaped like EC2's, to test the model's
// statistics without the real price table.
func catalog() (types, zones []string) {
	for _, family := range []string{"m5", "c6i", "r7g", "t3", "g5", "i4i", "x2idn", "m7a"} {
		for _, size := range []string{"large", "xlarge", "2xlarge", "4xlarge", "12xlarge", "metal"} {
			types = append(types, family+"."+size)
		}
	}
	for _, region := range []string{"us-east-1", "eu-west-1", "ap-southeast-2"} {
		for _, az := range "abcdef" {
			zones = append(zones, region+string(az))
		}
	}
	return types, zones
}

func TestSpotModelDiscountRangeAndSpread(t *testing.T) {
	m := DefaultSpotModel()
	types, zones := catalog()
	sum, n := 0.0, 0
	for _, it := range types {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, z := range zones {
			d := m.Discount(it, z)
			if d < DefaultMinSpotDiscount || d > DefaultMaxSpotDiscount {
				t.Fatalf("Discount(%s, %s) = %v, outside [0.55, 0.75]", it, z, d)
			}
			if p := m.Price(it, z, 1.0); !(p < 1.0) || p < 0.25 || p > 0.45 {
				t.Fatalf("Price(%s, %s, 1) = %v, want in [0.25, 0.45] and below on-demand", it, z, p)
			}
			lo, hi, sum, n = min(lo, d), max(hi, d), sum+d, n+1
		}
		// Every type's zones should spread over most of the range.
		if hi-lo < 0.1 {
			t.Errorf("%s: discounts across %d zones only span %v", it, len(zones), hi-lo)
		}
	}
	if mean := sum / float64(n); math.Abs(mean-0.65) > 0.01 {
		t.Errorf("mean discount %v, want 0.65 ± 0.01", mean)
	}
}

func TestSpotModelZonesDiffer(t *testing.T) {
	m := DefaultSpotModel()
	types, _ := catalog()
	for _, it := range types {
		a, b := m.Discount(it, "us-east-1a"), m.Discount(it, "us-east-1b")
		if math.Abs(a-b) < 1e-6 {
			t.Errorf("%s: us-east-1a and us-east-1b share discount %v", it, a)
		}
	}
}

func TestSpotModelDeterministic(t *testing.T) {
	types, zones := catalog()
	first := map[string]float64{}
	for round := 0; round < 3; round++ {
		m := DefaultSpotModel() // a fresh value each round: no hidden state
		for _, it := range types {
			for _, z := range zones {
				key, p := it+"/"+z, m.Price(it, z, 0.5)
				if round == 0 {
					first[key] = p
				} else if first[key] != p {
					t.Fatalf("%s: %v then %v", key, first[key], p)
				}
			}
		}
	}
}

func TestSpotModelValidate(t *testing.T) {
	tests := []struct {
		model SpotModel
		want  string
	}{
		{SpotModel{}, ""},
		{DefaultSpotModel(), ""},
		{SpotModel{Mode: SpotFromOnDemand, MinDiscount: 7}, ""},
		{SpotModel{Mode: SpotDiscounted}, ""},
		{SpotModel{Mode: 2}, "invalid spot model: unknown mode SpotMode(2)"},
		{SpotModel{Mode: SpotDiscounted, MinDiscount: -0.1, MaxDiscount: 0.5}, "invalid spot model: MinDiscount -0.1 is outside [0, 1)"},
		{SpotModel{Mode: SpotDiscounted, MinDiscount: 0.5, MaxDiscount: 1}, "invalid spot model: MaxDiscount 1 is outside [0, 1)"},
		{SpotModel{Mode: SpotDiscounted, MinDiscount: math.NaN(), MaxDiscount: 0.5}, "invalid spot model: MinDiscount NaN is outside [0, 1)"},
		{SpotModel{Mode: SpotDiscounted, MinDiscount: 0.7, MaxDiscount: 0.6}, "invalid spot model: MinDiscount 0.7 is above MaxDiscount 0.6"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.model), func(t *testing.T) {
			err := tt.model.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("got %v, want %s", err, tt.want)
			case err != nil && !errors.Is(err, ErrInvalidSpotModel):
				t.Errorf("%v does not wrap ErrInvalidSpotModel", err)
			}
		})
	}
}

func TestSpotModeString(t *testing.T) {
	for mode, want := range map[SpotMode]string{SpotFromOnDemand: "SpotFromOnDemand", SpotDiscounted: "SpotDiscounted", 5: "SpotMode(5)"} {
		if got := mode.String(); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}
