// Package cloud holds the seams between Karpenter's control loop and the
// world it acts on, together with in-memory implementations of each:
//
//   - Clock, the time: WallClock, and ManualClock for tests and simulations.
//   - Launcher, which creates and deletes instances: Memory is a cloud that
//     launches instantly as data, models registration and initialization
//     delays, insufficient capacity, spot interruptions and prices, and
//     records every call.
//   - ClusterWatcher, which reports the cluster as snapshots and changes, and
//     ClusterWriter, which takes the loop's changes to it: MemoryCluster is an
//     API server in memory that is both.
//
// Implement Launcher to plug in a cloud of your own (see the Launcher
// example: launch the first of a request's Overrides you have capacity for,
// report the others, fail with an InsufficientCapacityError when none has
// any), and ClusterWatcher to feed a cluster kept elsewhere (see the
// ClusterWatcher example). simulator.Config and controller.RunnerConfig take
// them; package kube implements the cluster seams over client-go.
package cloud

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/karpsim/karpsim/apis"
)

// Clock tells the time. The simulator's virtual clock (ManualClock)
// implements it; a live loop uses WallClock. The controller reads it and
// passes the time down, so the decision packages never see a Clock.
type Clock interface {
	Now() time.Time
}

// LaunchRequest is one NodeClaim to launch, with the offering chosen for it
// (Karpenter's cheapest available offering; see scheduling.NodeClaim).
type LaunchRequest struct {
	// NodeClaim is the claim's name, "<nodepool>-<n>".
	NodeClaim    string `json:"nodeClaim"`
	NodePool     string `json:"nodePool"`
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	CapacityType string `json:"capacityType"`
	// PricePerHour is the price the scheduler expected; the launcher's own
	// price (Instance.PricePerHour) is what is billed.
	PricePerHour float64 `json:"pricePerHour"`
	// Overrides are the offerings Karpenter's AWS provider offers EC2 in
	// one CreateFleet call for the claim (see controller's launch): the
	// offerings of at most instancetypes.MaxLaunchOptions of the claim's
	// instance types, all of one capacity type (reserved when the claim
	// launches into a reservation, else spot when it allows spot and spot
	// is offered, else on-demand), in zones the claim allows, available;
	// cheapest first. The first is InstanceType, Zone and CapacityType
	// above. A launcher that reads them chooses among them in one call as
	// the allocation strategy of the capacity type does (Memory: lowest
	// price on demand, price-capacity-optimized spot), passing over those
	// without capacity, and reports those it found without capacity
	// (Instance.Unavailable, or InsufficientCapacityError.Offerings when
	// none had any); one that does not launches the first. Empty means
	// that one offering.
	Overrides []Override `json:"overrides,omitempty"`
	// Prioritized says the offerings' prices came through a NodeOverlay:
	// Karpenter's AWS provider then asks CreateFleet for the prioritized
	// strategies (prioritized on demand, capacity-optimized-prioritized
	// spot), each override's priority its price here, so that the fleet
	// follows the overlaid prices rather than EC2's own.
	Prioritized bool `json:"prioritized,omitempty"`
}

// Override is one offering of a launch request.
type Override struct {
	InstanceType string  `json:"instanceType"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	PricePerHour float64 `json:"pricePerHour"`
}

// Offerings are the request's offerings in the order to try them: its
// Overrides, or its one offering when it has none.
func (r LaunchRequest) Offerings() []Override {
	if len(r.Overrides) > 0 {
		return r.Overrides
	}
	return []Override{{InstanceType: r.InstanceType, Zone: r.Zone, CapacityType: r.CapacityType, PricePerHour: r.PricePerHour}}
}

// Instance is a launched machine and when it becomes a usable node.
type Instance struct {
	// ID is the launcher's unique name for the instance.
	ID           string  `json:"id"`
	NodeClaim    string  `json:"nodeClaim"`
	InstanceType string  `json:"instanceType"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	PricePerHour float64 `json:"pricePerHour"`
	// LaunchedAt is when Create returned.
	LaunchedAt time.Time `json:"launchedAt"`
	// RegisteredAt is when the kubelet registers the node with the API
	// server; InitializedAt is when the node is ready, its startup taints
	// are gone and its resources are reported (Karpenter's Initialized).
	// The caller schedules its own events at these times.
	RegisteredAt  time.Time `json:"registeredAt"`
	InitializedAt time.Time `json:"initializedAt"`
	// Unavailable are the request's offerings tried before the one
	// launched that had no capacity, for the caller to mark unavailable.
	Unavailable []OfferingKey `json:"unavailable,omitempty"`
}

// Launcher creates and deletes instances: the part of Karpenter's
// CloudProvider the control loop calls.
type Launcher interface {
	// Create launches one instance for the request, from one of its
	// offerings, in one call. When no offering has capacity it fails with
	// an error wrapping *InsufficientCapacityError, whose offerings the
	// caller records for pricing.DefaultUnavailableTTL.
	Create(ctx context.Context, req LaunchRequest) (Instance, error)
	// Delete terminates the instance; an unknown ID fails with an error
	// wrapping ErrNotFound.
	Delete(ctx context.Context, id string) error
}

// ErrNotFound is wrapped by Delete's error for an instance the launcher does
// not know (never launched, or already deleted).
var ErrNotFound = errors.New("instance not found")

// InsufficientCapacityError says that one offering has no capacity now
// (EC2's InsufficientInstanceCapacity).
type InsufficientCapacityError struct {
	// InstanceType, Zone and CapacityType are the first offering refused.
	InstanceType, Zone, CapacityType string
	// Offerings are every offering of the request refused, the first
	// among them; empty from a launcher that tries only one.
	Offerings []OfferingKey
}

// Refused are the offerings the error reports without capacity: Offerings,
// or the one it names.
func (e *InsufficientCapacityError) Refused() []OfferingKey {
	if len(e.Offerings) > 0 {
		return e.Offerings
	}
	return []OfferingKey{{InstanceType: e.InstanceType, Zone: e.Zone, CapacityType: e.CapacityType}}
}

func (e *InsufficientCapacityError) Error() string {
	return fmt.Sprintf("insufficient capacity for %s %s in %s", e.CapacityType, e.InstanceType, e.Zone)
}

// IsInsufficientCapacity returns the insufficient-capacity error err wraps.
func IsInsufficientCapacity(err error) (*InsufficientCapacityError, bool) {
	var ice *InsufficientCapacityError
	ok := errors.As(err, &ice)
	return ice, ok
}

// ClusterState is the cluster as the API server holds it, every list sorted
// by namespace/name.
type ClusterState struct {
	Pods       []*corev1.Pod                   `json:"pods"`
	Nodes      []*corev1.Node                  `json:"nodes"`
	NodeClaims []*apis.NodeClaim               `json:"nodeClaims"`
	PDBs       []*policyv1.PodDisruptionBudget `json:"pdbs"`
	// NodePools, EC2NodeClasses and DaemonSets are the configuration a
	// live controller reads from the cluster; the simulator takes them
	// from its scenario instead.
	NodePools      []*apis.NodePool     `json:"nodePools,omitempty"`
	EC2NodeClasses []*apis.EC2NodeClass `json:"ec2NodeClasses,omitempty"`
	// AKSNodeClasses are the node classes of Karpenter's Azure provider.
	AKSNodeClasses []*apis.AKSNodeClass `json:"aksNodeClasses,omitempty"`
	DaemonSets     []*appsv1.DaemonSet  `json:"daemonSets,omitempty"`
	// PersistentVolumeClaims, PersistentVolumes and StorageClasses decide
	// where pods with volumes may run (a bound volume's zone, a class's
	// allowed topologies). A live watcher reads them; MemoryCluster holds
	// none.
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim `json:"persistentVolumeClaims,omitempty"`
	PersistentVolumes      []*corev1.PersistentVolume      `json:"persistentVolumes,omitempty"`
	StorageClasses         []*storagev1.StorageClass       `json:"storageClasses,omitempty"`
	// CSINodes give existing nodes' volume limits per CSI driver.
	CSINodes []*storagev1.CSINode `json:"csiNodes,omitempty"`
	// NodeOverlays change the instance types' prices and capacity;
	// CapacityBuffers keep spare capacity for the pods of their templates
	// (PodTemplates, or the workloads they scale).
	NodeOverlays    []*apis.NodeOverlay    `json:"nodeOverlays,omitempty"`
	CapacityBuffers []*apis.CapacityBuffer `json:"capacityBuffers,omitempty"`
	PodTemplates    []*corev1.PodTemplate  `json:"podTemplates,omitempty"`
	// Services, Deployments, ReplicaSets and StatefulSets give pods
	// kube-scheduler's default spread selectors; a workload's replicas
	// not yet made are pods its controller is about to make.
	Services     []*corev1.Service     `json:"services,omitempty"`
	Deployments  []*appsv1.Deployment  `json:"deployments,omitempty"`
	ReplicaSets  []*appsv1.ReplicaSet  `json:"replicaSets,omitempty"`
	StatefulSets []*appsv1.StatefulSet `json:"statefulSets,omitempty"`
	// DeviceClasses, ResourceClaims and ResourceClaimTemplates are what
	// pods claim devices through (DRA).
	DeviceClasses          []*resourcev1.DeviceClass           `json:"deviceClasses,omitempty"`
	ResourceClaims         []*resourcev1.ResourceClaim         `json:"resourceClaims,omitempty"`
	ResourceClaimTemplates []*resourcev1.ResourceClaimTemplate `json:"resourceClaimTemplates,omitempty"`
	// ResourceSlices are the devices DRA drivers publish: node-local,
	// zoned and cluster-wide.
	ResourceSlices []*resourcev1.ResourceSlice `json:"resourceSlices,omitempty"`
}

// ChangeType says what happened to an object, in the words of a Kubernetes
// watch.
type ChangeType string

const (
	Added    ChangeType = "ADDED"
	Modified ChangeType = "MODIFIED"
	Deleted  ChangeType = "DELETED"
)

// Change is one object added, modified or deleted. Kind is the object's
// kind, one of those ClusterState holds ("Pod", "Node", "NodeClaim",
// "PodDisruptionBudget", "NodePool", "EC2NodeClass", "DaemonSet",
// "Deployment", ...); Namespace is empty for cluster-scoped kinds.
type Change struct {
	Type            ChangeType
	Kind            string
	Namespace, Name string
}

// ClusterWatcher reports the cluster, as a snapshot or as changes. A live
// implementation lists and watches through informers; MemoryCluster serves
// a state the caller sets and changes.
type ClusterWatcher interface {
	// Snapshot returns the cluster now. The objects are copies the caller
	// owns.
	Snapshot() ClusterState
	// Watch calls fn with every change from now until ctx is done, in the
	// order the changes happened. fn may be called from any goroutine; it
	// must return quickly and must not call back into the watcher.
	Watch(ctx context.Context, fn func(Change))
}

// ClusterWriter makes the changes Karpenter makes through the API server.
// MemoryCluster implements it; a live implementation is a Kubernetes
// client.
type ClusterWriter interface {
	// CreateNodeClaim creates a NodeClaim.
	CreateNodeClaim(ctx context.Context, claim *apis.NodeClaim) error
	// UpdateNodeClaim replaces a NodeClaim's labels, annotations and status.
	UpdateNodeClaim(ctx context.Context, claim *apis.NodeClaim) error
	// UpdateNode replaces a node's labels, annotations and taints.
	UpdateNode(ctx context.Context, node *corev1.Node) error
	// DeleteNode drains a node — its pods are evicted, and their
	// controllers make them pending again — then deletes the node and its
	// NodeClaim (a NodeClaim without a node yet is deleted by name). It
	// returns how many pods were evicted. Terminating the instance is the
	// caller's (Launcher.Delete).
	DeleteNode(ctx context.Context, name string) (int, error)
}

// WallClock is the real time.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// ManualClock is a Clock that moves only when told to. Its zero value reads
// the zero time.
type ManualClock struct {
	t time.Time
}

// NewManualClock returns a clock reading t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{t: t} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time { return c.t }

// Set moves the clock to t; a t before the current time is ignored, so the
// clock never runs backwards.
func (c *ManualClock) Set(t time.Time) {
	if t.After(c.t) {
		c.t = t
	}
}

// Advance moves the clock forward by d (a negative d is ignored).
func (c *ManualClock) Advance(d time.Duration) {
	if d > 0 {
		c.t = c.t.Add(d)
	}
}
