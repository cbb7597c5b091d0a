// Package snapshot turns decoded manifests into what karpsim's decision
// packages take: the pods Karpenter would provision for, the existing and
// in-flight nodes with the pods bound to them, the NodePools with the
// instance types their EC2NodeClasses yield, and the DaemonSet pods every
// node carries. FromSet reads a manifests.Set (Snapshot.Input is then
// scheduling.Solve's input), ForDisruption gives consolidation.Evaluate's
// Cluster, and FromState reads a watched cluster's cloud.ClusterState
// instead of files.
//
// Workload controllers are expanded into the pods Kubernetes would create
// for them, less the given pods they already own, named deterministically
// where Kubernetes appends random suffixes:
//
//	Deployment d  → ReplicaSet d-<hash>, pods d-<hash>-0, d-<hash>-1, …
//	ReplicaSet r  → pods r-0, r-1, …
//	StatefulSet s → pods s-0 … s-(N-1), from spec.ordinals.start (as Kubernetes names them)
//	Job j         → pods j-0, j-1, …
//	DaemonSet ds  → one template pod named ds, in Snapshot.DaemonSets
//
// <hash> is an FNV-32a hash of the pod template spelled with the alphabet
// of Kubernetes' pod-template-hash label, which the pods carry; an index a
// given pod already uses is skipped. Every pod without a UID gets one
// derived from its namespace and name.
//
// FromSet is pure and deterministic: it reads only the Set it is given,
// never modifies it, and gives equal snapshots for equal Sets.
package snapshot

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/dra"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/scheduling"
)

// Options configure FromSet. The zero value models us-east-1 with zones a,
// b and c, as instancetypes.AWSOptions does.
type Options struct {
	// Region is the region of every catalog's offerings; default us-east-1
	// on AWS, eastus on Azure (unless Azure.Region says otherwise).
	Region string
	// Cloud is the cloud of karpsim's default NodePool, used when the Set
	// has none, and of nodes whose node class is unknown:
	// provider.CloudAWS (the default) or provider.CloudAzure. A NodePool
	// that names a node class is its class's cloud, by the group of its
	// nodeClassRef.
	Cloud string
	// Azure configures the Azure provider: its region (default Region),
	// the cluster's settings (network plugin, node resource group) and a
	// catalog in place of the embedded model.
	Azure provider.Azure
	// Zones are the zones offerings are made in; default Region + a, b, c.
	// An EC2NodeClass whose status lists subnets offers in their zones
	// instead.
	Zones []string
	// ZonalShifts are the zones (or zone IDs) an ARC zonal shift moves the
	// cluster away from, and Reservations the available instance counts of
	// the EC2NodeClasses' capacity reservations: see
	// instancetypes.AWSOptions. They shape the embedded EC2 model only.
	ZonalShifts  []string
	Reservations *instancetypes.ReservationAvailability
	// PlacementGroupStrategy is the strategy of the placement group that
	// EC2NodeClasses with a placementGroupSelector launch into, which
	// karpsim cannot look up (apis.PlacementStrategies; "" for unknown):
	// for those classes the types that cannot launch into such a group
	// are unavailable. Classes without a selector are not affected.
	PlacementGroupStrategy string
	// Catalog, when set, gives the instance types of an EC2NodeClass (nil
	// for the default class) instead of the embedded EC2 model: a catalog
	// read from JSON, a synthetic one, or one another tool computed.
	Catalog func(nodeClass *apis.EC2NodeClass) (instancetypes.Catalog, error)
	// Origin names, in errors, where objects that were not read from a
	// file came from (a watched cluster, say); default "<no file>".
	Origin string
	// MaxPods bounds the pods workload controllers are expanded to, so that
	// a manifest asking for billions of replicas is refused instead of
	// exhausting memory; 0 means DefaultMaxPods.
	MaxPods int
	// DRA models dynamic resource allocation as Karpenter does with
	// --ignore-dra-requests=false (package dra): GPU instance types offer
	// their devices, and pods' ResourceClaims become device requests.
	// Without it pods that claim devices are unschedulable, as Karpenter
	// ignores them by default.
	DRA bool
	// NodeClassCEL is the AWS provider's feature gate of that name: the
	// embedded model reads kubelet expressions (instancetypes.AWSOptions).
	NodeClassCEL bool
}

// DefaultMaxPods is the default bound on expanded pods: well beyond the
// largest clusters Karpenter runs, and within what a solve handles in
// seconds.
const DefaultMaxPods = 200_000

// CatalogFor returns the instance types of an EC2NodeClass (nil for the
// default class) as FromSet models them: from Options.Catalog when set,
// else from the embedded EC2 facts for the region and zones, with the
// cluster's NodeOverlays pricing the embedded types the price list lacks
// (karpsim applies NodeOverlays whenever they are given, as Karpenter with
// its NodeOverlay gate on).
func (o Options) CatalogFor(nc *apis.EC2NodeClass, overlays ...*apis.NodeOverlay) (instancetypes.Catalog, error) {
	if o.Catalog != nil {
		return o.Catalog(nc)
	}
	return instancetypes.NewAWS(instancetypes.EmbeddedFacts(), instancetypes.AWSOptions{
		Region: o.Region, Zones: o.Zones, NodeClass: nc, NodeOverlays: overlays, NodeOverlayGate: len(overlays) > 0,
		NodeClassCEL: o.NodeClassCEL, ZonalShifts: o.ZonalShifts, Reservations: o.Reservations,
		PlacementGroupStrategy: instancetypes.PlacementStrategyFor(nc, o.PlacementGroupStrategy)})
}

func (o Options) maxPods() int {
	if o.MaxPods > 0 {
		return o.MaxPods
	}
	return DefaultMaxPods
}

// Snapshot is a cluster as the decision packages see it. Every object in it
// is a copy, so changing it changes neither the Set nor another Snapshot;
// only the instance types of the catalogs, which are read-only, are shared.
type Snapshot struct {
	// Pending are the pods Karpenter would provision for, sorted by creation
	// time, then namespace/name: pods without a node, those expanded from
	// workload controllers, and the pods of nodes being deleted (which keep
	// their spec.nodeName). DaemonSet and mirror pods are never pending.
	Pending []*corev1.Pod
	// Buffers are the virtual pods of the Set's CapacityBuffers
	// (BufferPods), sorted by namespace/name: provisioning places them
	// after the pending pods, and no node ever runs them.
	Buffers []*corev1.Pod
	// Bound are the active pods bound to a node that stays, sorted by
	// namespace/name. Each is also in its node's Pods when that node is
	// known.
	Bound []*corev1.Pod
	// Nodes are the existing nodes and the in-flight NodeClaims that have no
	// node yet, sorted by name. Nodes being deleted are left out.
	Nodes []*scheduling.Node
	// NodePools are the NodePools new NodeClaims may come from, sorted by
	// name, each with the catalog of its EC2NodeClass. Static NodePools
	// (spec.replicas) and NodePools being deleted are left out, as Karpenter
	// does not provision from them.
	NodePools []scheduling.Pool
	// DaemonSets holds one pod per DaemonSet, sorted by namespace/name: the
	// pod its controller would run on every node it tolerates and selects.
	DaemonSets []*corev1.Pod
	// PDBs are the PodDisruptionBudgets, sorted by namespace/name.
	PDBs []*policyv1.PodDisruptionBudget
	// PersistentVolumeClaims, PersistentVolumes and StorageClasses are
	// those given, plus the claims of StatefulSet pods' volumeClaimTemplates
	// that were not; claims without a class have the default class.
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	StorageClasses         []*storagev1.StorageClass
	// Warnings say what FromSet worked around or left out, in the order
	// found; the Set's own Warnings are not repeated here.
	Warnings []string
	// ClassCatalogs are the catalogs of the node classes (EC2NodeClasses,
	// AKSNodeClasses) the NodePools use, by class name, before any NodeOverlay: what the cloud sells.
	// NodePools' InstanceTypes are these with the overlays applied.
	ClassCatalogs map[string]instancetypes.Catalog
	// DefaultSpread is kube-scheduler's default spread constraints when a
	// KubeSchedulerConfiguration was given, nil otherwise; Input passes it
	// to the solve.
	DefaultSpread *scheduling.DefaultSpread
	// DRA is set when the snapshot models dynamic resource allocation
	// (Options.DRA): its solves then count the DaemonSets that claim
	// devices (scheduling.Options.DRA).
	DRA bool
	// Translator is package dra's translator of the cluster's DRA objects
	// under DRA, nil otherwise; when it allocates (dra.Translator's
	// Allocating), SchedulingOptions hands it to the solves.
	Translator *dra.Translator
	// DeviceAllocations are the published devices (ResourceSlices) that no
	// node owns which the pending pods' claims were given before the solve
	// (dra.Translator.Allocated), by claim; nil without DRA.
	DeviceAllocations map[string][]string
	// DefaultNodePool is true when the Set had no NodePool and karpsim's
	// default one (the seed guide's "default" NodePool and EC2NodeClass)
	// was used in its place.
	DefaultNodePool bool
}

// Input returns the scheduling input for the snapshot's pending pods. The
// input shares the snapshot's slices and objects; Solve changes neither.
func (s *Snapshot) Input(o scheduling.Options) scheduling.Input {
	return scheduling.Input{
		Pods:                   s.pods(),
		Nodes:                  s.Nodes,
		NodePools:              s.NodePools,
		DaemonSets:             s.DaemonSets,
		PersistentVolumeClaims: s.PersistentVolumeClaims,
		PersistentVolumes:      s.PersistentVolumes,
		StorageClasses:         s.StorageClasses,
		Options:                s.SchedulingOptions(o),
	}
}

// pods are the pods provisioning places: the pending ones, then the
// buffers' virtual pods.
func (s *Snapshot) pods() []*corev1.Pod {
	if len(s.Buffers) == 0 {
		return s.Pending
	}
	return slices.Concat(s.Pending, s.Buffers)
}

// SchedulingOptions returns o with what the snapshot settles of a solve:
// its default spread constraints, unless o has its own, and DRA when the
// snapshot models it.
func (s *Snapshot) SchedulingOptions(o scheduling.Options) scheduling.Options {
	if o.DefaultSpread == nil {
		o.DefaultSpread = s.DefaultSpread
	}
	o.DRA = o.DRA || s.DRA
	if o.Devices == nil {
		o.Devices = allocator(s.Translator)
	}
	return o
}

// FromSet builds the snapshot of a Set. The stages run in this order
// because each needs the one before:
//
//  1. NodePools and their catalogs: nodes and NodeClaims without a status
//     take their resources from their instance type in these catalogs.
//  2. Nodes and NodeClaims, matched into one node each; nodes being deleted
//     are noted.
//  3. The pods given: bound to a known node, pending, or ignored; those of
//     nodes being deleted are pending again.
//  4. Workload controllers: each creates the replicas the given pods do not
//     already account for.
//  5. DaemonSets, then PodDisruptionBudgets.
//  6. Volume objects, with the claims StatefulSets would create.
//
// The error joins one *manifests.Error per problem, each naming the file,
// the object and the field, as manifests.Load's errors do.
func FromSet(set *manifests.Set, opts Options) (*Snapshot, error) {
	if set == nil {
		return nil, errors.New("snapshot: no manifests (nil Set)")
	}
	b, err := runStages(setObjects(set), opts)
	if err != nil {
		return nil, err
	}
	snap := b.finish()
	snap.Buffers = SetBufferPods(set, time.Time{})
	if opts.DRA {
		snap.DRA = true
		if err := manifests.JoinProblems(snap.applyDRA(set, opts.Origin)...); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// runStages runs FromSet's stages over the objects and returns the builder
// before finish, for FromSet, ForDisruption and FromState.
func runStages(in objects, opts Options) (*builder, error) {
	b := newBuilder(in, opts)
	b.addNodePools()
	b.addNodes()
	b.addPods()
	b.addWorkloads()
	b.addDaemonSets()
	b.addPDBs()
	b.volumeObjects()
	b.addDefaultSpread()
	if err := b.errs.Err(); err != nil {
		return nil, err
	}
	return b, nil
}

// builder is the state of one FromSet call.
type builder struct {
	in   objects
	opts Options
	snap *Snapshot
	errs manifests.Problems
	// catalogs are built once per node class name; "" is the catalog of
	// the default cloud's default class settings, for nodes of unknown
	// NodePools.
	catalogs map[string]instancetypes.Catalog
	// providers pick each NodePool's cloud by its nodeClassRef.
	providers provider.Providers
	// overlaid are the NodePools' catalogs with the NodeOverlays applied,
	// by NodePool name, once applyOverlays ran.
	overlaid map[string]instancetypes.Catalog
	// classes and pools are the Set's (or the default) objects by name.
	classes map[string]provider.NodeClass
	pools   map[string]*apis.NodePool
	// nodes are the target nodes by name; deleting are the names of nodes
	// being deleted, whose pods are pending again.
	nodes    map[string]*scheduling.Node
	deleting map[string]bool
	// claims are the NodeClaims of the nodes, by node name, deleting
	// nodes and in-flight claims included.
	claims map[string]*apis.NodeClaim
	// active are the copies of the given pods that still run or wait to,
	// which workload controllers count as existing replicas.
	active []*corev1.Pod
	// held are the pods of deleting nodes that a PDB keeps there: neither
	// pending nor bound, but still on their node for the disruption view.
	held []*corev1.Pod
	// csiNodes are the CSINodes by name, indexed on first use.
	csiNodes map[string]*storagev1.CSINode
}

// Providers returns the providers FromSet resolves NodePools with: AWS's
// catalogs from CatalogFor, Azure's from Azure in Azure.Region, else
// Region; the default cloud Cloud.
func (o Options) Providers() provider.Providers {
	az := o.Azure
	az.Region = cmp.Or(az.Region, o.Region)
	return provider.Providers{Default: o.Cloud, AWS: &provider.AWS{CatalogFor: o.CatalogFor}, Azure: &az}
}

func newBuilder(in objects, opts Options) *builder {
	return &builder{
		in:        in,
		opts:      opts,
		snap:      &Snapshot{},
		catalogs:  map[string]instancetypes.Catalog{},
		providers: opts.Providers(),
		classes:   map[string]provider.NodeClass{},
		pools:     map[string]*apis.NodePool{},
		nodes:     map[string]*scheduling.Node{},
		deleting:  map[string]bool{},
		claims:    map[string]*apis.NodeClaim{},
	}
}

func (b *builder) warn(msg string) { b.snap.Warnings = append(b.snap.Warnings, msg) }

// fail records a problem with an object given, in the format of
// manifests' errors: "file: Kind/namespace/name: field: message".
func (b *builder) fail(obj any, kind error, object, path, msg string) {
	src, ok := b.in.sourceOf(obj)
	if !ok {
		src = manifests.Source{File: cmp.Or(b.opts.Origin, "<no file>")}
	}
	b.errs.Add(&manifests.Error{Source: src, Object: object, Path: path, Message: msg, Kind: kind})
}

// finish sorts what was gathered into the snapshot.
func (b *builder) finish() *Snapshot {
	s := b.snap
	s.ClassCatalogs = map[string]instancetypes.Catalog{}
	for name, c := range b.catalogs {
		if c != nil && name != "" && !strings.HasPrefix(name, defaultClassKey) {
			s.ClassCatalogs[name] = c
		}
	}
	slices.SortFunc(s.Pending, func(a, c *corev1.Pod) int {
		if d := a.CreationTimestamp.Time.Compare(c.CreationTimestamp.Time); d != 0 {
			return d
		}
		return cmp.Compare(apis.PodKey(a), apis.PodKey(c))
	})
	slices.SortFunc(s.Bound, comparePods)
	slices.SortFunc(s.DaemonSets, comparePods)
	for _, n := range b.nodes {
		slices.SortFunc(n.Pods, comparePods)
		s.Nodes = append(s.Nodes, n)
	}
	slices.SortFunc(s.Nodes, func(a, c *scheduling.Node) int { return cmp.Compare(a.Name, c.Name) })
	slices.SortFunc(s.NodePools, func(a, c scheduling.Pool) int { return cmp.Compare(a.NodePool.Name, c.NodePool.Name) })
	slices.SortFunc(s.PDBs, func(a, c *policyv1.PodDisruptionBudget) int {
		return cmp.Compare(a.Namespace+"/"+a.Name, c.Namespace+"/"+c.Name)
	})
	return s
}

// addPDBs copies the PodDisruptionBudgets, namespace defaulted.
func (b *builder) addPDBs() {
	for _, pdb := range b.in.PodDisruptionBudgets {
		c := pdb.DeepCopy()
		c.Namespace = apis.NamespaceOf(c.Namespace)
		b.snap.PDBs = append(b.snap.PDBs, c)
	}
}

func comparePods(a, b *corev1.Pod) int { return apis.ComparePodKeys(a, b) }

// objectLabel names an object the way manifests' errors do.
func objectLabel(kind, namespace, name string) string {
	if namespace != "" {
		return kind + "/" + namespace + "/" + name
	}
	return kind + "/" + name
}
