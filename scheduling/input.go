// Package scheduling decides what Karpenter would launch for pending pods:
// which pods fit existing and in-flight nodes, which new NodeClaims to
// create (NodePool, instance-type options, launch choice), and why each pod
// that fits nowhere does not fit.
//
// Put the pending pods, the existing nodes and the NodePools with the
// instance types each may launch into an Input and call Solve; the Result
// holds the new NodeClaims, where every pod goes and why each unschedulable
// pod was refused. snapshot.FromSet builds the Input from manifests. Solve
// is a pure function of its Input: no I/O, no clock, no global state. The
// same input gives the same Result, and nothing in the input is changed.
// Prepare compiles NodePools once for many solves over them.
package scheduling

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// MaxInstanceTypes is how many instance-type options a NodeClaim carries at
// most, cheapest first (Karpenter's MaxInstanceTypes since 2025-08; 60
// before).
const MaxInstanceTypes = 600

// Input is everything a scheduling decision depends on.
type Input struct {
	// Pods are the pods to place: pending pods, and pods of nodes being
	// deleted. Their order does not matter; Solve orders them as Karpenter
	// does.
	Pods []*corev1.Pod
	// Nodes are the existing nodes and in-flight NodeClaims pods may go to.
	Nodes []*Node
	// NodePools are the NodePools new NodeClaims may come from, each with the
	// instance types its EC2NodeClass yields.
	NodePools []Pool
	// DaemonSets are the pods the cluster's DaemonSets would run on every
	// node they tolerate and select: one pod per DaemonSet.
	DaemonSets []*corev1.Pod
	// PersistentVolumeClaims, PersistentVolumes and StorageClasses are what
	// the pods' volumes refer to: their topology constrains where the pods
	// may run, and their CSI drivers count against nodes' volume limits.
	// When none of the three is given, pods' volumes are not checked; when
	// any is, a claim, volume or class a pod needs and that is missing makes
	// the pod unplaceable, as in Karpenter.
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	StorageClasses         []*storagev1.StorageClass
	Options                Options
}

// Pool is a NodePool with the instance types it may launch: the catalog its
// EC2NodeClass yields. consolidation.Cluster takes the same values.
type Pool struct {
	NodePool *apis.NodePool
	// InstanceTypes is the catalog resolved for the NodePool's EC2NodeClass.
	InstanceTypes instancetypes.Catalog
}

// NodePool is the former name of Pool.
//
// Deprecated: use Pool. NodePool will be removed after the next release.
type NodePool = Pool

// Node is an existing node, or an in-flight NodeClaim that has no node yet.
type Node struct {
	Name string
	// NodePool is the owning NodePool's name, "" for a node Karpenter does
	// not manage. Managed nodes count against their NodePool's limits.
	NodePool string
	Labels   map[string]string
	Taints   []corev1.Taint
	// StartupTaints are the NodePool's startup taints, which Karpenter
	// ignores until the node is initialized.
	StartupTaints []corev1.Taint
	Capacity      corev1.ResourceList
	Allocatable   corev1.ResourceList
	// Pods are the pods bound to the node, DaemonSet pods included.
	Pods []*corev1.Pod
	// Initialized is false for in-flight NodeClaims and nodes not yet
	// ready: their ephemeral taints are ignored, and pods prefer initialized
	// nodes.
	Initialized bool
	// VolumeLimits is the number of volumes each CSI driver may attach to
	// the node (from its CSINode), keyed by driver. For a driver it does
	// not name, the node takes the limit its instance type states
	// (InstanceType.VolumeAttachmentLimits, looked up by the instance-type
	// label in its NodePool's catalog), as Karpenter v1.15.0 does until the
	// CSINode publishes the driver.
	VolumeLimits map[string]int
}

// Options are the knobs of a solve. The zero value is Karpenter's default.
type Options struct {
	// MaxInstanceTypes truncates each NodeClaim's options; 0 means
	// MaxInstanceTypes.
	MaxInstanceTypes int
	// IgnorePreferences disregards preferred affinities, anti-affinities
	// and ScheduleAnyway spread constraints (PreferencePolicy=Ignore); the
	// pods are read without them, never changed; by default they are respected and relaxed
	// one at a time when a pod fits nowhere.
	IgnorePreferences bool
	// MinValuesBestEffort lowers minValues instead of failing when too few
	// instance types remain (MinValuesPolicy=BestEffort).
	MinValuesBestEffort bool
	// ReservedFallback lets a claim launch spot or on-demand when the
	// capacity reservations it could use are all held (Karpenter's mode
	// during consolidation); by default such a pod waits instead, neither
	// relaxed nor moved to other capacity, as Karpenter provisions.
	ReservedFallback bool
	// ReservationCredit gives capacity reservations units back before the
	// solve, by reservation ID: the units a disruption candidate frees when
	// it terminates (Karpenter v1.15's CreditReservationCapacity, which its
	// terminate-first drift pass uses). A reservation no catalog names
	// gets nothing, and a count of 0 or less credits nothing; a credited
	// reservation may be held even when its offerings have no unit left.
	ReservationCredit map[string]int
	// Packing chooses among the claims that could take a pod. The zero
	// value, PackFewestPods, is Karpenter's; package optimize searches
	// with the others, which are not.
	Packing Packing
	// StopAbovePrice, when positive, gives up a solve as soon as its
	// claims certainly cost more an hour (each at least its cheapest
	// option that holds its pods so far): the pods not yet placed are
	// reported unschedulable with ErrStopped. It is for a search that
	// only wants a plan cheaper than one it has; Karpenter never stops.
	StopAbovePrice float64
	// DefaultSpread, when set, gives the pods that state no spread
	// constraint kube-scheduler's default ones (nil: none, Karpenter's
	// default).
	DefaultSpread *DefaultSpread
	// UnsupportedProvisioners are CSI drivers (or storage-class
	// provisioners) the cloud provider cannot attach to its nodes, and
	// UnsupportedTopologyKeys node labels its nodes never carry: a pod
	// whose claim needs such a driver, or whose unbound claim's storage
	// class allows topologies by such a key, is unschedulable. Karpenter
	// leaves both to the cloud provider and its core default is none, as
	// here; AWS sets none either.
	UnsupportedProvisioners []string
	UnsupportedTopologyKeys []string
	// DRA is Karpenter with --ignore-dra-requests=false: a DaemonSet pod
	// that claims devices through ResourceClaims counts in the overhead of
	// the nodes it would run on. By default (Karpenter's) such DaemonSet
	// pods are left out of the overhead. Pending pods that claim devices
	// are refused either way: with DRA, package dra translates their
	// claims before they reach scheduling.
	DRA bool
	// Devices allocates the pods' DRA claims that package dra does not
	// turn into extended resources (it is the dra.Translator of the
	// cluster's objects); nil when there are none.
	Devices DeviceAllocator
}

// Equal reports whether two option sets ask for the same solve (a cache
// keyed by them may reuse one). DefaultSpread and Devices are compared by
// identity.
func (o Options) Equal(p Options) bool {
	return o.MaxInstanceTypes == p.MaxInstanceTypes && o.IgnorePreferences == p.IgnorePreferences &&
		o.MinValuesBestEffort == p.MinValuesBestEffort && o.ReservedFallback == p.ReservedFallback &&
		o.Packing == p.Packing && o.StopAbovePrice == p.StopAbovePrice && o.DefaultSpread == p.DefaultSpread &&
		slices.Equal(o.UnsupportedProvisioners, p.UnsupportedProvisioners) &&
		slices.Equal(o.UnsupportedTopologyKeys, p.UnsupportedTopologyKeys) && o.DRA == p.DRA && o.Devices == p.Devices &&
		maps.Equal(o.ReservationCredit, p.ReservationCredit)
}

func (o Options) maxInstanceTypes() int {
	if o.MaxInstanceTypes > 0 {
		return o.MaxInstanceTypes
	}
	return MaxInstanceTypes
}
