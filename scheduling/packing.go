package scheduling

import (
	"cmp"
	"errors"
	"math"
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// Packing is how a solve chooses among the claims that could take a pod.
// Whichever it is, a pod joins a claim only if every check passes it: the
// packing changes which plan is found, never which constraints it obeys.
type Packing int

const (
	// PackFewestPods is Karpenter's: the existing nodes first, then the
	// claims of the solve, fewest pods first, and a new claim only when
	// none takes the pod.
	PackFewestPods Packing = iota
	// PackCheapest places each pod where it adds least to the plan's
	// price: the existing nodes first (they cost nothing more), then the
	// claims in order of how much dearer the pod makes their cheapest
	// instance type (zero when it fits the room the claim pays for
	// already), and a new claim before any claim the pod would make
	// dearer by more than a new node for it costs. Claims keep their
	// creation order. It is not Karpenter's: Karpenter grows claims until
	// only large types hold them and spreads pods over the emptiest
	// claims; this packs them first-fit by price instead, for package
	// optimize.
	PackCheapest
	// PackEfficient is PackCheapest with each claim opened for the type
	// that packs pods like its first most cheaply (efficientOption): the
	// room of that type counts as paid for, so pods fill it before the
	// claim is deemed to grow. It suits catalogs whose price per cpu or
	// GiB varies by family and size, where the cheapest type for one pod
	// is rarely the cheapest per pod.
	PackEfficient
	// PackBalanced is PackEfficient with the pods taken in another order:
	// while the newest claim has room, the next pod is the one, of those
	// its room holds, whose requests best match that room (the largest
	// dot product of the pod's requests and the room left, each resource
	// as a share of the claim's type); when none fits, the next pod in
	// Karpenter's order. Claims so mix cpu-heavy and memory-heavy pods
	// rather than filling with whichever comes first and leaving the
	// other resource idle. Pods refused on the way are tried again, in
	// Karpenter's order, once every pod has been taken.
	PackBalanced
)

// ErrStopped is the reason given to the pods a solve left unplaced when
// Options.StopAbovePrice stopped it.
var ErrStopped = errors.New("the solve stopped: its plan would cost more than Options.StopAbovePrice")

// stopCheckEvery is how many pods a solve with StopAbovePrice places
// between looks at its price.
const stopCheckEvery = 64

// priceFloor is what the claims cost an hour at least: each its cheapest
// option, under its requirements, that holds its pods so far. Options
// only go as pods join, so the plan's launch prices are no lower.
func (s *solver) priceFloor() float64 {
	total := 0.0
	for _, c := range s.claims {
		if c.cheapest < 0 {
			c.priceCheapest(&s.scratch)
		}
		if c.cheapest < len(c.options) {
			total += c.floor
		}
	}
	return total
}

// stop gives up the solve: the queued pods are unschedulable.
func (s *solver) stop(queued []*podInfo) {
	for _, p := range queued {
		s.failed[p] = ErrStopped
	}
}

// rankedClaim is a claim of the solve, by index, with what adding the
// pod adds to its price.
type rankedClaim struct {
	extra float64
	index int
}

func compareRanked(a, b rankedClaim) int {
	return cmp.Or(cmp.Compare(a.extra, b.extra), cmp.Compare(a.index, b.index))
}

// addCheapest is add's walk of the claims under PackCheapest: the claims,
// less those the shortcuts rule out (answers), in order of the price the
// pod adds to them, then of creation, with a new claim tried before the
// first claim the pod would make dearer than a new node for it costs.
func (s *solver) addCheapest(p *podInfo, why bool, a *Attempt, claims []*claim, answers []affinityAnswer) error {
	try := func(i int) bool {
		c := claims[i]
		ok := c.tryAdd(p, s)
		a.record(claimVerdict, c.name, ok, func() error { return c.explain(p, s) })
		return ok
	}
	if !why && a == nil && len(answers) == 0 && len(claims) == len(s.claims) && shareWork {
		return s.addRanked(p, try)
	}
	// The claims the pod makes no dearer come first, in creation order:
	// they are tried as they are found, most pods joining one of them.
	// The others are ranked.
	ranked := s.scratch.ranked[:0]
	defer func() { s.scratch.ranked = ranked[:0] }()
	for i, c := range claims {
		if len(answers) > 0 && c.excludes(answers) {
			continue
		}
		switch extra := c.extraPrice(p, s); {
		case extra == 0:
			if try(i) {
				return nil
			}
		case !math.IsInf(extra, 1) || why:
			// A claim no option of which would hold the pod is only
			// asked, to say why it refuses, when reasons are wanted.
			ranked = append(ranked, rankedClaim{extra: extra, index: i})
		}
	}
	fresh := s.newClaimPrice(p)
	// A new claim is most often cheaper than the cheapest of the others,
	// which are then sorted only if it is refused.
	sorted := len(ranked) == 0
	if !sorted && slices.MinFunc(ranked, compareRanked).extra <= fresh {
		slices.SortFunc(ranked, compareRanked)
		sorted = true
	}
	triedNew := false
	var newErr error
	for k := 0; k < len(ranked); k++ {
		if !triedNew && ranked[k].extra > fresh {
			triedNew = true
			if newErr = s.addNewClaim(p, why, a); newErr == nil {
				return nil
			}
			if !sorted {
				slices.SortFunc(ranked, compareRanked)
				sorted = true
			}
		}
		if try(ranked[k].index) {
			return nil
		}
	}
	if triedNew {
		return newErr
	}
	return s.addNewClaim(p, why, a)
}

// addRanked is addCheapest's walk in the order claimRanks keeps, for a
// pod no shortcut rules claims out for, whose reasons are not wanted: the
// same order, without pricing every claim again for every pod.
func (s *solver) addRanked(p *podInfo, try func(int) bool) error {
	s.ranks.rank(p, s)
	for _, i := range s.ranks.zeros {
		if try(i) {
			return nil
		}
	}
	fresh := s.newClaimPrice(p)
	triedNew := false
	var newErr error
	for _, r := range s.ranks.ranked {
		if !triedNew && r.extra > fresh {
			triedNew = true
			if newErr = s.addNewClaim(p, false, nil); newErr == nil {
				return nil
			}
		}
		if try(r.index) {
			return nil
		}
	}
	if triedNew {
		return newErr
	}
	return s.addNewClaim(p, false, nil)
}

// opensForTarget reports whether new claims are opened for the type that
// packs their first pod most cheaply (efficientOption).
func (s *solver) opensForTarget() bool {
	return s.opts.Packing == PackEfficient || s.opts.Packing == PackBalanced
}

// placeBalanced is run's first pass under PackBalanced: it places the
// pods, sorted in Karpenter's order, taking each next the one that best
// fills the newest claim (balancedNext), and returns the pods it could
// not place, in the order it tried them, for run's queue; after
// StopAbovePrice stopped it, those it did not try as well.
func (s *solver) placeBalanced(sorted []*podInfo) []*podInfo {
	// Pods with the same requests are interchangeable to the choice:
	// each run of them in the sorted order is one group, taken in order.
	var groups [][]*podInfo
	for i, p := range sorted {
		if i == 0 || !p.requests.Equal(*sorted[i-1].requests) {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], p)
	}
	var retry []*podInfo
	for n := range sorted {
		if s.opts.StopAbovePrice > 0 && n%stopCheckEvery == 0 && s.priceFloor() > s.opts.StopAbovePrice {
			for _, g := range groups {
				retry = append(retry, g...)
			}
			return retry
		}
		g := s.balancedNext(groups)
		p := groups[g][0]
		groups[g] = groups[g][1:]
		if err := s.try(p); err != nil {
			s.failed[p] = err
			retry = append(retry, p)
			continue
		}
		delete(s.failed, p)
	}
	return retry
}

// balancedNext is the group whose next pod best fills the newest claim:
// of the pods its room holds, the one whose requests have the largest
// dot product with the room left, cpu and memory each as a share of the
// claim's type, ties going to the earlier group; the first group with
// pods left when the room holds none.
func (s *solver) balancedNext(groups [][]*podInfo) int {
	first := slices.IndexFunc(groups, func(g []*podInfo) bool { return len(g) > 0 })
	if len(s.claims) == 0 {
		return first
	}
	c := s.claims[len(s.claims)-1]
	if c.cheapest < 0 {
		c.priceCheapest(&s.scratch)
	}
	if c.cheapest == len(c.options) {
		return first
	}
	// The claim's room is its cheapest option's that holds its pods, or
	// its target's (priceCheapest).
	room := c.options[c.cheapest].room
	best, bestScore := first, 0.0
	for i := first; i < len(groups); i++ {
		if len(groups[i]) == 0 {
			continue
		}
		r := groups[i][0].requests
		if !r.Fits(c.slack) {
			continue
		}
		score := 0.0
		for _, slot := range [...]int{resources.SlotCPU, resources.SlotMemory} {
			if total := float64(room.Slot(slot)); total > 0 {
				score += float64(r.Slot(slot)) / total * float64(c.slack.Slot(slot)) / total
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// extraPrice is how much dearer the pod makes the cheapest option that
// holds the claim's requests, by the cheapest offering the claim's
// requirements allow of each, +Inf when no option would hold it. It is
// an estimate, used to order the claims: the launch prefers capacity
// types in launch order before price.
func (c *claim) extraPrice(p *podInfo, s *solver) float64 {
	if c.cheapest < 0 {
		c.priceCheapest(&s.scratch)
	}
	if c.cheapest == len(c.options) {
		return math.Inf(1)
	}
	if p.requests.Fits(c.slack) {
		return 0
	}
	// Pods of one workload ask for the same: the answer for the last
	// pod holds until the claim changes.
	if c.extra.valid && c.extra.requests.Equal(*p.requests) {
		return c.extra.price
	}
	price := c.extraPriceScan(p)
	c.extra.valid, c.extra.requests, c.extra.price = true, *p.requests, price
	return price
}

// extraPriceScan is extraPrice for a pod the claim's slack does not hold:
// the cheapest option that would hold it, less the claim's price now.
func (c *claim) extraPriceScan(p *podInfo) float64 {
	after := c.requests.Add(*p.requests)
	current, next := c.prices[c.options[c.cheapest].index], math.Inf(1)
	for _, o := range c.options[c.cheapest+1:] {
		if after.Fits(o.room) {
			next = min(next, c.prices[o.index])
			if c.poolOrder {
				break
			}
		}
	}
	if !c.poolOrder {
		// Cheaper options may come before the current one.
		for _, o := range c.options[:c.cheapest] {
			if after.Fits(o.room) {
				next = min(next, c.prices[o.index])
			}
		}
	}
	return max(0, next-current)
}

// priceCheapest works out the claim's prices under its requirements and
// its cheapest option that holds its requests, which stays the cheapest
// until a pod joins (commit) or stale options go (settle).
func (c *claim) priceCheapest(scratch *scratchSpace) {
	// A pod that changed none of the claim's requirements leaves them the
	// same set, and the prices as they were.
	if c.prices == nil || !c.pricedUnder.SameSet(c.requirements) || !shareWork {
		c.prices, c.poolOrder = c.tmpl.pricesUnder(c.requirements, scratch)
		c.pricedUnder = c.requirements
	}
	c.cheapest, c.extra.valid = len(c.options), false
	// Claims sharing their options and prices, with the same requests,
	// find the same (cheapestAnswer). Claims alike are claims of a few
	// pods, which packings open many of: a claim of many has requests
	// of its own.
	options, ok := keyOf(c.options)
	if !c.shared || !ok || len(c.prices) == 0 || len(c.pods) > alikePods || !shareWork {
		c.findCheapest()
		return
	}
	key := cheapestKey{options: options, prices: &c.prices[0], target: c.target, requests: c.requests.Slots()}
	for _, a := range scratch.cheapest[key] {
		if a.requests.Equal(c.requests) {
			c.cheapest, c.slack, c.floor = a.cheapest, a.slack, a.floor
			return
		}
	}
	c.findCheapest()
	if scratch.cheapest == nil {
		scratch.cheapest = map[cheapestKey][]cheapestAnswer{}
	}
	scratch.cheapest[key] = append(scratch.cheapest[key], cheapestAnswer{requests: c.requests, cheapest: c.cheapest, slack: c.slack, floor: c.floor})
}

// alikePods is the most pods a claim holds for its work to be shared with
// claims alike (cheapestAnswer, scanAnswer).
const alikePods = 8

// cheapestKey is what findCheapest reads of a claim but its requests.
type cheapestKey struct {
	options  optionsKey
	prices   *float64
	target   *typeOption
	requests resources.Slots
}

// cheapestAnswer is what findCheapest found for claims with the requests.
type cheapestAnswer struct {
	requests resources.Vector
	cheapest int
	slack    resources.Vector
	floor    float64
}

// findCheapest is priceCheapest worked out, once the prices are known.
func (c *claim) findCheapest() {
	// A claim's requests only grow and its options only go: under the
	// same prices, no option cheaper than the last one found (or as
	// cheap and earlier) holds the requests now, so that one, while it
	// still holds them, is the cheapest still.
	last, from := -1, 0
	// Out of pool order, the options as cheap as the last one found (or
	// cheaper, or as cheap and earlier: below the floor) are passed over
	// without reading their fit.
	below, floorPrice, floorIndex := false, 0.0, 0
	if o := c.lowest; o != nil && shareWork && c.lowestPrices == &c.prices[0] {
		at, _ := slices.BinarySearchFunc(c.options, o.index, compareIndex)
		switch {
		case at < len(c.options) && c.options[at] == o && c.requests.Fits(o.room):
			last = at
		case c.poolOrder:
			// In pool order every option before the last one found is
			// as cheap or cheaper, and held the requests no more than
			// it did: the scan starts where it was.
			from = at
		default:
			below, floorPrice, floorIndex = true, c.prices[o.index], o.index
		}
	}
	if last >= 0 {
		c.cheapest, c.slack = last, c.lowest.room.Sub(c.requests)
	} else {
		found, best := c.cheapest < len(c.options), 0.0
		if found {
			best = c.prices[c.options[c.cheapest].index]
		}
		for i := from; i < len(c.options); i++ {
			o := c.options[i]
			// The price is compared first: it is cheaper to read than
			// the fit, and rules most options out once one holds the
			// requests.
			price := c.prices[o.index]
			if found && price >= best || below && (price < floorPrice || price == floorPrice && o.index <= floorIndex) {
				continue
			}
			if c.requests.Fits(o.room) {
				c.cheapest, c.slack, found, best = i, o.room.Sub(c.requests), true, price
				if c.poolOrder {
					break
				}
			}
		}
	}
	c.floor, c.lowest = math.Inf(1), nil
	if c.cheapest < len(c.options) {
		c.floor = c.prices[c.options[c.cheapest].index]
		c.lowest, c.lowestPrices = c.options[c.cheapest], &c.prices[0]
	}
	// A claim sized for its target type counts the target's room as paid
	// for while the target still holds its pods.
	if t := c.target; t != nil && c.requests.Fits(t.room) && c.prices[t.index] > c.floor {
		if i, ok := slices.BinarySearchFunc(c.options, t.index, compareIndex); ok {
			c.cheapest, c.slack = i, t.room.Sub(c.requests)
		}
	}
}

// compareIndex orders an option by its index in its template's options.
func compareIndex(o *typeOption, index int) int { return cmp.Compare(o.index, index) }

// efficientOption is the claim's option that holds the pod at the lowest
// price per share of it the pod uses (its largest share of any resource),
// ties going to the earlier: the type a node of pods like it packs most
// cheaply, rather than the cheapest that holds it alone.
func (c *claim) efficientOption(p *podInfo, scratch *scratchSpace) *typeOption {
	prices, _ := c.tmpl.pricesUnder(c.requirements, scratch)
	// New claims of pods alike start with the same shared options under
	// the same prices, and find the same type.
	options, ok := keyOf(c.options)
	if !c.shared || !ok || len(prices) == 0 || !shareWork {
		return c.efficientScan(p, prices)
	}
	key := efficientKey{options: options, prices: &prices[0], requests: p.requests.Slots()}
	for _, a := range scratch.efficient[key] {
		if a.requests.Equal(*p.requests) {
			return a.option
		}
	}
	best := c.efficientScan(p, prices)
	if scratch.efficient == nil {
		scratch.efficient = map[efficientKey][]efficientAnswer{}
	}
	scratch.efficient[key] = append(scratch.efficient[key], efficientAnswer{requests: *p.requests, option: best})
	return best
}

// efficientKey is what efficientScan reads of a claim and its prices but
// the pod's requests.
type efficientKey struct {
	options  optionsKey
	prices   *float64
	requests resources.Slots
}

// efficientAnswer is what efficientScan found for a pod with the requests.
type efficientAnswer struct {
	requests resources.Vector
	option   *typeOption
}

// efficientScan is efficientOption worked out, under the prices.
func (c *claim) efficientScan(p *podInfo, prices []float64) *typeOption {
	var best *typeOption
	bestRate := math.Inf(1)
	for _, o := range c.options {
		if !p.requests.Fits(o.room) {
			continue
		}
		share := 0.0
		for _, slot := range [...]int{resources.SlotCPU, resources.SlotMemory, resources.SlotPods} {
			if room := o.room.Slot(slot); room > 0 {
				share = max(share, float64(p.requests.Slot(slot))/float64(room))
			}
		}
		if rate := prices[o.index] * share; rate < bestRate {
			best, bestRate = o, rate
		}
	}
	return best
}

// pricesUnder returns, by option index, the price of each of the pool's
// options under the requirements (its cheapest offering they allow, +Inf
// for none), worked out once per distinct offering filter, and whether
// the prices rise with the index, as the pool's own do: a scan for the
// cheapest option may then stop at the first that fits.
func (t *template) pricesUnder(reqs requirements.Requirements, scratch *scratchSpace) ([]float64, bool) {
	key := appendOfferingSignature(scratch.signature[:0], reqs)
	scratch.signature = key
	if t.prices == nil {
		t.prices = map[string]optionPrices{}
	}
	prices, ok := t.prices[string(key)]
	if !ok {
		prices = optionPrices{byIndex: t.pricesOf(string(key), reqs), rising: true}
		for i := 1; i < len(prices.byIndex); i++ {
			prices.rising = prices.rising && prices.byIndex[i-1] <= prices.byIndex[i]
		}
		t.prices[string(key)] = prices
	}
	return prices.byIndex, prices.rising
}

// pricesOf is optionPrices, read from the options' priced list under the
// same offering filter when a launch made it already (priceClaim): the
// list holds every option with the cheapest offering the filter allows,
// worked out as optionPrices would, only sorted.
func (t *template) pricesOf(key string, reqs requirements.Requirements) []float64 {
	list, ok := t.priced[key]
	if !ok || !shareWork || len(list.options) != len(t.options) {
		return t.optionPrices(key, reqs)
	}
	out := make([]float64, len(t.options))
	for i := range list.options {
		p := &list.options[i]
		out[p.option.index] = p.cheapest
	}
	return out
}

// optionPrices are a pool's options' prices under one offering filter.
type optionPrices struct {
	byIndex []float64
	rising  bool
}

// newClaimPrice is what a new node for the pod alone costs: the cheapest
// option that holds it, under the pod's and the pool's requirements, in
// the first NodePool that can launch anything; +Inf when none can.
func (s *solver) newClaimPrice(p *podInfo) float64 {
	// Pods of one workload come one after another, asking the same with
	// the same compiled requirements: the answer depends on nothing else.
	last := &s.scratch.newClaim
	if last.valid && last.requests == p.requests && last.reqs.SameSet(p.reqs) {
		return last.price
	}
	price := s.newClaimPriceOf(p)
	last.valid, last.requests, last.reqs, last.price = true, p.requests, p.reqs, price
	return price
}

// newClaimPriceOf is newClaimPrice worked out.
func (s *solver) newClaimPriceOf(p *podInfo) float64 {
	for _, t := range s.templates {
		if t.refused != "" {
			continue
		}
		reqs := t.requirements
		for _, key := range [...]string{apis.LabelTopologyZone, apis.LabelCapacityType, apis.LabelCapacityReservationID} {
			if _, ok := p.reqs.Lookup(key); ok {
				if t.requirements.CompatibleFast(p.reqs, t.undefined) {
					reqs = t.requirements.Intersect(p.reqs)
				}
				break
			}
		}
		prices, poolOrder := t.pricesUnder(reqs, &s.scratch)
		cheapest := math.Inf(1)
		for _, o := range t.options {
			if p.requests.Fits(o.room) {
				cheapest = min(cheapest, prices[o.index])
				if poolOrder {
					break
				}
			}
		}
		return cheapest
	}
	return math.Inf(1)
}
