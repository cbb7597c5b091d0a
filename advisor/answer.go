package advisor

import (
	"time"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Answer is what the advisor knows of the cluster at one moment.
type Answer struct {
	// At is the time the answer speaks for; Took how long it took.
	At   time.Time     `json:"at"`
	Took time.Duration `json:"tookNanoseconds"`
	// Nodes are the cluster's nodes, sorted by name, with what Karpenter
	// would do with each now.
	Nodes []NodeRow `json:"nodes"`
	// Cost is the running nodes' price per hour, by NodePool, capacity type
	// and instance type, sorted by those.
	Cost []CostGroup `json:"cost"`
	// PerHour is the running nodes' price per hour in all.
	PerHour float64 `json:"perHour"`
	// Pending is the plan Karpenter would make for the pending pods.
	Pending Pending `json:"pending"`
	// Disruption is the command Karpenter's disruption controller would
	// issue now, with every node's verdict, and the NodeClaims past their
	// expireAfter.
	Disruption Disruption `json:"disruption"`
	// Repack weighs the managed nodes against a plan from scratch for
	// their pods; nil until it first ran (it runs on the period, not on
	// every change).
	Repack *Repack `json:"repack,omitempty"`
	// Warnings are the snapshot's and the plan's warnings.
	Warnings []string `json:"warnings,omitempty"`
}

// NodeRow is one node as the page shows it: eks-node-viewer's row, and
// what Karpenter's disruption controller would do with it and why.
type NodeRow struct {
	Name         string  `json:"name"`
	NodePool     string  `json:"nodePool"`
	InstanceType string  `json:"instanceType"`
	CapacityType string  `json:"capacityType"`
	Zone         string  `json:"zone"`
	PerHour      float64 `json:"perHour"`
	// Requested and Allocatable CPU in millicores and memory in bytes:
	// what the node's pods request against what it offers.
	CPURequested      int64 `json:"cpuRequestedMillis"`
	CPUAllocatable    int64 `json:"cpuAllocatableMillis"`
	MemoryRequested   int64 `json:"memoryRequestedBytes"`
	MemoryAllocatable int64 `json:"memoryAllocatableBytes"`
	Pods              int   `json:"pods"`
	// Created is the node's creation time.
	Created time.Time `json:"created"`
	// Disruptable is set when the command would disrupt the node; Method
	// names the method then.
	Disruptable bool   `json:"disruptable"`
	Method      string `json:"method,omitempty"`
	// Reason is the disruption controller's verdict, and Blocker its class
	// when the node is not disrupted (a Blocker* constant).
	Reason  string `json:"reason"`
	Blocker string `json:"blocker,omitempty"`
}

// CostGroup is the nodes of one NodePool, capacity type and instance type.
type CostGroup struct {
	NodePool     string  `json:"nodePool"`
	CapacityType string  `json:"capacityType"`
	InstanceType string  `json:"instanceType"`
	Nodes        int     `json:"nodes"`
	PerHour      float64 `json:"perHour"`
}

// Pending is Karpenter's plan for the pending pods.
type Pending struct {
	Pods          int                        `json:"pods"`
	NodeClaims    []scheduling.NodeClaim     `json:"nodeClaims"`
	PerHour       float64                    `json:"perHour"`
	Unschedulable []scheduling.Unschedulable `json:"unschedulable"`
	// Bound is the number of pending pods the plan binds to existing nodes
	// or in-flight claims.
	Bound int `json:"bound"`
}

// Disruption is the disruption controller's decision now.
type Disruption struct {
	Commands []consolidation.Command `json:"commands"`
	Expiring []snapshot.Expired      `json:"expiring"`
	// SavingsPerHour is what the commands save in all.
	SavingsPerHour float64 `json:"savingsPerHour"`
}

// Repack weighs the nodes Karpenter manages against plans from scratch for
// the pods on them and the pending ones: Karpenter's own plan, the
// optimizer's and the lower bound no plan can beat.
type Repack struct {
	At time.Time `json:"at"`
	// ManagedPerHour is what the managed nodes cost now.
	ManagedPerHour float64 `json:"managedPerHour"`
	// KarpenterPerHour is what Karpenter would launch for those pods from
	// scratch; OptimizedPerHour the optimizer's plan, found by Strategy;
	// LowerBoundPerHour a bound below every plan.
	KarpenterPerHour  float64 `json:"karpenterPerHour"`
	OptimizedPerHour  float64 `json:"optimizedPerHour"`
	Strategy          string  `json:"strategy"`
	LowerBoundPerHour float64 `json:"lowerBoundPerHour"`
	// SavingPerHour is ManagedPerHour less OptimizedPerHour, never below 0.
	SavingPerHour float64 `json:"savingPerHour"`
	// Unschedulable counts the pods the optimizer's plan leaves pending.
	Unschedulable int `json:"unschedulable"`
}
