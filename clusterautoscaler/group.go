package clusterautoscaler

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// group is one Auto Scaling Group and what CA remembers of it.
type group struct {
	spec  NodeGroup
	types []*instancetypes.InstanceType // in the order listed
	zones []string
	// template is the node CA simulates scale-ups on: the first type, in
	// the first zone, with the group's labels and taints.
	template *scheduling.Node
	// capacity and allocatable are the template's.
	capacity, allocatable resources.Vector
	// price is the template's offering price.
	price float64
	// target is the Auto Scaling Group's desired capacity.
	target int
	// due are the times requested instances launch at; failed the times
	// of scale-ups whose instances could not launch.
	due, failed []time.Time
	// seq numbers the group's nodes.
	seq int
	// backoffUntil, backoff and lastFailure are the group's backoff after
	// a failed scale-up.
	backoffUntil, lastFailure time.Time
	backoff                   time.Duration
}

func newGroup(spec NodeGroup, catalog instancetypes.Catalog, zones []string) (*group, error) {
	g := &group{spec: spec, zones: spec.Zones}
	if g.spec.CapacityType == "" {
		g.spec.CapacityType = apis.CapacityTypeOnDemand
	}
	if len(g.zones) == 0 {
		g.zones = zones
	}
	for _, name := range spec.InstanceTypes {
		it, _ := catalog.Get(name)
		g.types = append(g.types, it)
	}
	first := g.types[0]
	g.capacity, g.allocatable = first.Capacity, first.Allocatable()
	o, ok := offering(first, g.zones[0], g.spec.CapacityType)
	if !ok {
		return nil, fmt.Errorf("node group %s: %s has no %s offering in %s", spec.Name, first.Name, g.spec.CapacityType, g.zones[0])
	}
	g.price = o.Price
	g.template = g.node(defaultTemplateHostnamePrefix+spec.Name, first, g.zones[0])
	g.template.Initialized = true
	return g, nil
}

func sortGroups(gs []*group) {
	slices.SortFunc(gs, func(a, b *group) int { return cmp.Compare(a.spec.Name, b.spec.Name) })
}

func offering(it *instancetypes.InstanceType, zone, capacityType string) (instancetypes.Offering, bool) {
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType && o.Available {
			return o, true
		}
	}
	return instancetypes.Offering{}, false
}

// node is a node of the group: the instance type's Kubernetes labels (not
// Karpenter's), the zone, the EKS managed node group labels, the group's
// own labels and taints.
func (g *group) node(name string, it *instancetypes.InstanceType, zone string) *scheduling.Node {
	labels := map[string]string{}
	for k, v := range it.Labels() {
		if d := apis.LabelDomain(k); d == apis.Group || strings.HasSuffix(d, "karpenter.k8s.aws") {
			continue
		}
		labels[k] = v
	}
	maps.Copy(labels, g.spec.Labels)
	labels[apis.LabelTopologyZone] = zone
	labels[apis.LabelHostname] = name
	labels[apis.LabelInstanceType] = it.Name
	labels[labelEKSNodeGroup] = g.spec.Name
	labels[labelEKSCapacityType] = eksCapacityTypeOnDemand
	if g.spec.CapacityType == apis.CapacityTypeSpot {
		labels[labelEKSCapacityType] = eksCapacityTypeSpot
	}
	return &scheduling.Node{Name: name, Labels: labels, Taints: apis.CopyTaints(g.spec.Taints),
		Capacity: it.Capacity.List(), Allocatable: it.Allocatable().List()}
}

// emptyTemplate is a fresh copy of the template, named name.
func (g *group) emptyTemplate(name string) *scheduling.Node {
	n := *g.template
	n.Name = name
	n.Labels = maps.Clone(g.template.Labels)
	n.Labels[apis.LabelHostname] = name
	n.Pods = nil
	return &n
}

// backedOff says whether the group may not scale up at now.
func (g *group) backedOff(now time.Time) bool { return now.Before(g.backoffUntil) }

// requestLaunches asks the group's Auto Scaling Group for n instances,
// which launch after the launch delay.
func (a *Autoscaler) requestLaunches(g *group, n int) {
	at := a.now().Add(a.st.launchDelay)
	for range n {
		g.due = append(g.due, at)
	}
	a.cfg.Timers.WakeAt(at, WakeLaunch)
}

// launchDueInstances launches every instance whose launch delay is over.
func (a *Autoscaler) launchDueInstances(ctx context.Context) {
	for _, g := range a.groups {
		var keep []time.Time
		for _, at := range g.due {
			if at.After(a.now()) {
				keep = append(keep, at)
				continue
			}
			if !a.launchOne(ctx, g, false) {
				g.failed = append(g.failed, at.Add(-a.st.launchDelay))
			}
		}
		g.due = keep
	}
}

// launchOne launches one instance of the group as its Auto Scaling Group
// would: in the zone with the fewest of its nodes (AZ balance), the first
// listed type offered there for on-demand, the cheapest for spot; on
// insufficient capacity the next type, then the next zone. ready dates the
// node ready at once (the group's nodes at the start of the run).
func (a *Autoscaler) launchOne(ctx context.Context, g *group, ready bool) bool {
	g.seq++
	name := fmt.Sprintf("%s-%05d", g.spec.Name, g.seq)
	var errs []string
	for _, zone := range a.zoneOrder(g) {
		for _, it := range g.launchOrder(zone) {
			o, _ := offering(it, zone, g.spec.CapacityType)
			req := cloud.LaunchRequest{NodeClaim: name, NodePool: g.spec.Name, InstanceType: it.Name, Zone: zone,
				CapacityType: g.spec.CapacityType, PricePerHour: o.Price}
			inst, err := a.cfg.Launcher.Create(ctx, req)
			if err != nil {
				errs = append(errs, err.Error())
				if _, ice := cloud.IsInsufficientCapacity(err); ice {
					continue
				}
				break
			}
			if inst.LaunchedAt.Before(a.now()) {
				inst.LaunchedAt = a.now()
			}
			if ready {
				inst.RegisteredAt, inst.InitializedAt = a.now(), a.now()
			}
			n := &Node{Node: g.node(name, it, zone), Group: g.spec.Name, Instance: inst, PricePerHour: inst.PricePerHour}
			n.Node.Initialized = ready
			if err := a.cfg.Cluster.AddNode(ctx, n); err != nil {
				_ = a.cfg.Launcher.Delete(ctx, inst.ID)
				errs = append(errs, err.Error())
				break
			}
			how := "for a scale-up"
			if ready {
				how = "at its min size when CA starts"
			}
			a.record(Decision{Kind: KindLaunch, Nodes: []string{name}, InstanceType: it.Name, Zone: zone,
				CapacityType: g.spec.CapacityType, PricePerHour: inst.PricePerHour,
				Reason: fmt.Sprintf("ASG %s launched an instance %s (desired capacity %d)", g.spec.Name, how, g.target)})
			return true
		}
	}
	a.record(Decision{Kind: KindLaunchFailed, Nodes: []string{name}, CapacityType: g.spec.CapacityType,
		Reason: fmt.Sprintf("ASG %s could not launch an instance: %s", g.spec.Name, strings.Join(errs, "; "))})
	return false
}

// zoneOrder is the group's zones, fewest nodes of the group first.
func (a *Autoscaler) zoneOrder(g *group) []string {
	count := map[string]int{}
	for _, n := range a.cfg.Cluster.Nodes() {
		if n.Group == g.spec.Name && !n.Deleting {
			count[n.Instance.Zone]++
		}
	}
	zones := slices.Clone(g.zones)
	slices.SortStableFunc(zones, func(x, y string) int { return cmp.Compare(count[x], count[y]) })
	return zones
}

// launchOrder is the group's types offered in the zone: as listed for
// on-demand (the prioritized strategy), cheapest first for spot.
func (g *group) launchOrder(zone string) []*instancetypes.InstanceType {
	var out []*instancetypes.InstanceType
	for _, it := range g.types {
		if _, ok := offering(it, zone, g.spec.CapacityType); ok {
			out = append(out, it)
		}
	}
	if g.spec.CapacityType == apis.CapacityTypeSpot {
		slices.SortStableFunc(out, func(x, y *instancetypes.InstanceType) int {
			ox, _ := offering(x, zone, g.spec.CapacityType)
			oy, _ := offering(y, zone, g.spec.CapacityType)
			return cmp.Compare(ox.Price, oy.Price)
		})
	}
	return out
}

// timeouts gives up on instances that did not launch within
// max-node-provision-time of their scale-up: the group's desired capacity
// drops by as many, and the group backs off (5 minutes, doubling to 30,
// reset after 3 hours without a failure).
func (a *Autoscaler) timeouts() {
	now := a.now()
	for _, g := range a.groups {
		var keep []time.Time
		expired := 0
		for _, at := range g.failed {
			if at.Add(a.st.provisionTime).After(now) {
				keep = append(keep, at)
				continue
			}
			expired++
		}
		g.failed = keep
		if expired == 0 {
			continue
		}
		before := g.target
		g.target = max(g.target-expired, 0)
		switch {
		case g.backoff == 0 || now.Sub(g.lastFailure) >= DefaultBackoffReset:
			g.backoff = a.st.initialBackoff
		default:
			g.backoff = min(g.backoff*defaultBackoffMultiplier, a.st.maxBackoff)
		}
		g.lastFailure, g.backoffUntil = now, now.Add(g.backoff)
		a.record(Decision{Kind: KindScaleUpTimeout, Pods: 0, CapacityType: g.spec.CapacityType,
			Reason: fmt.Sprintf("node group %s: %d nodes not provisioned within max-node-provision-time %v: desired capacity %d → %d; group backed off for %v",
				g.spec.Name, expired, a.st.provisionTime, before, g.target, g.backoff)})
	}
}
