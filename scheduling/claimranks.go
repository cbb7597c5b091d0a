package scheduling

import (
	"math"
	"slices"

	"github.com/karpsim/karpsim/resources"
)

// claimRanks is addCheapest's order of the claims for pods of one size,
// kept from pod to pod. What a pod adds to a claim's price (extraPrice)
// depends on nothing of the pod but its requests, and a claim's only
// changes when a pod joins it or its stale options go (its version), so
// pods of one workload, placed one after another, re-rank just the claim
// the last one joined and the claims opened since: a walk over hundreds
// of claims becomes a look at the few in front.
type claimRanks struct {
	valid    bool
	requests resources.Vector
	// seen is, per claim index, the claim's version when it was ranked,
	// plus one (zero: not ranked yet); extras what the pod adds to it.
	seen   []uint64
	extras []float64
	// zeros are the claims the pod makes no dearer, by index; ranked
	// the others that some option would hold it in, by compareRanked.
	zeros  []int
	ranked []rankedClaim
	// scans are extraPriceScan's answers for claims that share their
	// options and prices, by what the scan reads: claims of one workload
	// go through the same states, one after another.
	scans map[scanKey][]scanAnswer
}

// scanKey is what extraPriceScan reads of a claim but its requests.
type scanKey struct {
	options  optionsKey
	prices   *float64
	cheapest int
	requests resources.Slots
}

type scanAnswer struct {
	requests resources.Vector
	extra    float64
}

// extraPrice is claim.extraPrice, its scan shared by claims alike.
func (r *claimRanks) extraPrice(c *claim, p *podInfo, s *solver) float64 {
	if c.cheapest < 0 {
		c.priceCheapest(&s.scratch)
	}
	options, ok := keyOf(c.options)
	if !c.shared || !ok || len(c.prices) == 0 || len(c.pods) > alikePods || c.cheapest == len(c.options) || p.requests.Fits(c.slack) {
		return c.extraPrice(p, s)
	}
	key := scanKey{options: options, prices: &c.prices[0], cheapest: c.cheapest, requests: c.requests.Slots()}
	for _, a := range r.scans[key] {
		if a.requests.Equal(c.requests) {
			return a.extra
		}
	}
	extra := c.extraPrice(p, s)
	if r.scans == nil {
		r.scans = map[scanKey][]scanAnswer{}
	}
	r.scans[key] = append(r.scans[key], scanAnswer{requests: c.requests, extra: extra})
	return extra
}

// rank brings the ranks up to date with the claims for the pod.
func (r *claimRanks) rank(p *podInfo, s *solver) {
	if !r.valid || !r.requests.Equal(*p.requests) {
		r.valid, r.requests = true, *p.requests
		r.seen, r.extras, r.zeros, r.ranked = r.seen[:0], r.extras[:0], r.zeros[:0], r.ranked[:0]
		clear(r.scans)
	}
	for i, c := range s.claims {
		if i == len(r.seen) {
			r.seen, r.extras = append(r.seen, 0), append(r.extras, 0)
		}
		if r.seen[i] == c.version+1 {
			continue
		}
		if r.seen[i] != 0 {
			r.drop(i)
		}
		extra := r.extraPrice(c, p, s)
		r.seen[i], r.extras[i] = c.version+1, extra
		switch {
		case extra == 0:
			k, _ := slices.BinarySearch(r.zeros, i)
			r.zeros = slices.Insert(r.zeros, k, i)
		case !math.IsInf(extra, 1):
			e := rankedClaim{extra: extra, index: i}
			k, _ := slices.BinarySearchFunc(r.ranked, e, compareRanked)
			r.ranked = slices.Insert(r.ranked, k, e)
		}
	}
}

// drop takes claim i out of the order it was ranked in.
func (r *claimRanks) drop(i int) {
	switch extra := r.extras[i]; {
	case extra == 0:
		if k, ok := slices.BinarySearch(r.zeros, i); ok {
			r.zeros = slices.Delete(r.zeros, k, k+1)
		}
	case !math.IsInf(extra, 1):
		if k, ok := slices.BinarySearchFunc(r.ranked, rankedClaim{extra: extra, index: i}, compareRanked); ok {
			r.ranked = slices.Delete(r.ranked, k, k+1)
		}
	}
}
