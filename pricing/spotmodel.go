package pricing

import (
	"errors"
	"fmt"
	"math"
)

// SpotMode says how a SpotModel turns an on-demand price into a spot price.
type SpotMode uint8

const (
	// SpotFromOnDemand makes the spot price equal to the on-demand price in
	// every zone, which is what Karpenter uses before its first spot price
	// refresh. It is the zero value.
	SpotFromOnDemand SpotMode = iota
	// SpotDiscounted applies a per-(type, zone) discount; see SpotModel.
	SpotDiscounted
)

// String returns the mode's Go name.
func (m SpotMode) String() string {
	switch m {
	case SpotFromOnDemand:
		return "SpotFromOnDemand"
	case SpotDiscounted:
		return "SpotDiscounted"
	}
	return fmt.Sprintf("SpotMode(%d)", uint8(m))
}

// SpotModel derives spot prices from on-demand prices when no real spot
// prices are known. The zero value is mode SpotFromOnDemand.
//
// In mode SpotDiscounted the price of instance type T in zone Z is
//
//	h        = fmix64(FNV-1a 64-bit hash of the bytes of T + "/" + Z)
//	u        = (h >> 11) / 2^53                      // uniform in [0, 1)
//	discount = MinDiscount + (MaxDiscount − MinDiscount) × u
//	spot     = round(onDemand × (1 − discount), 4 decimal places)
//
// where fmix64 is MurmurHash3's 64-bit finalizer (x ^= x>>33;
// x *= 0xff51afd7ed558ccd; x ^= x>>33; x *= 0xc4ceb9fe1a85ec53; x ^= x>>33),
// needed because FNV-1a alone hardly changes its high bits when only the last
// byte differs, as between us-east-1a and us-east-1b. The price is
// rounded half away from zero, and never below 0.0001 (AWS's smallest price
// step) unless onDemand itself is. The discount lies in [MinDiscount,
// MaxDiscount]. DefaultSpotModel uses the range 0.55 to 0.75, so spot prices
// are 25% to 45% of on-demand, 35% on average (before rounding),
// in line with real spot prices averaging 60% to 70% below on-demand. Each
// zone gets its own discount, as real spot markets do, and the same (type,
// zone, on-demand price) gives the same spot price on every machine: the
// arithmetic is IEEE 754 double precision with every rounding explicit.
type SpotModel struct {
	Mode SpotMode
	// MinDiscount and MaxDiscount bound the discount in mode SpotDiscounted;
	// 0 <= MinDiscount <= MaxDiscount < 1.
	MinDiscount, MaxDiscount float64
}

// Default discount range of DefaultSpotModel.
const (
	DefaultMinSpotDiscount = 0.55
	DefaultMaxSpotDiscount = 0.75
)

// minPriceStep is the smallest non-zero price the model returns, the fourth
// decimal place AWS prices are quoted to.
const minPriceStep = 0.0001

// DefaultSpotModel returns the discounted model with the default discount
// range, DefaultMinSpotDiscount to DefaultMaxSpotDiscount.
func DefaultSpotModel() SpotModel {
	return SpotModel{Mode: SpotDiscounted, MinDiscount: DefaultMinSpotDiscount, MaxDiscount: DefaultMaxSpotDiscount}
}

// ErrInvalidSpotModel is wrapped by the error Validate returns.
var ErrInvalidSpotModel = errors.New("invalid spot model")

// Validate reports whether m's fields are usable. Check a model built from
// user input once, before use; Price treats an invalid model as
// SpotFromOnDemand rather than failing.
func (m SpotModel) Validate() error {
	switch {
	case m.Mode != SpotFromOnDemand && m.Mode != SpotDiscounted:
		return fmt.Errorf("%w: unknown mode %s", ErrInvalidSpotModel, m.Mode)
	case m.Mode == SpotFromOnDemand:
		return nil
	case !(m.MinDiscount >= 0 && m.MinDiscount < 1):
		return fmt.Errorf("%w: MinDiscount %v is outside [0, 1)", ErrInvalidSpotModel, m.MinDiscount)
	case !(m.MaxDiscount >= 0 && m.MaxDiscount < 1):
		return fmt.Errorf("%w: MaxDiscount %v is outside [0, 1)", ErrInvalidSpotModel, m.MaxDiscount)
	case m.MinDiscount > m.MaxDiscount:
		return fmt.Errorf("%w: MinDiscount %v is above MaxDiscount %v", ErrInvalidSpotModel, m.MinDiscount, m.MaxDiscount)
	}
	return nil
}

// Price returns the spot price of instanceType in zone given its on-demand
// price, by the formula in the SpotModel doc. In mode SpotFromOnDemand, for an
// invalid model, or for an onDemand that is not a positive finite number, it
// returns onDemand unchanged.
func (m SpotModel) Price(instanceType, zone string, onDemand float64) float64 {
	if m.Mode != SpotDiscounted || m.Validate() != nil || !(onDemand > 0) || math.IsInf(onDemand, 1) {
		return onDemand
	}
	spot := math.Round(onDemand*(1-m.Discount(instanceType, zone))*1e4) / 1e4
	return max(spot, min(onDemand, minPriceStep))
}

// Discount returns the fraction of the on-demand price that mode
// SpotDiscounted takes off for instanceType in zone, in
// [MinDiscount, MaxDiscount]. It does not check the model.
func (m SpotModel) Discount(instanceType, zone string) float64 {
	u := float64(zoneHash(instanceType, zone)>>11) / (1 << 53)
	// The float64 conversion rounds the product before the add, so the
	// compiler may not fuse them into one FMA instruction (the Go spec allows
	// it and arm64 does it), which would give other machines other prices.
	return m.MinDiscount + float64((m.MaxDiscount-m.MinDiscount)*u)
}

// zoneHash is fmix64(FNV-1a 64 of instanceType + "/" + zone), computed
// without building the string so that pricing an offering does not allocate.
func zoneHash(instanceType, zone string) uint64 {
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	for i := 0; i < len(instanceType); i++ {
		h = (h ^ uint64(instanceType[i])) * prime64
	}
	h = (h ^ '/') * prime64
	for i := 0; i < len(zone); i++ {
		h = (h ^ uint64(zone[i])) * prime64
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
