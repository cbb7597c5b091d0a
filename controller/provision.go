package controller

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

// Trigger opens a provisioning batch or extends the open one: pods became
// pending at now. The batch closes BatchIdle after the last trigger, or
// BatchMax after it opened.
func (c *Controller) Trigger(now time.Time) {
	c.at = now
	if c.batchStart.IsZero() {
		c.batchStart = now
	}
	c.batchLast = now
	c.cfg.Timers.WakeAt(c.batchDeadline(), WakeBatch)
}

func (c *Controller) batchDeadline() time.Time {
	idle, limit := c.batchLast.Add(c.t.BatchIdle), c.batchStart.Add(c.t.BatchMax)
	if idle.Before(limit) {
		return idle
	}
	return limit
}

// batchCheck provisions when the open batch is due; an earlier check left
// over from a batch that was extended does nothing. With no batch open the
// check is a retry for pods that fit nowhere, and opens one.
func (c *Controller) batchCheck(ctx context.Context) {
	if c.batchStart.IsZero() {
		if len(c.cfg.Cluster.Pending()) > 0 || len(c.bufferPods()) > 0 {
			c.Trigger(c.now())
		}
		return
	}
	if c.now().Before(c.batchDeadline()) {
		return
	}
	c.batchStart, c.batchLast = time.Time{}, time.Time{}
	c.provision(ctx)
}

// provision is one provisioning pass: every pending pod against every live
// node (initialized or in flight, not cordoned) and every NodePool; pods
// that fit a node are nominated to it, new NodeClaims are launched.
//
// The CapacityBuffers' virtual pods join the pass after the pending pods,
// as Karpenter appends them: where they fit an existing node the buffer's
// room is there (and the node is remembered, for emptiness); where they
// do not, new NodeClaims are launched for them too.
func (c *Controller) provision(ctx context.Context) {
	pending := c.cfg.Cluster.Pending()
	if virtual := c.bufferPods(); len(virtual) > 0 {
		pending = slices.Concat(pending, virtual)
	}
	if len(pending) == 0 {
		return
	}
	now := c.now()
	var nodes []*scheduling.Node
	for _, n := range c.cfg.Cluster.Nodes(true) {
		if !n.Deleting {
			nodes = append(nodes, n.Node)
		}
	}
	in := scheduling.Input{Pods: pending, Nodes: nodes, NodePools: c.nodePools(now),
		DaemonSets: c.cfg.Cluster.DaemonSets(), Options: c.cfg.Options.Scheduling}
	res := c.plan(in)
	if c.cfg.Planned != nil {
		c.cfg.Planned(in, res, now)
	}
	c.bufferNodes = map[string]int{}
	for _, b := range res.Bindings {
		switch {
		case b.Buffer:
			c.bufferNodes[b.Node]++
		case c.cfg.Cluster.Node(b.Node) != nil:
			c.nominated[b.Node] = now
		}
	}
	iced := false
	for _, claim := range res.NodeClaims {
		detail := fmt.Sprintf("%d pending pods", len(claim.Pods)-claim.BufferPods)
		if claim.BufferPods > 0 {
			detail += fmt.Sprintf(" and %d capacity-buffer pods", claim.BufferPods)
		}
		if _, err := c.launch(ctx, claim, "provisioning", detail); err != nil {
			iced = true
		}
	}
	switch {
	case iced:
		// The pods of a failed launch go into the next batch, which sees
		// the offering unavailable.
		c.cfg.Timers.WakeAt(now.Add(c.t.BatchIdle), WakeBatch)
	case slices.ContainsFunc(res.Unschedulable, isReal):
		// Virtual pods that fit nowhere wait for the buffers' resync.
		stuck := slices.DeleteFunc(slices.Clone(res.Unschedulable), func(u scheduling.Unschedulable) bool { return u.Buffer })
		u := stuck[0]
		why := fmt.Sprintf("%d pods fit nowhere; first, %s: %s", len(stuck), u.Pod, u.Reason)
		// A retry that finds the same pods stuck for the same reason is
		// not news.
		if why != c.lastUnschedulable {
			c.record(Decision{Kind: KindUnschedulable, Pods: len(stuck), Reason: why})
		}
		c.lastUnschedulable = why
		c.cfg.Timers.WakeAt(now.Add(c.t.UnschedulableRetry), WakeBatch)
	default:
		c.lastUnschedulable = ""
	}
}

// plan is the provisioning plan of Config.Planner, or Karpenter's when
// there is none or it fails, and for a pass that places only
// CapacityBuffer virtual pods. Such a pass buys room for pods to come,
// which then run wherever the room was: the cheapest plan for the room
// alone buys it in the smallest units, a node per virtual pod, and each
// pod that takes the room then runs on a node of its own, dearer per pod
// than a node the arriving pods share, which is what Karpenter's plan
// (every virtual pod on one claim while it fits) buys. With real pods in
// the pass the planner plans them and the room together.
func (c *Controller) plan(in scheduling.Input) scheduling.Result {
	if c.cfg.Planner == nil || !slices.ContainsFunc(in.Pods, func(p *corev1.Pod) bool { return !apis.IsBufferPod(p) }) {
		return scheduling.Solve(in)
	}
	res, err := c.cfg.Planner(in)
	if err != nil {
		c.record(Decision{Kind: KindPlannerFailed, Pods: len(in.Pods), Reason: fmt.Sprintf("planner: %v: using Karpenter's plan", err)})
		return scheduling.Solve(in)
	}
	return res
}

// launch creates a NodeClaim through the launcher and adds its node to the
// cluster, in flight. An insufficient-capacity error marks the offering
// unavailable in the provider's cache (on AWS for
// pricing.DefaultUnavailableTTL).
func (c *Controller) launch(ctx context.Context, claim scheduling.NodeClaim, why, detail string) (*Node, error) {
	now := c.now()
	cl := c.cfg.Cluster
	np := c.pool(claim.NodePool)
	if np == nil {
		err := fmt.Errorf("NodePool %s is gone", claim.NodePool)
		c.record(Decision{Kind: KindLaunchFailed, Reason: err.Error()})
		return nil, err
	}
	// The NodeClaim gets the capacity of the type as Karpenter knew it,
	// NodeOverlays applied (extended resources the nodes' configuration
	// provides, such as hugepages).
	catalog := c.poolCatalog(np)
	it, ok := catalog.Get(claim.InstanceType)
	if !ok {
		err := fmt.Errorf("instance type %s is not in NodePool %s's catalog", claim.InstanceType, claim.NodePool)
		c.record(Decision{Kind: KindLaunchFailed, Reason: err.Error()})
		return nil, err
	}
	claim.Name = c.claimName(claim.NodePool)
	req := cloud.LaunchRequest{NodeClaim: claim.Name, NodePool: claim.NodePool, InstanceType: claim.InstanceType,
		Zone: claim.Zone, CapacityType: claim.CapacityType, PricePerHour: claim.PricePerHour,
		Overrides: c.overrides(claim, np, catalog, now)}
	// A NodeOverlay's price on any of the claim's types makes the provider
	// ask for the prioritized strategies, which follow the overlaid prices.
	req.Prioritized = slices.ContainsFunc(claim.InstanceTypeOptions, func(name string) bool {
		it, ok := catalog.Get(name)
		return ok && slices.ContainsFunc(it.Offerings, func(o instancetypes.Offering) bool { return o.PriceOverlay != "" })
	})
	if len(req.Overrides) > 0 {
		// The request's offering is the fleet's first choice: the
		// scheduler's, unless it is no longer one the fleet may take.
		first := req.Overrides[0]
		req.InstanceType, req.Zone, req.CapacityType, req.PricePerHour = first.InstanceType, first.Zone, first.CapacityType, first.PricePerHour
	}
	inst, err := c.cfg.Launcher.Create(ctx, req)
	if err != nil {
		if ice, ok := cloud.IsInsufficientCapacity(err); ok {
			for _, o := range ice.Refused() {
				c.markRefused(o, claim, catalog, now)
			}
		}
		c.record(Decision{Kind: KindLaunchFailed, InstanceType: claim.InstanceType, Zone: claim.Zone, CapacityType: claim.CapacityType,
			Reason: fmt.Sprintf("%s launch of %s failed: %v", why, claim.Name, err)})
		return nil, err
	}
	for _, o := range inst.Unavailable {
		c.markRefused(o, claim, catalog, now)
	}
	if inst.InstanceType != claim.InstanceType || inst.Zone != claim.Zone || inst.CapacityType != claim.CapacityType {
		// The fleet launched a later override: the node is what was
		// launched.
		launched, ok := catalog.Get(inst.InstanceType)
		if !ok {
			err := fmt.Errorf("the launcher started instance type %s, which is not in NodePool %s's catalog", inst.InstanceType, claim.NodePool)
			c.record(Decision{Kind: KindLaunchFailed, Reason: err.Error()})
			c.terminate(ctx, claim.Name, inst.ID)
			return nil, err
		}
		it = launched
		claim.InstanceType, claim.Zone, claim.CapacityType, claim.PricePerHour = inst.InstanceType, inst.Zone, inst.CapacityType, inst.PricePerHour
	}
	// A launcher on another clock may date the instance in the past: the
	// loop counts it from now, so costs and waits agree with its clock.
	if inst.LaunchedAt.Before(now) {
		inst.LaunchedAt = now
	}
	labels := claim.LaunchLabels(it, np)
	from := c.launchFrom(np, it)
	nodeClaim, kubelet := NewNodeClaim(claim, labels, np, from, now)
	n := &Node{
		StateNode: StateNode{
			Node: &scheduling.Node{Name: claim.Name, NodePool: claim.NodePool, Labels: labels,
				Taints: np.Spec.Template.Spec.Taints, StartupTaints: np.Spec.Template.Spec.StartupTaints,
				Capacity: it.Capacity.List(), Allocatable: it.Allocatable().List()},
			NodeClaim: nodeClaim,
		},
		Instance: inst, PricePerHour: inst.PricePerHour, KubeletVersion: kubelet,
	}
	n.NodeClaim.Status.ProviderID = provider.ProviderID(from.Provider, claim.Name, inst.Zone, inst.ID)
	c.nominated[claim.Name] = now
	if err := cl.AddNode(ctx, n); err != nil {
		c.record(Decision{Kind: KindLaunchFailed, Nodes: []string{claim.Name}, InstanceType: claim.InstanceType,
			Reason: fmt.Sprintf("%s launch of %s: the NodeClaim could not be created: %v", why, claim.Name, err)})
		delete(c.nominated, claim.Name)
		c.terminate(ctx, claim.Name, inst.ID)
		return nil, err
	}
	c.record(Decision{Kind: KindLaunch, Nodes: []string{claim.Name}, Pods: len(claim.Pods), InstanceType: claim.InstanceType,
		Zone: claim.Zone, CapacityType: claim.CapacityType, PricePerHour: inst.PricePerHour,
		Reason: fmt.Sprintf("%s: %s; cheapest of %d options", why, detail, len(claim.InstanceTypeOptions))})
	return n, nil
}

// launchFrom is what a claim of the NodePool launches from: its node
// class and that class's provider (none for a cloud karpsim does not
// model), and the instance type.
func (c *Controller) launchFrom(np *apis.NodePool, it *instancetypes.InstanceType) Launch {
	ref := np.Spec.Template.Spec.NodeClassRef
	from := Launch{NodeClass: c.cfg.Cluster.NodeClass(ref.Name), InstanceType: it}
	if p, ok := c.cfg.Providers.For(ref); ok {
		from.Provider = p
	}
	return from
}

// markRefused records an offering the launcher found without capacity.
// A reserved one is marked for the capacity reservation the launch asked
// for, as the AWS provider v1.15.0 keys the mark, so that another
// reservation of the type and zone stays available: of the claim's usable
// reserved offerings of the type in the zone with units left, the one with
// the most (the provider's one reservation per zone and launch). With none,
// the type and zone are marked.
func (c *Controller) markRefused(o cloud.OfferingKey, claim scheduling.NodeClaim, catalog instancetypes.Catalog, now time.Time) {
	if o.CapacityType == apis.CapacityTypeReserved {
		if id := c.launchedReservation(o, claim, catalog, now); id != "" {
			c.unavailable.MarkReservationUnavailable(o.InstanceType, o.Zone, id, now)
			return
		}
	}
	c.unavailable.MarkUnavailable(o.CapacityType, o.InstanceType, o.Zone, now)
}

// launchedReservation is the reservation a reserved launch of the offering
// for the claim goes into (see markRefused), "" when there is none.
func (c *Controller) launchedReservation(o cloud.OfferingKey, claim scheduling.NodeClaim, catalog instancetypes.Catalog, now time.Time) string {
	it, ok := catalog.Get(o.InstanceType)
	if !ok {
		return ""
	}
	reqs, err := requirements.FromNodeSelectorRequirements(claim.Requirements...)
	if err != nil {
		return ""
	}
	best := -1
	for i, off := range it.Offerings {
		if off.CapacityType != apis.CapacityTypeReserved || off.Zone != o.Zone || off.ReservationID == "" || !off.Available ||
			off.ReservationCapacity == 0 || !off.CompatibleUnder(it.LabelRules(), reqs) || c.unavailable.IsReservationUnavailable(it.Name, off.Zone, off.ReservationID, now) {
			continue
		}
		if best < 0 || off.ReservationCapacity > it.Offerings[best].ReservationCapacity {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return it.Offerings[best].ReservationID
}

// overrides are the offerings Karpenter's AWS provider sends CreateFleet
// for the claim in one call (its instance provider's Create):
//
//   - of the claim's launch types, at most instancetypes.MaxLaunchOptions
//     of them (the provider truncates the types to 60; each gives an
//     override per zone it is offered in);
//   - of one capacity type, by the provider's priority: reserved when the
//     claim launches into a reservation (the scheduler took one for it and
//     the NodeClaim's requirements pin it), else spot when the claim
//     allows spot and a usable spot offering is left, else on-demand;
//   - every offering of that type that is available now, not marked
//     unavailable, and in a zone the claim allows; a spot offering only up
//     to the cheapest usable on-demand one when the claim allows both and
//     states no minValues (the provider's spot filter).
//
// The provider lists them type by type (cheapest type first) and sets each
// override's priority to its price, which only the prioritized strategies
// read; EC2's lowest-price and price-capacity-optimized strategies choose
// among them by price and capacity whatever their order. Here they come
// in lowest-price's order, cheapest first (ties by type, then zone), the
// scheduler's own offering first among equals. Nil when the claim names no
// launch types.
func (c *Controller) overrides(claim scheduling.NodeClaim, np *apis.NodePool, catalog instancetypes.Catalog, now time.Time) []cloud.Override {
	if len(claim.LaunchOptions) == 0 {
		return nil
	}
	reqs, err := requirements.FromNodeSelectorRequirements(claim.Requirements...)
	if err != nil {
		return nil
	}
	usable := func(it *instancetypes.InstanceType, o instancetypes.Offering) bool {
		return o.Available && o.CompatibleUnder(it.LabelRules(), reqs) && !c.unavailable.IsOfferingUnavailable(o.CapacityType, it.Name, o.Zone, o.ReservationID, now)
	}
	var types []*instancetypes.InstanceType
	for _, name := range claim.LaunchOptions[:min(len(claim.LaunchOptions), instancetypes.MaxLaunchOptions)] {
		if it, ok := catalog.Get(name); ok {
			types = append(types, it)
		}
	}
	allowed := reqs.Get(apis.LabelCapacityType)
	spotCap := math.Inf(1)
	if allowed.Has(apis.CapacityTypeSpot) && allowed.Has(apis.CapacityTypeOnDemand) &&
		!slices.ContainsFunc(np.Spec.Template.Spec.Requirements, func(r apis.NodeSelectorRequirementWithMinValues) bool { return r.MinValues != nil }) {
		for _, it := range types {
			for _, o := range it.Offerings {
				if o.CapacityType == apis.CapacityTypeOnDemand && usable(it, o) {
					spotCap = min(spotCap, o.Price)
				}
			}
		}
	}
	offered := func(it *instancetypes.InstanceType, o instancetypes.Offering, capacityType string) bool {
		return o.CapacityType == capacityType && usable(it, o) && (o.CapacityType != apis.CapacityTypeSpot || o.Price <= spotCap)
	}
	capacityType := apis.CapacityTypeOnDemand
	switch {
	case claim.CapacityType == apis.CapacityTypeReserved:
		capacityType = apis.CapacityTypeReserved
	case allowed.Has(apis.CapacityTypeSpot) && slices.ContainsFunc(types, func(it *instancetypes.InstanceType) bool {
		return slices.ContainsFunc(it.Offerings, func(o instancetypes.Offering) bool { return offered(it, o, apis.CapacityTypeSpot) })
	}):
		capacityType = apis.CapacityTypeSpot
	}
	var out []cloud.Override
	for _, it := range types {
		for _, o := range it.Offerings {
			if offered(it, o, capacityType) {
				out = append(out, cloud.Override{InstanceType: it.Name, Zone: o.Zone, CapacityType: o.CapacityType, PricePerHour: o.Price})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b cloud.Override) int {
		return cmp.Or(cmp.Compare(a.PricePerHour, b.PricePerHour), cmp.Compare(a.InstanceType, b.InstanceType), cmp.Compare(a.Zone, b.Zone))
	})
	// The scheduler's choice goes first among equals: it is what a launch
	// without overrides takes.
	if i := slices.IndexFunc(out, func(o cloud.Override) bool {
		return o.InstanceType == claim.InstanceType && o.Zone == claim.Zone && o.CapacityType == claim.CapacityType
	}); i > 0 && out[i].PricePerHour <= out[0].PricePerHour {
		first := out[i]
		copy(out[1:i+1], out[:i])
		out[0] = first
	}
	return out
}

// claimName is the next free "<nodepool>-<n>" name.
func (c *Controller) claimName(pool string) string {
	for {
		c.claimNo[pool]++
		name := fmt.Sprintf("%s-%05d", pool, c.claimNo[pool])
		if c.cfg.Cluster.Node(name) == nil {
			return name
		}
	}
}

func (c *Controller) terminate(ctx context.Context, node, id string) {
	if err := c.cfg.Launcher.Delete(ctx, id); err != nil {
		c.record(Decision{Kind: KindDeleteFailed, Nodes: []string{node}, Reason: err.Error()})
	}
}

func (c *Controller) pool(name string) *apis.NodePool {
	for _, np := range c.cfg.Cluster.NodePools() {
		if np.Name == name {
			return np
		}
	}
	return nil
}

// nodePools returns the NodePools with catalogs whose offerings recently
// out of capacity are marked unavailable at now.
func (c *Controller) nodePools(now time.Time) []scheduling.Pool {
	// Expired marks are forgotten first, so that the sequence number says
	// whether the marked catalogs made earlier still hold.
	c.unavailable.Prune(now)
	marked := c.unavailable.Holds(now)
	pools := c.cfg.Cluster.NodePools()
	catalogs := c.overlaidCatalogs(pools)
	out := make([]scheduling.Pool, 0, len(pools))
	for i, np := range pools {
		catalog := catalogs[i]
		if marked {
			catalog = c.withoutUnavailable(catalog, now)
		}
		out = append(out, scheduling.Pool{NodePool: np, InstanceTypes: catalog})
	}
	return out
}

// overlaid is the result of applying the NodeOverlays to the NodePools'
// catalogs, kept while the NodePools and their catalogs stay the same
// values, so that each pass offers consolidation's cache the same slices.
type overlaid struct {
	pools []*apis.NodePool
	base  []instancetypes.Catalog
	out   []instancetypes.Catalog
}

// overlaidCatalogs returns the catalog of each NodePool's EC2NodeClass,
// in order, with Config.NodeOverlays applied as Karpenter's cloud provider
// applies them before every scheduling simulation.
func (c *Controller) overlaidCatalogs(pools []*apis.NodePool) []instancetypes.Catalog {
	base := make([]instancetypes.Catalog, len(pools))
	for i, np := range pools {
		base[i] = c.cfg.Cluster.Catalog(np.Spec.Template.Spec.NodeClassRef.Name)
	}
	if len(c.cfg.NodeOverlays) == 0 {
		return base
	}
	if m := c.overlays; m != nil && slices.Equal(m.pools, pools) && slices.EqualFunc(m.base, base, sameCatalog) {
		return m.out
	}
	in := make([]instancetypes.OverlayPool, len(pools))
	for i, np := range pools {
		in[i] = instancetypes.OverlayPool{Name: np.Name, Labels: np.Spec.Template.ObjectMeta.Labels, Types: base[i]}
	}
	out, conflicts := instancetypes.ApplyOverlays(in, c.cfg.NodeOverlays)
	c.overlays = &overlaid{pools: slices.Clone(pools), base: base, out: out}
	for _, conflict := range conflicts {
		c.record(Decision{Kind: KindOverlayConflict, Reason: conflict.String()})
	}
	return out
}

// poolCatalog is the NodePool's catalog with the NodeOverlays applied.
func (c *Controller) poolCatalog(np *apis.NodePool) instancetypes.Catalog {
	pools := c.cfg.Cluster.NodePools()
	catalogs := c.overlaidCatalogs(pools)
	for i, p := range pools {
		if p.Name == np.Name {
			return catalogs[i]
		}
	}
	return c.cfg.Cluster.Catalog(np.Spec.Template.Spec.NodeClassRef.Name)
}

// sameCatalog reports whether two catalogs are the same slice.
func sameCatalog(a, b instancetypes.Catalog) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// clearedCatalog is a catalog with its unavailable offerings cleared, as
// made for one catalog and one state of the unavailable-offering marks.
type clearedCatalog struct {
	base instancetypes.Catalog
	seq  uint64
	out  instancetypes.Catalog
}

// withoutUnavailable returns the catalog with its unavailable offerings
// cleared: the same slice as last time while neither the catalog nor the
// marks changed, for consolidation's cache recognises catalogs by identity.
func (c *Controller) withoutUnavailable(cat instancetypes.Catalog, now time.Time) instancetypes.Catalog {
	seq := c.unavailable.Seq()
	for i := range c.cleared {
		m := &c.cleared[i]
		if len(m.base) == len(cat) && len(cat) > 0 && &m.base[0] == &cat[0] {
			if m.seq != seq {
				m.seq, m.out = seq, c.withUnavailable(cat, now)
			}
			return m.out
		}
	}
	out := c.withUnavailable(cat, now)
	c.cleared = append(c.cleared, clearedCatalog{base: cat, seq: seq, out: out})
	// Catalogs replaced since are dropped; a handful are live at a time.
	if len(c.cleared) > 16 {
		c.cleared = slices.Delete(c.cleared, 0, len(c.cleared)-16)
	}
	return out
}

// withUnavailable copies the catalog's types that have an offering marked
// unavailable, with that offering's Available cleared. Requirements list
// every offering whether available or not, so a shallow copy with new
// offerings stays consistent.
func (c *Controller) withUnavailable(cat instancetypes.Catalog, now time.Time) instancetypes.Catalog {
	out := make(instancetypes.Catalog, len(cat))
	for i, it := range cat {
		out[i] = it
		var offerings []instancetypes.Offering
		for j, o := range it.Offerings {
			if o.Available && c.unavailable.IsOfferingUnavailable(o.CapacityType, it.Name, o.Zone, o.ReservationID, now) {
				if offerings == nil {
					offerings = slices.Clone(it.Offerings)
				}
				offerings[j].Available = false
			}
		}
		if offerings != nil {
			cp := *it
			cp.Offerings = offerings
			out[i] = &cp
		}
	}
	return out
}

func isReal(u scheduling.Unschedulable) bool { return !u.Buffer }
