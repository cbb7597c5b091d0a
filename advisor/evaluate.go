package advisor

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Options configure an evaluation. The zero value reads the objects with
// the embedded EC2 model and Karpenter's default options.
type Options struct {
	// Snapshot says how objects become the solver's input: the catalog,
	// region, zones and limits (snapshot.Options).
	Snapshot snapshot.Options
	// SpotToSpot turns on spot-to-spot consolidation, as Karpenter's
	// feature gate SpotToSpotConsolidation does.
	SpotToSpot bool
	// Timeouts, when set, gives consolidation Karpenter's time budgets on
	// a virtual clock (consolidation.Timeouts). Each evaluation starts
	// with no NodePool remembered as timed out.
	Timeouts *consolidation.Timeouts
	// Disruption holds the rest of the disruption evaluation's options:
	// Karpenter's feature gates (NodeRepair with the cloud's repair
	// policies, TerminateFirstRepair, TerminateFirstDrift,
	// PodDeletionCostManagement) and the reboots node repair committed.
	// SpotToSpot and Timeouts above are added to it; its Scheduling is
	// replaced by what the snapshot reads (default spread, devices).
	Disruption consolidation.Options
}

// Evaluate answers for the objects at now: the nodes and their cost, the
// plan for the pending pods, and the disruption command. It leaves Repack
// nil (see EvaluateRepack). The set is not changed.
func Evaluate(set *manifests.Set, opts Options, now time.Time) (*Answer, error) {
	a, _, err := evaluate(set, opts, now)
	return a, err
}

// evaluate is Evaluate, also returning the solver's input for the pending
// pods, which the repack starts from.
func evaluate(set *manifests.Set, opts Options, now time.Time) (*Answer, scheduling.Input, error) {
	if set == nil {
		return nil, scheduling.Input{}, errors.New("advisor: no objects (nil Set)")
	}
	start := time.Now()
	// One run of the snapshot's stages gives both views (FromSet's and
	// ForDisruption's).
	snap, d, err := snapshot.FromSetForDisruption(set, opts.Snapshot, now)
	if err != nil {
		return nil, scheduling.Input{}, err
	}
	in := snap.Input(scheduling.Options{})
	plan := scheduling.Solve(in)
	evalOpts := opts.Disruption
	evalOpts.SpotToSpotConsolidation = evalOpts.SpotToSpotConsolidation || opts.SpotToSpot
	evalOpts.Scheduling = scheduling.Options{DefaultSpread: d.DefaultSpread, DRA: d.DRA, Devices: d.Devices()}
	if opts.Timeouts != nil {
		evalOpts.Timeouts = opts.Timeouts
	}
	decision := consolidation.Evaluate(d.Cluster, now, evalOpts)

	a := &Answer{At: now, Warnings: slices.Concat(snap.Warnings, plan.Warnings)}
	a.Pending = Pending{Pods: len(snap.Pending), NodeClaims: plan.NodeClaims, PerHour: plan.Summary.PricePerHour,
		Unschedulable: plan.Unschedulable, Bound: len(plan.Bindings)}
	a.Disruption = Disruption{Commands: decision.Commands, Expiring: d.Expired}
	for _, c := range decision.Commands {
		a.Disruption.SavingsPerHour += c.SavingsPerHour
	}
	a.Nodes, err = nodeRows(d.Cluster, set.Nodes, decision)
	if err != nil {
		return nil, scheduling.Input{}, err
	}
	a.Cost, a.PerHour = costGroups(a.Nodes)
	a.Took = time.Since(start)
	return a, in, nil
}

// nodeRows is a row per node of the cluster, with its price from its
// NodePool's catalog and its verdict.
func nodeRows(c consolidation.Cluster, objects []*corev1.Node, decision consolidation.Decision) ([]NodeRow, error) {
	catalogs := map[string]*scheduling.Pool{}
	for i := range c.NodePools {
		catalogs[c.NodePools[i].NodePool.Name] = &c.NodePools[i]
	}
	created := map[string]time.Time{}
	for _, n := range objects {
		created[n.Name] = n.CreationTimestamp.Time
	}
	verdicts := map[string]consolidation.CandidateVerdict{}
	for _, v := range decision.Candidates {
		verdicts[v.Node] = v
	}
	methods := map[string]string{}
	for _, cmd := range decision.Commands {
		for _, name := range cmd.Delete {
			methods[name] = cmd.Method
		}
	}
	rows := make([]NodeRow, 0, len(c.Nodes))
	for _, n := range c.Nodes {
		if n == nil || n.Node == nil {
			continue
		}
		sn := n.Node
		row := NodeRow{Name: sn.Name, NodePool: sn.NodePool, InstanceType: sn.Labels[apis.LabelInstanceType],
			CapacityType: sn.Labels[apis.LabelCapacityType], Zone: sn.Labels[apis.LabelTopologyZone],
			Created: created[sn.Name], Pods: len(sn.Pods)}
		if p := catalogs[sn.NodePool]; p != nil {
			if it, ok := p.InstanceTypes.Get(row.InstanceType); ok {
				row.PerHour, _ = it.NodePrice(sn.Labels)
			}
		}
		alloc := resources.FromList(sn.Allocatable)
		row.CPUAllocatable, row.MemoryAllocatable = alloc.CPU(), alloc.Memory()
		for _, p := range sn.Pods {
			r, err := resources.BoundRequests(p)
			if err != nil {
				return nil, fmt.Errorf("node %s: pod %s: %w", sn.Name, apis.PodKey(p), err)
			}
			if row.CPURequested, err = addBounded(row.CPURequested, r.CPU()); err != nil {
				return nil, fmt.Errorf("node %s: cpu requested: %w", sn.Name, err)
			}
			if row.MemoryRequested, err = addBounded(row.MemoryRequested, r.Memory()); err != nil {
				return nil, fmt.Errorf("node %s: memory requested: %w", sn.Name, err)
			}
		}
		v := verdicts[sn.Name]
		row.Reason, row.Disruptable, row.Method = v.Reason, v.Disruptable, methods[sn.Name]
		if !row.Disruptable {
			row.Blocker = blockerOf(v.Reason)
		}
		rows = append(rows, row)
	}
	slices.SortFunc(rows, func(a, b NodeRow) int { return cmp.Compare(a.Name, b.Name) })
	return rows, nil
}

// addBounded adds two amounts, refusing a sum resources.IsSaturated
// calls too large rather than wrapping.
func addBounded(a, b int64) (int64, error) {
	s := a + b
	if resources.IsSaturated(s) || (b > 0 && s < a) {
		return 0, fmt.Errorf("the sum exceeds %d", int64(resources.Saturated))
	}
	return s, nil
}

// costGroups sums the rows by NodePool, capacity type and instance type.
func costGroups(rows []NodeRow) ([]CostGroup, float64) {
	type key struct{ pool, capacity, instance string }
	groups := map[key]*CostGroup{}
	total := 0.0
	for _, r := range rows {
		k := key{r.NodePool, r.CapacityType, r.InstanceType}
		g := groups[k]
		if g == nil {
			g = &CostGroup{NodePool: k.pool, CapacityType: k.capacity, InstanceType: k.instance}
			groups[k] = g
		}
		g.Nodes++
		g.PerHour += r.PerHour
		total += r.PerHour
	}
	out := make([]CostGroup, 0, len(groups))
	for _, g := range groups {
		g.PerHour = round6(g.PerHour)
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b CostGroup) int {
		return cmp.Or(cmp.Compare(a.NodePool, b.NodePool), cmp.Compare(a.CapacityType, b.CapacityType), cmp.Compare(a.InstanceType, b.InstanceType))
	})
	return out, round6(total)
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// EvaluateRepack weighs the nodes Karpenter manages against plans from
// scratch for their pods and the pending ones: Karpenter's plan, the
// optimizer's (optimize.Search) and the lower bound (optimize.LowerBound).
// Nodes Karpenter does not manage keep their pods. It costs a few solves of
// the whole cluster, so Advisor runs it on its period, not on every change.
func EvaluateRepack(set *manifests.Set, opts Options, now time.Time) (*Repack, error) {
	a, in, err := evaluate(set, opts, now)
	if err != nil {
		return nil, err
	}
	return repack(in, a.Nodes, now)
}

// repack weighs the nodes of rows (their prices) against plans from
// scratch, starting from in, the input for the pending pods, which it does
// not change.
func repack(in scheduling.Input, rows []NodeRow, now time.Time) (*Repack, error) {
	price := make(map[string]float64, len(rows))
	for _, r := range rows {
		price[r.Name] = r.PerHour
	}
	managed, kept, pods := 0.0, make([]*scheduling.Node, 0, len(in.Nodes)), slices.Clone(in.Pods)
	for _, n := range in.Nodes {
		if n.NodePool == "" {
			kept = append(kept, n)
			continue
		}
		managed += price[n.Name]
		for _, p := range n.Pods {
			if !apis.IsDaemonSetPod(p) {
				pods = append(pods, p)
			}
		}
	}
	in.Nodes, in.Pods = kept, pods
	karpenter := scheduling.Solve(in)
	o, err := optimize.Search(in, optimize.SolveOptions{})
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	b, err := optimize.LowerBound(in, o.Result, optimize.BoundOptions{})
	if err != nil {
		return nil, fmt.Errorf("lower bound: %w", err)
	}
	r := &Repack{At: now, ManagedPerHour: round6(managed), KarpenterPerHour: karpenter.Summary.PricePerHour,
		OptimizedPerHour: o.PerHour, Strategy: o.Strategy, LowerBoundPerHour: math.Floor(b.PerHour*1e4) / 1e4,
		Unschedulable: o.Result.Summary.UnschedulablePods}
	r.SavingPerHour = round6(max(0, r.ManagedPerHour-r.OptimizedPerHour))
	return r, nil
}
