package advisor

import (
	"github.com/prometheus/client_golang/prometheus"
)

// The metrics the advisor exports, named by Prometheus' conventions (base
// units: dollars per hour, seconds; a _total suffix on counters). Every
// gauge is drawn from the latest Answer at scrape time, so that one scrape
// sees one answer.
var (
	descCost = prometheus.NewDesc("karpsim_cluster_cost_dollars_per_hour",
		"Price per hour of the running nodes, by NodePool, capacity type and instance type.",
		[]string{"nodepool", "capacity_type", "instance_type"}, nil)
	descNodes = prometheus.NewDesc("karpsim_cluster_nodes",
		"Running nodes, by NodePool, capacity type and instance type.",
		[]string{"nodepool", "capacity_type", "instance_type"}, nil)
	descPendingPods = prometheus.NewDesc("karpsim_pending_pods",
		"Pods waiting for a node.", nil, nil)
	descPlanNodes = prometheus.NewDesc("karpsim_provisioning_plan_nodeclaims",
		"NodeClaims Karpenter would launch now for the pending pods, by NodePool and instance type.",
		[]string{"nodepool", "instance_type", "capacity_type"}, nil)
	descPlanCost = prometheus.NewDesc("karpsim_provisioning_plan_cost_dollars_per_hour",
		"Price per hour of the NodeClaims Karpenter would launch now for the pending pods.", nil, nil)
	descPlanUnschedulable = prometheus.NewDesc("karpsim_provisioning_plan_unschedulable_pods",
		"Pending pods Karpenter could place on no node it may launch.", nil, nil)
	descDisruptNodes = prometheus.NewDesc("karpsim_disruption_candidate_nodes",
		"Nodes Karpenter's disruption controller would disrupt now, by method.",
		[]string{"method"}, nil)
	descDisruptSavings = prometheus.NewDesc("karpsim_disruption_savings_dollars_per_hour",
		"Price per hour the disruption command would save, by method (negative for a drift replacement that costs more).",
		[]string{"method"}, nil)
	descExpiring = prometheus.NewDesc("karpsim_expired_nodeclaims",
		"NodeClaims past their expireAfter, which Karpenter deletes whatever the budgets say.", nil, nil)
	descNotDisrupted = prometheus.NewDesc("karpsim_node_not_disrupted",
		"1 for each node the disruption controller would not disrupt now, labelled with the class of the first reason (reason) and the NodePool.",
		[]string{"node", "nodepool", "reason"}, nil)
	descManaged = prometheus.NewDesc("karpsim_repack_managed_cost_dollars_per_hour",
		"Price per hour of the nodes Karpenter manages, when the repack last ran.", nil, nil)
	descRepackKarpenter = prometheus.NewDesc("karpsim_repack_karpenter_cost_dollars_per_hour",
		"Price per hour of the plan Karpenter would make from scratch for the managed nodes' pods and the pending ones.", nil, nil)
	descOptimized = prometheus.NewDesc("karpsim_repack_optimized_cost_dollars_per_hour",
		"Price per hour of the optimizer's plan for the same pods.", nil, nil)
	descSaving = prometheus.NewDesc("karpsim_repack_saving_dollars_per_hour",
		"Managed nodes' price per hour less the optimizer's plan's, at least 0.", nil, nil)
	descBound = prometheus.NewDesc("karpsim_repack_lower_bound_dollars_per_hour",
		"A lower bound on the price per hour of any plan for the same pods.", nil, nil)
	descStale = prometheus.NewDesc("karpsim_view_stale",
		"1 while the advisor's view of the cluster may be out of date (the API server does not answer, or the last evaluation failed), else 0.", nil, nil)
	descLastEval = prometheus.NewDesc("karpsim_last_evaluation_timestamp_seconds",
		"Unix time of the last successful evaluation.", nil, nil)
)

// collector draws the gauges from the advisor's latest status.
type collector struct{ a *Advisor }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCost, descNodes, descPendingPods, descPlanNodes, descPlanCost, descPlanUnschedulable,
		descDisruptNodes, descDisruptSavings, descExpiring, descNotDisrupted, descManaged, descRepackKarpenter, descOptimized,
		descSaving, descBound, descStale, descLastEval} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.a.Status()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descStale, boolValue(s.Stale))
	a := s.Answer
	if a == nil {
		return
	}
	gauge(descLastEval, float64(a.At.UnixNano())/1e9)
	for _, g := range a.Cost {
		gauge(descCost, g.PerHour, g.NodePool, g.CapacityType, g.InstanceType)
		gauge(descNodes, float64(g.Nodes), g.NodePool, g.CapacityType, g.InstanceType)
	}
	gauge(descPendingPods, float64(a.Pending.Pods))
	type planKey struct{ pool, instance, capacity string }
	claims := map[planKey]int{}
	var keys []planKey
	for _, nc := range a.Pending.NodeClaims {
		k := planKey{nc.NodePool, nc.InstanceType, nc.CapacityType}
		if claims[k] == 0 {
			keys = append(keys, k)
		}
		claims[k]++
	}
	for _, k := range keys {
		gauge(descPlanNodes, float64(claims[k]), k.pool, k.instance, k.capacity)
	}
	gauge(descPlanCost, a.Pending.PerHour)
	gauge(descPlanUnschedulable, float64(len(a.Pending.Unschedulable)))
	nodes, savings := map[string]int{}, map[string]float64{}
	var methods []string
	for _, cmd := range a.Disruption.Commands {
		if _, ok := nodes[cmd.Method]; !ok {
			methods = append(methods, cmd.Method)
		}
		nodes[cmd.Method] += len(cmd.Delete)
		savings[cmd.Method] += cmd.SavingsPerHour
	}
	for _, m := range methods {
		gauge(descDisruptNodes, float64(nodes[m]), m)
		gauge(descDisruptSavings, savings[m], m)
	}
	gauge(descExpiring, float64(len(a.Disruption.Expiring)))
	for _, n := range a.Nodes {
		if !n.Disruptable {
			gauge(descNotDisrupted, 1, n.Name, n.NodePool, n.Blocker)
		}
	}
	if r := a.Repack; r != nil {
		gauge(descManaged, r.ManagedPerHour)
		gauge(descRepackKarpenter, r.KarpenterPerHour)
		gauge(descOptimized, r.OptimizedPerHour)
		gauge(descSaving, r.SavingPerHour)
		gauge(descBound, r.LowerBoundPerHour)
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
