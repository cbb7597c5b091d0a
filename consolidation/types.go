package consolidation

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/repair"
	"github.com/karpsim/karpsim/scheduling"
)

// Cluster is everything a disruption decision depends on.
type Cluster struct {
	// Nodes are the cluster's nodes, managed or not, initialized or not.
	Nodes []*Node
	// Pending are the pods waiting for a node. Consolidation simulations
	// place them too, as Karpenter's do, but a pending pod that fits nowhere
	// never blocks a command.
	Pending []*corev1.Pod
	// NodePools are the NodePools with the instance types each may launch.
	NodePools []scheduling.Pool
	// DaemonSets are one pod per DaemonSet, as scheduling.Input has them.
	DaemonSets []*corev1.Pod
	// PDBs are every PodDisruptionBudget in the cluster.
	PDBs []*policyv1.PodDisruptionBudget
}

// NodePool is the former name of the NodePools of a Cluster, which are
// scheduling.Pool values (a NodePool with the instance types its
// EC2NodeClass yields; a node's price is looked up in its NodePool's
// catalog), as scheduling.Input's are.
//
// Deprecated: use scheduling.Pool. NodePool will be removed after the next
// release.
type NodePool = scheduling.Pool

// Node is one node as the disruption controller sees it.
type Node struct {
	// Node is the node as scheduling sees it: name, labels (its NodePool,
	// instance type, zone and capacity type come from them), taints,
	// capacity, allocatable, the pods bound to it and whether it is
	// initialized.
	Node *scheduling.Node
	// NodeClaim is the node's NodeClaim; nil for a node Karpenter does not
	// manage, which is never a candidate.
	NodeClaim *apis.NodeClaim
	// Annotations are the node object's annotations; karpenter.sh/do-not-disrupt
	// "true" here keeps the node out of every method.
	Annotations map[string]string
	// Deleting is set once the node is marked for deletion; it is no
	// candidate and counts as disrupting against its NodePool's budgets.
	Deleting bool
	// NotReady is set while the node's Ready condition is not True; it
	// counts as disrupting against its NodePool's budgets.
	NotReady bool
	// NominatedAt is when a provisioning pass last chose the node for a
	// pending pod; the node is no candidate for NominationWindow after.
	NominatedAt time.Time
	// InitializedAt is when the node became initialized; consolidateAfter
	// counts from it until the node sees a pod event.
	InitializedAt time.Time
	// LastPodEventAt is when a pod was last bound to the node or left it
	// (terminal or terminating); consolidateAfter counts from it.
	LastPodEventAt time.Time
	// BufferPods counts the CapacityBuffer virtual pods the last
	// provisioning pass placed on the node: Karpenter's emptiness leaves
	// such a node alone (it is not empty: the buffer's room is there), as
	// do the other methods when the node holds no real pod; a node with real
	// pods too may be consolidated if its pods and the virtual pods, which
	// are in Cluster.Pending, fit elsewhere.
	BufferPods int
	// Drift is the node's drift, nil when it has not drifted. The caller
	// runs drift detection (package drift) and passes the result in.
	Drift *DriftStatus
	// Health is what node repair reads of the node object: its conditions
	// and creation time. Nil when there is no node object (a NodeClaim in
	// flight), or when the caller does not model node repair: such a node
	// is never repaired and counts towards no NodePool's unhealthy share.
	Health *NodeHealth
}

// NodeHealth is the node object's status as node repair reads it.
type NodeHealth struct {
	// Conditions are the node's status conditions.
	Conditions []corev1.NodeCondition
	// Created is the node's creationTimestamp: no condition counts as
	// older than the node.
	Created time.Time
}

// DriftStatus is why a node drifted.
type DriftStatus struct {
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
	// Since is when the node's Drifted condition turned true; drift
	// disrupts the longest-drifted node first. Nodes with a zero Since sort
	// first, then by name.
	Since time.Time `json:"since,omitzero"`
}

// NominationWindow is how long after a nomination a node is no candidate:
// Karpenter's nomination lasts max(2 × BatchMaxDuration, 10s), 20s with the
// default 10s batch.
const NominationWindow = 20 * time.Second

// Options are the knobs of an evaluation. The zero value is Karpenter's
// default configuration.
type Options struct {
	// SpotToSpotConsolidation is the feature gate of that name (off by
	// default upstream): without it a spot node is never replaced by a
	// spot node.
	SpotToSpotConsolidation bool
	// PodDeletionCostManagement is the feature gate of that name (v1.15,
	// off by default): Karpenter then manages pods'
	// controller.kubernetes.io/pod-deletion-cost itself, and a pod's
	// eviction cost reads only its karpenter.sh/disruption-cost.
	PodDeletionCostManagement bool
	// TerminateFirstDrift is the feature gate of that name (v1.15, alpha,
	// off by default): a drifted node in a full capacity reservation whose
	// pods fit nowhere else is deleted before its replacement, which
	// provisioning launches into the unit it frees; a static NodePool at
	// its node limit, or whose reservations are full, deletes drifted nodes
	// before static provisioning refills it.
	TerminateFirstDrift bool
	// NodeRepair is the NodeRepair feature gate (v1.15, off by default)
	// with the cloud provider's repair policies (package provider has
	// them): when set, the Repair method runs before every other (see
	// evaluation.repair).
	NodeRepair *repair.Matcher
	// TerminateFirstRepair is the feature gate of that name (v1.15, off by
	// default): node repair deletes a node first, as terminate-first drift
	// does, when no replacement can launch before it.
	TerminateFirstRepair bool
	// Reboots are the reboots node repair committed, by NodeClaim name
	// (Karpenter keeps them in memory, by NodeClaim UID): with
	// repair.RebootsBeforeReplacement of them in repair.RebootWindow, a
	// reboot decision becomes a replacement.
	Reboots map[string][]time.Time
	// Scheduling are the options of every simulation; ReservedFallback is
	// always on, as in Karpenter's disruption simulations (terminate-first
	// drift's credited solve alone runs without it).
	Scheduling scheduling.Options
	// Cache, when set, keeps what an evaluation compiles from the
	// NodePools, their catalogs and the DaemonSets for the next
	// evaluation with the same ones (see Cache).
	Cache *Cache
	// From, when it names a method (Method* constants), starts the
	// evaluation with that method, skipping the ones before it: Karpenter
	// validates a command by its own method, and goes on to the next method
	// in the same pass when a command fails validation (see MethodAfter).
	From string
	// NominationWindow is how long a nominated node is no candidate;
	// zero means the package's NominationWindow. Karpenter's is
	// max(2 × BATCH_MAX_DURATION, 10s).
	NominationWindow time.Duration
	// Planner, when set, plans multi- and single-node consolidation's
	// replacements beside Karpenter's scheduler: it must keep
	// scheduling.Solve's contract (optimize.Solve does), and is given a
	// simulation's input (the pods to place, the nodes left, the NodePools
	// cut to the types cheaper than the candidates). Its plan is weighed
	// when Karpenter's needs new nodes and it costs less (see
	// consolidate), and multi-node consolidation may then launch up to
	// as many replacements as it deletes nodes, as long as together they
	// cost less than the candidates. Nil is Karpenter's behaviour: one
	// replacement at most, as its scheduler plans it. Drift is never
	// planned by it.
	Planner func(scheduling.Input) (scheduling.Result, error)
	// Timeouts, when set, gives multi- and single-node consolidation
	// Karpenter's time budgets on a virtual clock (see Timeouts). Nil is
	// no budget: every search completes.
	Timeouts *Timeouts
	// TimedOutNodePools are the NodePools single-node consolidation ran out
	// of time on in the previous evaluation (that evaluation's
	// Decision.TimedOutNodePools): their candidates are tried first.
	TimedOutNodePools []string
}

func (o Options) nominationWindow() time.Duration {
	if o.NominationWindow > 0 {
		return o.NominationWindow
	}
	return NominationWindow
}

// The methods, in the order Karpenter tries them.
const (
	MethodRepair      = "repair"
	MethodEmptiness   = "emptiness"
	MethodStaticDrift = "static-drift"
	MethodDrift       = "drift"
	MethodMultiNode   = "multi-node-consolidation"
	MethodSingleNode  = "single-node-consolidation"
)

// Decision is what Karpenter would do next: the commands of the first method
// that found any, and a verdict on every node.
type Decision struct {
	// Commands are to be executed together; empty when no method found
	// anything to do. Every command comes from the same method.
	Commands []Command `json:"commands"`
	// Candidates has one verdict per node of the cluster, sorted by name.
	Candidates []CandidateVerdict `json:"candidates"`
	// TimedOutNodePools are the NodePools single-node consolidation did not
	// reach before its timeout, sorted, for the next evaluation's
	// Options.TimedOutNodePools: Options.TimedOutNodePools as given when
	// single-node consolidation did not run or returned a command, empty
	// when it tried every candidate.
	TimedOutNodePools []string `json:"timedOutNodePools,omitempty"`
}

// Command is one disruption: delete some nodes, launching replacements
// first if there are any.
type Command struct {
	// Method is the method that found the command (Method* constants).
	Method string `json:"method"`
	// Reason starts with the disruption reason the budgets counted it
	// under (Empty, Drifted or Underutilized) and the decision (delete or
	// replace), then says why.
	Reason string `json:"reason"`
	// Delete are the names of the nodes to delete, sorted.
	Delete []string `json:"delete"`
	// Replacements are the NodeClaims to launch, and wait for, before the
	// nodes are deleted.
	Replacements []scheduling.NodeClaim `json:"replacements"`
	// Moves say where each reschedulable pod of the deleted nodes would go,
	// sorted by pod: an existing node or a replacement's name. Empty for
	// methods that simulate nothing (emptiness, static drift).
	Moves []Move `json:"moves"`
	// SavingsPerHour is the deleted nodes' price less the replacements'
	// launch price; negative for a drift replacement that costs more.
	SavingsPerHour float64 `json:"savingsPerHour"`
	// TerminateFirst is set on a terminate-first drift command (the
	// TerminateFirstDrift gate): the node goes before any replacement, and
	// the pods its Moves leave out wait for the node provisioning launches
	// into the reservation unit it frees. SavingsPerHour then counts that
	// node's price.
	TerminateFirst bool `json:"terminateFirst,omitempty"`
	// Reboot names the node a node repair reboot command restarts in
	// place (Delete is then empty): Karpenter hands it to its reboot
	// controller and launches nothing.
	Reboot string `json:"reboot,omitempty"`
	// TerminationGracePeriod is node repair's drain bound for the node:
	// the repair policy's, or the NodeClaim's terminationGracePeriod when
	// that is shorter or the policy sets none; nil when neither sets one
	// (the drain waits for every pod), 0 skips the drain.
	TerminationGracePeriod *metav1.Duration `json:"terminationGracePeriod,omitempty"`
}

// Move is where one pod of a deleted node would go.
type Move struct {
	// Pod is "namespace/name".
	Pod string `json:"pod"`
	// To is an existing node's name or a replacement NodeClaim's name.
	To string `json:"to"`
}

// CandidateVerdict says whether a node is disrupted and why, or why not.
type CandidateVerdict struct {
	Node     string `json:"node"`
	NodePool string `json:"nodePool"`
	// Disruptable is true for the nodes the commands delete.
	Disruptable bool `json:"disruptable"`
	// Reason names what the command does with the node, or the first thing
	// that stops each method from disrupting it: the node, pod, PDB,
	// annotation, NodePool, budget or time left, or the simulation's
	// verdict.
	Reason string `json:"reason"`
}
