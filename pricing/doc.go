// Package pricing holds the prices of instance-type offerings and records
// which offerings are temporarily unavailable after an insufficient-capacity
// error.
//
// A Source prices an offering: Table holds on-demand (and, once given, spot)
// prices, SpotModel is karpsim's deterministic model of spot prices for when
// no real ones are given, and ParseSpotPriceHistory reads the output of
// `aws ec2 describe-spot-price-history`. UnavailableOfferings remembers the
// offerings a launch found without capacity, for DefaultUnavailableTTL.
//
// It is pure: nothing here reads a clock, the network or a file; time is
// always an argument and the only input functions parse an io.Reader the
// caller opened. The same inputs give the same prices on every machine.
package pricing
