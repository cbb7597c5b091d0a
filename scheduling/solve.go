package scheduling

import (
	"cmp"
	"errors"

	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// Solve decides where each pod goes, as Karpenter's provisioner would:
//
//  1. Pods are queued largest first (cpu, then memory), then oldest.
//  2. Each pod tries the existing and in-flight nodes (initialized first,
//     then by name), then the claims of this solve (fewest pods first),
//     then a new claim from each NodePool in weight order.
//  3. A pod that fits nowhere has its preferences relaxed one step at a
//     time and is tried again; if it still fits nowhere, the original pod
//     goes to the back of the queue.
//  4. The solve stops when the queue is empty or a full pass made no
//     progress.
//  5. Each claim's instance types are ordered by price and truncated, and
//     the launch offering chosen.
func Solve(in Input) Result {
	s := newSolver(in)
	s.run()
	return s.result()
}

// newSolver compiles the input's NodePools and DaemonSets and reads the
// rest of it.
func newSolver(in Input) *solver {
	daemons := readDaemons(in.DaemonSets, in.Options.DRA)
	return newSolverWith(in, daemons, compileTemplates(in.NodePools, daemons, in.Options.MinValuesBestEffort), nil, nil)
}

// readDaemons reads the DaemonSet pods as Karpenter weighs where they run:
// their required terms only (preferences never keep a DaemonSet off a
// node), without the field selector that pins each pod to its node, and
// with every required node-affinity term as an alternative. Unless dra is
// set, the DaemonSets that claim devices are left out, as Karpenter ignoring
// DRA requests (its default) leaves them out of every overhead.
func readDaemons(daemonSets []*corev1.Pod, dra bool) []*podInfo {
	daemons := make([]*podInfo, 0, len(daemonSets))
	for _, d := range daemonSets {
		if !dra && apis.ClaimsDevices(d) {
			continue
		}
		daemons = append(daemons, readDaemon(d))
	}
	return daemons
}

// withoutMatchFields is p, or a copy of it without the matchFields of its
// required node-affinity terms (a DaemonSet pod's pin to its node).
func withoutMatchFields(p *corev1.Pod) *corev1.Pod {
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return p
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if !slices.ContainsFunc(terms, func(t corev1.NodeSelectorTerm) bool { return len(t.MatchFields) > 0 }) {
		return p
	}
	out := p.DeepCopy()
	kept := out.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[:0]
	for _, t := range out.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		t.MatchFields = nil
		if len(t.MatchExpressions) > 0 || len(terms) == 1 {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		kept = append(kept, corev1.NodeSelectorTerm{})
	}
	out.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = kept
	return out
}

// readDaemon reads a DaemonSet's pod for its overhead as Karpenter weighs
// it: without the matchFields that pin it to its node, without preferences,
// each of its required node-affinity terms an alternative (daemonTerms),
// and without refusing selectors on restricted labels: Karpenter checks
// those only on the pods it provisions for, and a DaemonSet may well select
// the labels Karpenter sets itself (karpenter.sh/initialized,
// karpenter.sh/registered).
func readDaemon(d *corev1.Pod) *podInfo {
	pod := withoutMatchFields(d)
	info := &podInfo{pod: pod, key: apis.PodKey(pod)}
	info.setHostPorts(podHostPorts(pod))
	requests, err := resources.PodRequests(pod)
	info.requests = &requests
	if info.setInvalid(err) == nil {
		info.reqs, err = requirements.FromPod(pod, requirements.StrictOnly)
		info.setInvalid(err)
	}
	if a := pod.Spec.Affinity; info.invalid() == nil && a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms; len(terms) > 1 {
			var alternatives []requirements.Requirements
			for i := range terms {
				one := pod.DeepCopy()
				one.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = terms[i : i+1]
				if reqs, err := requirements.FromPod(one, requirements.StrictOnly); err == nil {
					alternatives = append(alternatives, reqs)
				}
			}
			if len(alternatives) > 0 {
				if info.more == nil {
					info.more = &podMore{}
				}
				info.more.daemonTerms = alternatives
			}
		}
	}
	return info
}

// solver is the state of one solve.
type solver struct {
	opts      Options
	prefs     requirements.Preferences
	existing  []*existingNode
	templates []*template
	claims    []*claim
	// reads, when set, are the pods the solves of a Compiler read.
	reads *podReads
	// ranks is addCheapest's order of the claims, kept between pods.
	ranks claimRanks
	// final is what finalize shares between claims that ended alike.
	final  finalMemo
	pods   []*podInfo
	failed map[*podInfo]error
	// relaxPreferNoSchedule is set when some NodePool has a
	// PreferNoSchedule taint: only then does relaxation tolerate them.
	relaxPreferNoSchedule bool
	// scratch is reused by claim.tryAdd to filter instance types.
	scratch scratchSpace
	// shared holds what the pods share: requests and compiled requirements.
	shared   *podCache
	warnings []string
	// trace, when set, records every decision about one pod.
	trace *Explanation
	// topo is nil when no pod has a topology constraint.
	topo *topology
	// reservations tracks the capacity reservations claims hold.
	reservations *reservations
	// names are the InstanceTypeOptions lists of the result, which claims
	// with the same options share (see optionNames).
	names map[namesKey][]string
	// claimsMoved is set when a claim gained a pod or was created since
	// claims were last sorted (sortClaims).
	claimsMoved bool
	// devices is Input.Devices, held what the solve's nodes keep of the
	// devices it allocates.
	devices DeviceAllocator
	held    DeviceHoldings
}

// newSolverWith reads the input's pods and nodes against compiled
// templates, which the solve may change (its claim counts and limits).
// reads, when not nil, holds the pods earlier solves read (see podReads).
func newSolverWith(in Input, daemons []*podInfo, templates []*template, known map[*Node]*nodeBase, reads *podReads) *solver {
	s := &solver{opts: in.Options, prefs: requirements.WithPreferences, failed: map[*podInfo]error{}, devices: in.Options.Devices}
	labels := clusterLabels(in.NodePools)
	vols := newVolumes(in)
	if vols.known || in.Options.DefaultSpread != nil {
		reads = nil
	}
	if reads != nil {
		s.shared = reads.cache(labels)
	} else {
		s.shared = &podCache{labels: labels}
	}
	s.existing, s.warnings = newExistingNodes(in.Nodes, daemons, vols, known, typeVolumeLimits(templates))
	s.allocateBound()
	s.templates = templates
	s.reservations = newReservations(s.templates, in.Options.ReservationCredit)
	for _, t := range s.templates {
		s.relaxPreferNoSchedule = s.relaxPreferNoSchedule || hasPreferNoSchedule(t.taints)
		for _, n := range in.Nodes {
			if n.NodePool == t.name {
				t.limits.charge(resources.FromList(n.Capacity))
			}
		}
	}
	// PreferencePolicy=Ignore reads every pod without its preferences.
	if s.opts.IgnorePreferences {
		s.prefs = requirements.StrictOnly
	}
	if reads != nil {
		var shared bool
		s.pods, shared = s.readShared(in.Pods, reads, podReadKey{prefs: s.prefs, labels: labels}, vols)
		if shared {
			s.reads = reads
		}
	} else {
		s.readPods(in.Pods, vols)
	}
	if s.topo = newTopology(s); s.topo != nil {
		s.warnings = append(s.warnings, s.topo.warnings...)
	}
	return s
}

// readPods reads the pods, their infos allocated together: a solve reads
// every pod once.
func (s *solver) readPods(pods []*corev1.Pod, vols *volumes) {
	infos := make([]podInfo, len(pods))
	s.pods = make([]*podInfo, len(pods))
	var selectors map[string]*metav1.LabelSelector
	if s.opts.DefaultSpread != nil {
		selectors = map[string]*metav1.LabelSelector{}
	}
	for i, pod := range pods {
		// Default spread constraints are added as the pod is read, before
		// any relaxation, so that relaxing a ScheduleAnyway default drops it
		// as it drops the pod's own (Karpenter injects them at ingestion).
		pod = s.opts.DefaultSpread.withDefaults(pod, selectors)
		s.pods[i] = &infos[i]
		readWithVolumes(s.pods[i], pod, s.prefs, vols, s.shared)
	}
}

// readShared returns the pods' infos as reads holds them, reading those
// it does not hold yet. A solve changes nothing of its pods' infos unless
// topology concerns one of them (newTopology gives them their shapes): it
// then takes copies, so that its shapes stay its own, and says so: the
// infos are shared when the second result is set.
func (s *solver) readShared(pods []*corev1.Pod, reads *podReads, key podReadKey, vols *volumes) ([]*podInfo, bool) {
	out := make([]*podInfo, len(pods))
	own := false
	for _, e := range s.existing {
		own = own || slices.ContainsFunc(e.node.Pods, func(p *corev1.Pod) bool { return hasRequiredAntiAffinity(p) && apis.IsActive(p) })
	}
	for i, pod := range pods {
		key.pod = pod
		info, ok := reads.infos[key]
		if !ok {
			info = &podInfo{}
			readWithVolumes(info, pod, s.prefs, vols, s.shared)
			reads.infos[key] = info
		}
		out[i] = info
		own = own || info.invalid() == nil && hasTopology(pod, s.prefs)
	}
	if !own {
		return out, true
	}
	infos := make([]podInfo, len(out))
	for i, p := range out {
		infos[i] = *p
		out[i] = &infos[i]
	}
	return out, false
}

// readWithVolumes reads a pod into info with the requirements of its
// volumes added to its node affinity, as Karpenter injects them before
// scheduling.
func readWithVolumes(info *podInfo, pod *corev1.Pod, prefs requirements.Preferences, vols *volumes, shared *podCache) {
	alts, uses, err := vols.forPod(pod)
	if err != nil {
		info.read(pod, apis.PodKey(pod), prefs, shared)
		info.setInvalid(err)
		return
	}
	if len(alts) > 0 {
		pod = withVolumeRequirements(pod, alts)
	}
	info.read(pod, apis.PodKey(pod), prefs, shared)
	// The alternatives added: withoutVolumeRequirements takes them out of
	// each term again, for the spreads, which do not read them.
	info.setVolumes(uses, alts)
}

// run places the queued pods until the queue is empty or stalls.
func (s *solver) run() {
	var q queue
	for _, p := range s.pods {
		if err := p.invalid(); err != nil {
			s.failed[p] = err
			continue
		}
		q.pods = append(q.pods, p)
	}
	q.pods = s.reads.sorted(q.pods)
	if s.opts.Packing == PackBalanced {
		q.pods = s.placeBalanced(q.pods)
	}
	for n := 0; ; n++ {
		if s.opts.StopAbovePrice > 0 && n%stopCheckEvery == 0 && s.priceFloor() > s.opts.StopAbovePrice {
			s.stop(q.pods)
			break
		}
		p, ok := q.pop()
		if !ok {
			break
		}
		if err := s.try(p); err != nil {
			s.failed[p] = err
			q.push(p)
			continue
		}
		delete(s.failed, p)
	}
}

// try places the pod, relaxing its preferences one step after each failure
// until it fits or nothing is left to relax. It works on copies: p keeps
// the original pod for the next attempt.
func (s *solver) try(p *podInfo) error {
	current := p
	for {
		err := s.add(current, false)
		if err == nil {
			return nil
		}
		// Reservations may free up on a later pass: Karpenter does not
		// relax a pod that only waits for them.
		if errors.Is(err, errReservationsExhausted) {
			return s.reason(current, err)
		}
		relaxed, ok := relax(current.pod, s.relaxPreferNoSchedule, s.prefs)
		if !ok {
			return s.reason(current, err)
		}
		next := readPod(relaxed, current.key, s.prefs, s.shared)
		if next.invalid() != nil {
			return s.reason(current, err)
		}
		more := podMore{}
		if current.more != nil {
			more = *current.more
		}
		more.relaxations++
		next.more = &more
		if s.topo != nil {
			s.topo.attach(next)
		}
		current = next
	}
}

// errRefused is add's refusal when its reasons were not asked for, and
// errRefusedReservations the same when a NodePool's reason was that
// reservations ran out, which stops relaxation.
var (
	errRefused             = errors.New("refused (reasons not worked out)")
	errRefusedReservations = fmt.Errorf("refused (reasons not worked out): %w", errReservationsExhausted)
)

// reason returns add's refusal err with its reasons, working them out if
// add did not. A refused attempt changes nothing the checks read, so
// trying again gives the same refusal, this time explained.
func (s *solver) reason(p *podInfo, err error) error {
	if err != errRefused && err != errRefusedReservations {
		return err
	}
	return s.add(p, true)
}

// add places the pod on the first node or claim that takes it, or on a new
// claim, and, if why is set, explains the failure of every NodePool
// otherwise: most refusals are followed by a relaxed attempt, and their
// reasons are never read. When the pod is traced, every verdict is
// recorded with its reason.
func (s *solver) add(p *podInfo, why bool) error {
	var a *Attempt
	if s.traces(p) {
		a, why = s.traceStart(p), true
	}
	for _, e := range s.existing {
		ok := e.tryAdd(p, s.topo)
		a.record(nodeVerdict, e.node.Name, ok, func() error { return e.explain(p, s) })
		if ok {
			return nil
		}
	}
	s.sortClaims()
	claims := s.claims
	// Untraced, claims that certainly reject the pod are skipped: all of
	// them under hostname anti-affinity, or each whose requirements rule
	// out what the pod's affinity demands.
	var answers []affinityAnswer
	if a == nil && s.topo != nil {
		if s.topo.rejectsAllClaims(p, len(claims)) {
			claims = nil
		}
		answers = s.topo.affinityAnswers(p, s.scratch.answers)
		s.scratch.answers = answers
	}
	if s.opts.Packing != PackFewestPods {
		return s.addCheapest(p, why, a, claims, answers)
	}
	for _, c := range claims {
		if len(answers) > 0 && c.excludes(answers) {
			continue
		}
		ok := c.tryAdd(p, s)
		a.record(claimVerdict, c.name, ok, func() error { return c.explain(p, s) })
		if ok {
			s.claimGrew()
			return nil
		}
	}
	return s.addNewClaim(p, why, a)
}

// addNewClaim places the pod on a new claim from the first NodePool, in
// weight order, that takes it, or returns why none did (errRefused or
// errRefusedReservations unless why is set).
func (s *solver) addNewClaim(p *podInfo, why bool, a *Attempt) error {
	if len(s.templates) == 0 {
		return fmt.Errorf("no NodePool to launch a node from")
	}
	var reasons poolErrors
	refused := errRefused
	for _, t := range s.templates {
		err := s.newClaim(t, p, why)
		a.record(poolVerdict, t.name, err == nil, func() error { return err })
		if err == nil {
			return nil
		}
		if why {
			reasons = append(reasons, fmt.Errorf("NodePool %q: %w", t.name, err))
		}
		// A pod that could have reserved capacity in this NodePool, were it
		// not held, waits for it rather than falling to a lighter NodePool,
		// as Karpenter's provisioner does.
		if errors.Is(err, errReservationsExhausted) {
			if !why {
				refused = errRefusedReservations
			}
			break
		}
	}
	if !why {
		return refused
	}
	return reasons
}

// poolErrors are the reasons every NodePool refused a pod, one per pool,
// printed on one line; errors.Is sees each.
type poolErrors []error

func (e poolErrors) Error() string {
	parts := make([]string, len(e))
	for i, err := range e {
		parts[i] = err.Error()
	}
	return strings.Join(parts, "; ")
}

func (e poolErrors) Unwrap() []error { return e }

// newClaim starts a claim from the template for the pod. The template's
// limits are charged pessimistically with the largest capacity among the
// claim's instance types, as Karpenter does. When the pod does not fit,
// the claim says why only if why is set or the reason may be reservations
// running out; otherwise the refusal is errRefused.
func (s *solver) newClaim(t *template, p *podInfo, why bool) error {
	if t.refused != "" {
		return fmt.Errorf("%s", t.refused)
	}
	var options []*typeOption
	first, shared := -1, false
	if t.limits.exceeded(t.largest) < 0 {
		// No type exceeds the limits if the largest capacity does not: the
		// claim starts with the template's options.
		options, shared = t.options, true
	} else {
		options = make([]*typeOption, 0, len(t.options))
		for _, o := range t.options {
			if i := t.limits.exceeded(o.it.Capacity); i < 0 {
				options = append(options, o)
			} else if first < 0 {
				first = i
			}
		}
	}
	if len(options) == 0 {
		return fmt.Errorf("all instance types exceed the NodePool's limits: %s", t.limits.describe(first))
	}
	hostname, reqs := t.nextClaim()
	if s.topo != nil {
		s.topo.registerClaim(hostname)
	}
	c := &claim{tmpl: t, options: options, shared: shared, requirements: reqs, hostname: hostname, cheapest: -1}
	if !c.tryAdd(p, s) {
		err := errRefused
		if why || t.reserved && !s.opts.ReservedFallback {
			err = c.explain(p, s)
		}
		s.reservations.release(c.hostname)
		return err
	}
	t.claims++
	c.name = c.hostname
	if len(t.limits.names) > 0 {
		// Without limits nothing is charged: the largest capacity is
		// not worked out.
		t.limits.charge(t.largestOf(c.options, c.shared))
	}
	if s.opensForTarget() {
		c.target = c.efficientOption(p, &s.scratch)
	}
	s.claimCreated(c)
	return nil
}

// claimGrew notes that a claim just gained a pod.
func (s *solver) claimGrew() { s.claimsMoved = true }

// claimCreated appends a new claim, as Karpenter appends its new claims.
func (s *solver) claimCreated(c *claim) {
	s.claims = append(s.claims, c)
	s.claimsMoved = true
}

// sortClaims orders the claims as Karpenter does before each pod that no
// existing node takes: with sort.Slice by pod count, fewest first (its
// scheduler's add). sort.Slice is not stable above 12 elements (pdqsort),
// but it is deterministic: the same counts in the same order give the same
// permutation, so claims kept in Karpenter's order and sorted at the same
// moments stay in Karpenter's order. slices.SortFunc is the same pdqsort,
// generated from the same template as sort.Slice (TestSortClaimsIsSortSlice),
// without its reflection. A sorted slice is left as it is, so only claims
// that moved are sorted. Other packings keep the claims in creation order.
func (s *solver) sortClaims() {
	if s.opts.Packing != PackFewestPods || !s.claimsMoved {
		return
	}
	s.claimsMoved = false
	slices.SortFunc(s.claims, compareClaimPods)
}

// compareClaimPods orders claims by pod count.
func compareClaimPods(a, b *claim) int { return cmp.Compare(len(a.pods), len(b.pods)) }

// queue is Karpenter's pod queue: failed pods go to the back, and the
// queue stalls when a pod comes round again with no pod placed since it was
// pushed back.
type queue struct {
	pods    []*podInfo
	lastLen map[*podInfo]int
}

func (q *queue) pop() (*podInfo, bool) {
	if len(q.pods) == 0 {
		return nil, false
	}
	p := q.pods[0]
	if n, ok := q.lastLen[p]; ok && n == len(q.pods) {
		return nil, false
	}
	q.pods = q.pods[1:]
	return p, true
}

func (q *queue) push(p *podInfo) {
	if q.lastLen == nil {
		q.lastLen = map[*podInfo]int{}
	}
	q.pods = append(q.pods, p)
	q.lastLen[p] = len(q.pods)
}
