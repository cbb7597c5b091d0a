package scheduling

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// claim is a NodeClaim being filled during a solve: the pods placed on it,
// the requirements they share, and the instance types that can still hold
// them all.
type claim struct {
	// lookup memoizes the claim's requirement on one key for excludes,
	// which reads nothing else of the claim: it comes first, to share a
	// cache line with the claim's start.
	lookup requirementMemo
	tmpl   *template
	// name is set once the claim exists; hostname, its placeholder
	// hostname, from the first try on (they are equal).
	name         string
	hostname     string
	requirements requirements.Requirements
	pods         []*podInfo
	requests     resources.Vector // the pods' requests, without daemons
	options      []*typeOption
	// shared (beside stale, to keep the claim small) is set while options is the template's own slice, which a new
	// claim starts with rather than a copy, the slice the template's memo
	// keeps for new claims of the same first pod (freshOptions), or a run
	// of either: it is read, never changed or handed to the scratch space,
	// and replaced by a slice of the claim's own once the options kept are
	// no run of it.
	// maxRoom is, per resource, the most room any option has: requests
	// that do not fit it fit no option.
	// It points at the witness's room when that is the most (the usual
	// case), so that the claim stays small.
	maxRoom *resources.Vector
	// tooBig are the interned requests of the last pod refused because
	// the claim's requests with its fit no option's room (maxRoom): the
	// claim's requests only grow and its options only go, so a pod asking
	// the same is refused again, without adding them up.
	tooBig *resources.Vector
	// absorbed are the compiled requirements of a pod that the claim's
	// requirements, the set in claim, were compatible with and already
	// narrower than (Intersect handed the claim's set back): a pod of
	// the same set meets the same set alike. Sets never change once
	// built, so their identity (SameSet) is the key.
	absorbed struct {
		pod, claim requirements.Requirements
	}
	// witness is an option known to hold every pod so far. While the
	// requirements stay the same and the witness still fits, a pod is
	// added without filtering the options, which then become stale: they
	// may hold types too small for the requests, removed by settle. Since
	// requests only grow, filtering once at the end removes exactly what
	// filtering at every step would have.
	witness *typeOption
	stale   bool
	shared  bool
	// bestEffort is set when MinValuesPolicy BestEffort let the claim keep
	// fewer distinct values than a minValues requirement asks for; the
	// result says so in its warnings.
	bestEffort bool
	// more holds what few claims need: their pods' host ports, devices and
	// volumes.
	more *claimMore
	// cheapest is the index in options of the cheapest option that holds
	// the requests, -1 until priceIndex works it out again (PackCheapest, PackEfficient).
	cheapest int
	// slack is that option's room less the requests; prices are the
	// pool's options' prices under the claim's requirements, by index,
	// and poolOrder is set when they rise with the index, the order of
	// the options.
	slack     resources.Vector
	prices    []float64
	poolOrder bool
	// pricedUnder are the requirements prices were worked out under.
	pricedUnder requirements.Requirements
	// target is, under PackEfficient and PackBalanced, the type the claim was opened for
	// (efficientOption), and floor the price of its cheapest option that
	// holds the requests, which target may be dearer than.
	target *typeOption
	floor  float64
	// lowest is the cheapest option that held the requests when
	// findCheapest last looked, under the prices at lowestPrices.
	lowest       *typeOption
	lowestPrices *float64
	// extra remembers extraPrice's last answer for a pod the slack does
	// not hold, until cheapest is worked out again.
	extra struct {
		valid    bool
		requests resources.Vector
		price    float64
	}
	// version counts the changes to what extraPrice reads: a pod joining,
	// stale options going (claimRanks).
	version uint64
}

// nextClaim returns the placeholder hostname of the template's next claim,
// and the requirements the claim starts with: the template's and the
// hostname. Every claim carries one so that hostname topology can tell
// claims apart; it is the claim's name and is dropped from the result. The
// template keeps them until the claim is made: pods that fail to start a
// claim leave them to the next.
func (t *template) nextClaim() (hostname string, reqs requirements.Requirements) {
	if n := &t.next; !n.made || n.claims != t.claims {
		n.hostname = t.name + "-" + strconv.Itoa(t.claims+1)
		n.requirements = t.requirements.Add(requirements.In(apis.LabelHostname, n.hostname))
		n.claims, n.made = t.claims, true
	}
	return t.next.hostname, t.next.requirements
}

// tryAdd places the pod on the claim if evaluate passes it. The claim is
// unchanged when it returns false; explain says why.
func (c *claim) tryAdd(p *podInfo, s *solver) bool {
	return c.evaluate(p, s, nil) == passed
}

// explain says why tryAdd refuses the pod: the reason of the check that
// refuses it, a *refusal.
func (c *claim) explain(p *podInfo, s *solver) error {
	c.settle()
	var why error
	if c.evaluate(p, s, &why) == passed {
		return errNoCheckFailed
	}
	return why
}

// evaluate walks claimChecks in order and returns the first that refuses
// the pod, or passed. For tryAdd (why nil) it places a pod that passes;
// for explain it changes nothing and sets *why to the reason of a refusal.
// A verdict may first take two shortcuts on a claim that exists: hostname
// topology that keeps the pod off its host (the topology check would
// refuse it), and requests that fit none of its options (the
// instance-type check would). Reservations are taken as the last check
// passes; explain only asks whether they would be.
func (c *claim) evaluate(p *podInfo, s *solver, why *error) check {
	topo, scratch := s.topo, &s.scratch
	if why == nil && c.name != "" {
		if topo != nil && topo.rejectsHost(p, c.name) {
			return checkTopology
		}
		if p.requests == c.tooBig && shareWork {
			return checkInstanceTypes
		}
		if !c.requests.Add(*p.requests).Fits(*c.maxRoom) {
			c.tooBig = p.requests
			return checkInstanceTypes
		}
	}
	if err := tolerates(c.tmpl.taints, p.pod.Spec.Tolerations); err != nil {
		return refuse(why, checkTaints, func() error { return err })
	}
	// The volumes the claim would attach with the pod's, counted per
	// driver, when an option limits volumes: nil otherwise, and then no
	// option is left out for them.
	var attached map[string]int
	if c.tmpl.volumeLimited && len(p.volumes()) > 0 {
		attached = c.more.volumeUsage().countWith(p.volumes())
		if !slices.ContainsFunc(c.options, func(o *typeOption) bool {
			return c.requests.Fits(o.room) && withinLimits(attached, o.it.VolumeAttachmentLimits)
		}) {
			return refuse(why, checkVolumeLimits, func() error { return volumeLimitsError(c.options, attached) })
		}
	}
	if err := portConflict(c.more.ports(), p.hostPorts()); err != nil {
		return refuse(why, checkHostPorts, func() error { return err })
	}
	reqs, changed := c.requirements, p.reqs.Len() > 0
	if changed && !(shareWork && p.reqs.SameSet(c.absorbed.pod) && c.requirements.SameSet(c.absorbed.claim)) {
		if !c.requirements.CompatibleFast(p.reqs, c.tmpl.undefined) {
			return refuse(why, checkRequirements, func() error { return c.requirements.Compatible(p.reqs, c.tmpl.undefined) })
		}
		reqs = c.requirements.Intersect(p.reqs)
		if reqs.SameSet(c.requirements) {
			c.absorbed.pod, c.absorbed.claim = p.reqs, c.requirements
		}
	}
	if topo != nil && topo.constrains(p) {
		topoReqs, failed := topo.requirements(p, reqs, c.tmpl.taints, c.tmpl.undefined, scratch.topo[:0])
		scratch.topo = topoReqs
		if failed != nil {
			return refuse(why, checkTopology, func() error { return fmt.Errorf("unsatisfiable %s", failed.describe()) })
		}
		if !admits(reqs, topoReqs, c.tmpl.undefined) {
			return refuse(why, checkTopology, func() error { return topologyMismatch(reqs, topoReqs, c.tmpl.undefined) })
		}
		reqs, changed = reqs.Add(topoReqs...), true
	}
	requests := c.requests.Add(*p.requests)
	// Every option meets the claim's requirements so far: only the keys
	// that changed need checking, and offerings only if their keys did.
	var keys []string
	if changed {
		if reqs.SameSet(c.requirements) {
			// The claim's own set, handed back: nothing changed.
			keys = scratch.keys[:0]
		} else {
			keys = c.requirements.ChangedKeys(reqs, scratch.keys[:0])
		}
		scratch.keys = keys
		changed = len(keys) > 0
	}
	daemonPorts := c.tmpl.daemonPorts && len(p.hostPorts()) > 0
	if !changed && !daemonPorts && attached == nil && c.witness != nil && !s.claimsDevices(p) && !c.tmpl.minValues && !c.tmpl.reserved && requests.Fits(c.witness.room) {
		if why == nil {
			c.requests, c.stale = requests, true
			c.commit(p, reqs, topo)
		}
		return passed
	}
	return c.evaluateOptions(p, s, why, reqs, requests, keys, attached)
}

// evaluateOptions is evaluate's last checks: the instance types (those
// whose volume limits attached exceeds left out too), their minValues and
// the capacity reservations they may launch into; it places the pod when
// they pass it, for tryAdd.
func (c *claim) evaluateOptions(p *podInfo, s *solver, why *error, reqs requirements.Requirements, requests resources.Vector, keys []string, attached map[string]int) check {
	scratch := &s.scratch
	// The options that hold the requests and meet the requirements on the
	// keys that changed, kept in the scratch space, with their most room
	// and the roomiest of them.
	var offerings offeringFilter
	checkOfferings := slices.ContainsFunc(keys, isOfferingKey)
	if checkOfferings {
		offerings = newOfferingFilter(reqs)
		// A type's zone, capacity-type and reservation requirements come
		// from its offerings: one it may launch intersects them already.
		keys = slices.DeleteFunc(keys, isOfferingKey)
		scratch.keys = keys
	}
	remaining := scratch.options[:0]
	var room resources.Vector
	var witness *typeOption
	devices := s.claimsDevices(p)
	states := scratch.devices[:0]
	options, met := c.meeting(reqs, keys, checkOfferings, &offerings)
	// running is reqs narrowed by the devices of nodeSelector slices the
	// pod's claims take, type after type, as Karpenter's allocator
	// carries each type's topology into the next.
	running, narrowed, unallocated := reqs, false, false
	// A new claim's first pod keeps the options the first new claim of
	// the same requests and requirements kept (freshOptions), and the
	// claims share them, read-only, as they share their template's.
	var fresh []byte
	var kept []*typeOption
	hit := false
	if shareWork && len(c.pods) == 0 && c.shared && c.tmpl.memo != nil && len(c.options) == len(c.tmpl.options) && !devices && attached == nil && len(p.hostPorts()) == 0 && (met || len(keys) == 0 && !checkOfferings) {
		fresh = scratch.fresh[:0]
		if met {
			fresh = append(fresh, c.tmpl.memo.key...)
		}
		fresh = requests.AppendKey(append(fresh, '#'))
		scratch.fresh = fresh
		if f, ok := c.tmpl.memo.fresh[string(fresh)]; ok {
			kept, room, witness, hit = f.options, f.room, f.witness, true
			remaining, options = kept, nil
		}
	}
	for _, o := range options {
		if requests.Fits(o.room) && (met || ((len(keys) == 0 || o.it.Requirements.IntersectsOn(reqs, keys)) && (!checkOfferings || offerings.hasOffering(o.it)))) &&
			(len(o.daemonPorts) == 0 || portConflict(o.daemonPorts, p.hostPorts()) == nil) &&
			(attached == nil || withinLimits(attached, o.it.VolumeAttachmentLimits)) {
			if devices {
				next, topology, ok := s.devices.Allocate(c.more.deviceState(o), o.it.Name, p.key, c.hostname, s.held, running)
				if !ok {
					unallocated = true
					continue
				}
				if topology.Len() > 0 {
					running, narrowed = running.Intersect(topology), true
				}
				states = append(states, next)
			}
			remaining = append(remaining, o)
			room.Raise(&o.room)
			if witness == nil || roomier(o, witness) {
				witness = o
			}
		}
	}
	if fresh != nil && !hit && len(remaining) > 0 {
		kept = slices.Clone(remaining)
		c.tmpl.memo.fresh[string(fresh)] = freshOptions{options: kept, room: room, witness: witness}
	}
	if narrowed {
		reqs = running
		remaining, states, room, witness = narrowOptions(remaining, states, c.requirements, reqs)
	}
	if !hit {
		scratch.options, scratch.devices = remaining, states
	}
	if len(remaining) == 0 {
		short := ""
		if unallocated && !narrowed {
			short = "no instance type that met them could allocate the pod's device claims"
		}
		return refuse(why, checkInstanceTypes, func() error { return c.noInstanceType(reqs, requests, short) })
	}
	short := ""
	if c.tmpl.minValues {
		if short = minValuesShortfall(reqs, remaining, scratch.keys[:0]); short != "" && !c.tmpl.bestEffort {
			return refuse(why, checkMinValues, func() error { return c.noInstanceType(reqs, requests, short) })
		}
	}
	if c.tmpl.reserved {
		offerings := newOfferingFilter(reqs)
		if why != nil {
			if s.reservations.onlyFull(remaining, &offerings) {
				return refuse(why, checkReservations, func() error {
					if s.opts.ReservedFallback {
						return errReservationsFull
					}
					return fmt.Errorf("%w: %w", errReservationsExhausted, errReservationsFull)
				})
			}
			if !s.opts.ReservedFallback && s.reservations.wouldFail(c.hostname, remaining, &offerings) {
				return refuse(why, checkReservations, func() error {
					return fmt.Errorf("%w: every capacity reservation these instance types could launch into is held by other NodeClaims", errReservationsExhausted)
				})
			}
		} else if s.reservations.reserve(c.hostname, remaining, &offerings, !s.opts.ReservedFallback) != nil {
			return checkReservations
		}
	}
	if why == nil {
		// With MinValuesPolicy BestEffort the claim keeps fewer distinct
		// values rather than refuse the pod, before any other NodePool is
		// tried.
		c.bestEffort = c.bestEffort || short != ""
		if devices {
			m := c.moreOf()
			m.devices = make(map[*typeOption]any, len(remaining))
			for i, o := range remaining {
				m.devices[o] = states[i]
			}
			s.held[c.hostname] = slices.Clone(states)
		}
		if kept != nil {
			c.options, c.shared = kept, true
		} else {
			c.keep(remaining, scratch)
		}
		c.setMaxRoom(&room, witness)
		c.witness, c.stale = witness, false
		c.requests = requests
		c.commit(p, reqs, s.topo)
	}
	return passed
}

// narrowOptions keeps the options (and their device states) that may still
// launch under reqs, narrowed from was by devices of nodeSelector slices:
// Karpenter filters its instance types by the requirements an allocation
// adds. It returns them with their most room and the roomiest.
func narrowOptions(options []*typeOption, states []any, was, reqs requirements.Requirements) ([]*typeOption, []any, resources.Vector, *typeOption) {
	keys := was.ChangedKeys(reqs, nil)
	offeringKeys := slices.ContainsFunc(keys, isOfferingKey)
	keys = slices.DeleteFunc(keys, isOfferingKey)
	offerings := newOfferingFilter(reqs)
	var room resources.Vector
	var witness *typeOption
	kept := 0
	for i, o := range options {
		if (len(keys) > 0 && !o.it.Requirements.IntersectsOn(reqs, keys)) || (offeringKeys && !offerings.hasOffering(o.it)) {
			continue
		}
		options[kept], states[kept] = o, states[i]
		kept++
		room.Raise(&o.room)
		if witness == nil || roomier(o, witness) {
			witness = o
		}
	}
	return options[:kept], states[:kept], room, witness
}

// keep makes the remaining options, which evaluateOptions left in the
// scratch space, the claim's.
func (c *claim) keep(remaining []*typeOption, scratch *scratchSpace) {
	switch {
	case len(remaining) == len(c.options):
		// Every option is kept: the claim's slice holds them already.
	case c.shared:
		// Types too small for the pods are the cheapest, first in price
		// order: what is kept is often a run of the options.
		if run, ok := runOf(c.options, remaining); ok {
			c.options = run
		} else {
			c.options, c.shared = slices.Clone(remaining), false
		}
	default:
		// The old options slice becomes the next scratch space.
		scratch.options, c.options = c.options, remaining
	}
}

// runOf returns the run of options that holds exactly sub, a non-empty
// subsequence of them, if there is one. An option's index is its place in
// its template's options, of which options are a run.
func runOf(options, sub []*typeOption) ([]*typeOption, bool) {
	i, n := sub[0].index-options[0].index, len(sub)
	if i < 0 || i+n > len(options) || options[i] != sub[0] || options[i+n-1] != sub[n-1] {
		return nil, false
	}
	return options[i : i+n : i+n], true
}

// excludes reports, without allocating, whether the claim's own
// requirement on the key of one of the answers allows none of its domains.
// The pod's requirements and topology can only narrow the claim's, so
// tryAdd would find that affinity answer unmet (admits) and reject the pod.
// A key the claim does not constrain proves nothing.
func (c *claim) excludes(answers []affinityAnswer) bool {
	for i := range answers {
		if a := &answers[i]; !c.requirementOn(a.key).allowsAny(a.domains) {
			return true
		}
	}
	return false
}

// requirementMemo is a claim's requirement on one key, remembered until
// the claim's requirements change: every claim of a walk is asked about
// the same key, and most claims are asked again by the next pod.
type requirementMemo struct {
	valid bool
	// found is whether the claim constrains key; single, whether req
	// allows exactly one value, its first, compared without Has.
	found  bool
	single bool
	key    string
	req    *requirements.Requirement // inside the claim's set, read only
}

// setMaxRoom points maxRoom at room, the most room of the claim's options:
// at what it points at already or at the witness's room when they are
// equal, else at a copy of its own.
func (c *claim) setMaxRoom(room *resources.Vector, witness *typeOption) {
	switch {
	case c.maxRoom != nil && c.maxRoom.Equal(*room):
	case witness != nil && witness.room.Equal(*room):
		c.maxRoom = &witness.room
	default:
		r := *room
		c.maxRoom = &r
	}
}

// requirementOn returns the memo of the claim's requirement on key.
func (c *claim) requirementOn(key string) *requirementMemo {
	m := &c.lookup
	if !m.valid || m.key != key {
		m.req, m.found = c.requirements.LookupRef(key)
		m.key, m.valid = key, true
		m.single = m.found && m.req.Operator() == corev1.NodeSelectorOpIn && m.req.Len() == 1
	}
	return m
}

// allowsAny reports whether the requirement allows one of the values; a
// key the claim does not constrain allows them all.
func (m *requirementMemo) allowsAny(values []string) bool {
	if !m.found {
		return true
	}
	var one string
	if m.single {
		one = m.req.Any()
	}
	for _, v := range values {
		if m.single && v == one || !m.single && m.req.Has(v) {
			return true
		}
	}
	return false
}

// commit records the pod on the claim.
func (c *claim) commit(p *podInfo, reqs requirements.Requirements, topo *topology) {
	c.requirements, c.lookup.valid, c.cheapest = reqs, false, -1
	c.version++
	c.pods = append(c.pods, p)
	if ports := p.hostPorts(); len(ports) > 0 {
		m := c.moreOf()
		m.hostPorts = append(m.hostPorts, ports...)
	}
	if c.tmpl.volumeLimited && len(p.volumes()) > 0 {
		m := c.moreOf()
		if m.volumes == nil {
			m.volumes = volumeUsage{}
		}
		m.volumes.add(p.volumes())
	}
	if topo != nil {
		topo.record(p, reqs, c.tmpl.taints, c.tmpl.undefined)
	}
}

// settle drops the stale options that no longer hold the requests. Unless
// it is the template's, the options slice is the claim's own (tryAdd only
// ever swaps whole slices with its scratch space), so it is filtered in
// place.
func (c *claim) settle() {
	if !c.stale {
		return
	}
	if c.shared {
		c.options, c.shared = c.settledShared()
	} else {
		c.options = slices.DeleteFunc(c.options, func(o *typeOption) bool { return !c.requests.Fits(o.room) })
	}
	c.stale, c.cheapest = false, -1
	c.version++
}

// settledShared is settle for options the claim shares with its template:
// the options that hold the requests, as a run of the shared slice when
// they form one (the types too small are most often the cheapest, first),
// and shared stays set; otherwise as a slice of the claim's own, of just
// their number.
func (c *claim) settledShared() ([]*typeOption, bool) {
	first, last, n := -1, -1, 0
	for i, o := range c.options {
		if c.requests.Fits(o.room) {
			if first < 0 {
				first = i
			}
			last, n = i, n+1
		}
	}
	if n == 0 {
		return c.options[:0:0], false
	}
	if last-first+1 == n {
		return c.options[first : last+1 : last+1], true
	}
	kept := make([]*typeOption, 0, n)
	for _, o := range c.options[first : last+1] {
		if c.requests.Fits(o.room) {
			kept = append(kept, o)
		}
	}
	return kept, false
}

// roomier prefers, as the witness, the option with the most CPU room, then
// the most memory room: the one most pods will still fit.
func roomier(a, b *typeOption) bool {
	if a.room.CPU() != b.room.CPU() {
		return a.room.CPU() > b.room.CPU()
	}
	return a.room.Memory() > b.room.Memory()
}

// scratchSpace is memory tryAdd reuses from one call to the next; finalize
// reuses its options once the pods are placed, and priceClaim has its own.
type scratchSpace struct {
	options []*typeOption
	keys    []string
	topo    []requirements.Requirement
	answers []affinityAnswer
	// ranked is PackCheapest's order of the claims.
	ranked []rankedClaim
	// signature, keep and priced are priceClaim's.
	signature []byte
	keep      []bool
	priced    []*pricedOption
	// fleet is launchFilter's, member launchOrdered's.
	fleet  []*pricedOption
	member []bool
	// newClaim is newClaimPrice's last answer.
	newClaim struct {
		valid    bool
		requests *resources.Vector
		reqs     requirements.Requirements
		price    float64
	}
	// devices are evaluateOptions' device states, by remaining option.
	devices []any
	// cheapest are priceCheapest's answers for claims that share their
	// options and prices.
	cheapest map[cheapestKey][]cheapestAnswer
	// efficient are efficientOption's answers for new claims that share
	// their options and prices.
	efficient map[efficientKey][]efficientAnswer
	// fresh is evaluateOptions' key of a new claim's first pod
	// (freshOptions).
	fresh []byte
}

// isOfferingKey reports whether a requirement on key narrows offerings.
func isOfferingKey(key string) bool {
	return key == apis.LabelTopologyZone || key == apis.LabelCapacityType || key == apis.LabelCapacityReservationID
}

// noInstanceType says why no option holds the pod: which of the
// requirements, the resources and the offerings no single instance type
// met, or, when the options meet them, short, the minValues they fall
// short of.
func (c *claim) noInstanceType(reqs requirements.Requirements, requests resources.Vector, short string) error {
	why := short
	if why == "" {
		var metReqs, fits, offered, reqsAndFits bool
		offerings := newOfferingFilter(reqs)
		for _, o := range c.options {
			itReqs, itFits, itOffered := o.it.Requirements.IntersectsFast(reqs), requests.Fits(o.room), offerings.hasOffering(o.it)
			metReqs, fits, offered = metReqs || itReqs, fits || itFits, offered || itOffered
			reqsAndFits = reqsAndFits || (itReqs && itFits)
		}
		why = filterFailure(metReqs, fits, offered, reqsAndFits)
	}
	return fmt.Errorf("no instance type satisfied resources %s and requirements %s (%s)",
		requests.Add(minDaemons(c.options)), reqs.Without(apis.LabelHostname), why)
}

// filterFailure says which of the three criteria no single instance type met.
func filterFailure(metReqs, fits, offered, reqsAndFits bool) string {
	var missing []string
	if !metReqs {
		missing = append(missing, "met the scheduling requirements")
	}
	if !fits {
		missing = append(missing, "had enough resources")
	}
	if !offered {
		missing = append(missing, "had a required offering")
	}
	switch {
	case len(missing) > 0:
		return "no instance type " + strings.Join(missing, " or ")
	case reqsAndFits:
		return "no instance type which met the scheduling requirements and had enough resources had a required offering"
	default:
		return "no instance type met the requirements, resources and offering at once"
	}
}

// minDaemons is the smallest DaemonSet overhead among the options, per
// resource: the overhead a claim reports in its requests.
func minDaemons(options []*typeOption) resources.Vector {
	if len(options) == 0 || options[0].daemons.IsZero() {
		// The minimum of anything and nothing is nothing.
		return resources.Vector{}
	}
	m := options[0].daemons
	for _, o := range options[1:] {
		if o.daemons != m {
			lower := m.Min(*o.daemons)
			m = &lower
		}
	}
	return *m
}
