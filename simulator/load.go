package simulator

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/clusterautoscaler"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// readSet reads the scenario's manifests, the files then the inline YAML,
// checked against each other; or the streams the caller read for it.
func readSet(sc Scenario, given []manifests.Stream, limits manifests.Limits) (*manifests.Set, error) {
	var inputs []manifests.Input
	if given == nil {
		for _, path := range sc.Manifests {
			inputs = append(inputs, manifests.Input{Path: path})
		}
		if sc.Inline != "" {
			given = []manifests.Stream{{Name: "inline", Data: []byte(sc.Inline)}}
		}
	}
	for _, st := range given {
		inputs = append(inputs, manifests.Input{Stream: st})
	}
	return manifests.LoadLimited(limits, inputs...)
}

// StateSet holds every object of a watcher's snapshot, read as the same
// objects in manifests are: none is left out. The objects are shared, not
// copied.
func StateSet(st cloud.ClusterState) *manifests.Set {
	return &manifests.Set{
		Pods: st.Pods, Nodes: st.Nodes, NodeClaims: st.NodeClaims, PodDisruptionBudgets: st.PDBs,
		NodePools: st.NodePools, EC2NodeClasses: st.EC2NodeClasses, AKSNodeClasses: st.AKSNodeClasses, DaemonSets: st.DaemonSets,
		PersistentVolumeClaims: st.PersistentVolumeClaims, PersistentVolumes: st.PersistentVolumes, StorageClasses: st.StorageClasses, CSINodes: st.CSINodes,
		NodeOverlays: st.NodeOverlays, CapacityBuffers: st.CapacityBuffers, PodTemplates: st.PodTemplates,
		Services: st.Services, Deployments: st.Deployments, ReplicaSets: st.ReplicaSets, StatefulSets: st.StatefulSets,
		DeviceClasses: st.DeviceClasses, ResourceClaims: st.ResourceClaims, ResourceClaimTemplates: st.ResourceClaimTemplates,
		ResourceSlices: st.ResourceSlices,
	}
}

func merge(dst, src *manifests.Set) {
	dst.NodePools = append(dst.NodePools, src.NodePools...)
	dst.NodeClaims = append(dst.NodeClaims, src.NodeClaims...)
	dst.EC2NodeClasses = append(dst.EC2NodeClasses, src.EC2NodeClasses...)
	dst.AKSNodeClasses = append(dst.AKSNodeClasses, src.AKSNodeClasses...)
	dst.NodeOverlays = append(dst.NodeOverlays, src.NodeOverlays...)
	dst.Services = append(dst.Services, src.Services...)
	if dst.SchedulerConfig == nil {
		dst.SchedulerConfig = src.SchedulerConfig
	}
	dst.Pods = append(dst.Pods, src.Pods...)
	dst.Deployments = append(dst.Deployments, src.Deployments...)
	dst.ReplicaSets = append(dst.ReplicaSets, src.ReplicaSets...)
	dst.StatefulSets = append(dst.StatefulSets, src.StatefulSets...)
	dst.Jobs = append(dst.Jobs, src.Jobs...)
	dst.DaemonSets = append(dst.DaemonSets, src.DaemonSets...)
	dst.PodDisruptionBudgets = append(dst.PodDisruptionBudgets, src.PodDisruptionBudgets...)
	dst.Nodes = append(dst.Nodes, src.Nodes...)
	dst.PersistentVolumes = append(dst.PersistentVolumes, src.PersistentVolumes...)
	dst.PersistentVolumeClaims = append(dst.PersistentVolumeClaims, src.PersistentVolumeClaims...)
	dst.StorageClasses = append(dst.StorageClasses, src.StorageClasses...)
	dst.PodTemplates = append(dst.PodTemplates, src.PodTemplates...)
	dst.CSINodes = append(dst.CSINodes, src.CSINodes...)
	dst.CapacityBuffers = append(dst.CapacityBuffers, src.CapacityBuffers...)
	dst.DeviceClasses = append(dst.DeviceClasses, src.DeviceClasses...)
	dst.ResourceClaims = append(dst.ResourceClaims, src.ResourceClaims...)
	dst.ResourceClaimTemplates = append(dst.ResourceClaimTemplates, src.ResourceClaimTemplates...)
	dst.ResourceSlices = append(dst.ResourceSlices, src.ResourceSlices...)
}

// load builds the starting cluster from the scenario's manifests.
func (s *sim) load() error {
	set, err := readSet(s.sc, s.cfg.Manifests, s.cfg.Limits)
	if err != nil {
		return err
	}
	if s.cfg.Cluster != nil {
		merge(set, StateSet(s.cfg.Cluster.Snapshot()))
	}
	snap, err := snapshot.FromSet(set, s.cfg.Snapshot)
	if err != nil {
		return err
	}
	s.overlays = set.NodeOverlays
	// kube-scheduler's default spread constraints bind the in-memory
	// kube-scheduler and, mirrored, Karpenter's provisioning and
	// consolidation, which all solve with these options (and with DRA
	// when the run models it).
	s.cfg.Consolidation.Scheduling = snap.SchedulingOptions(s.cfg.Consolidation.Scheduling)
	for _, w := range snap.Warnings {
		// NodePools are Karpenter's: a Cluster Autoscaler run does without.
		if s.cfg.Autoscaler == AutoscalerClusterAutoscaler && snap.DefaultNodePool && strings.HasPrefix(w, "no NodePool given") {
			continue
		}
		s.res.Warnings = append(s.res.Warnings, w)
	}
	s.cloud = provider.CloudAWS
	if s.cfg.Snapshot.Cloud == provider.CloudAzure || (len(set.AKSNodeClasses) > 0 && len(set.EC2NodeClasses) == 0) {
		s.cloud = provider.CloudAzure
	}
	if s.cfg.Autoscaler == AutoscalerClusterAutoscaler && (s.sc.ClusterAutoscaler == nil || len(s.sc.ClusterAutoscaler.NodeGroups) == 0) {
		groupType := clusterautoscaler.DefaultGroupInstanceType
		if s.cloud == provider.CloudAzure {
			groupType = azureDefaultGroupSize
		}
		s.res.Warnings = append(s.res.Warnings, fmt.Sprintf("no clusterAutoscaler.nodeGroups given: using the default node group %q (on-demand %s over every zone, min 0, max %d)",
			clusterautoscaler.DefaultGroupName, groupType, clusterautoscaler.DefaultGroupMax))
	}
	// The node classes the controller reads for the providers' stamps and
	// drift checks: the given ones, and the default cloud's default class
	// when the default NodePool is used or nothing names a class. Each
	// resolves an image (and, on Azure, a Kubernetes version): its
	// status's, else the provider's initial one.
	classes, aksClasses := set.EC2NodeClasses, set.AKSNodeClasses
	if snap.DefaultNodePool || (len(classes) == 0 && len(aksClasses) == 0) {
		def, err := manifests.Decode("default", snapshot.DefaultManifestsFor(cmp.Or(s.cfg.Snapshot.Cloud, provider.CloudAWS)))
		if err != nil {
			return err
		}
		classes = append(slices.Clone(classes), def.EC2NodeClasses...)
		aksClasses = append(slices.Clone(aksClasses), def.AKSNodeClasses...)
	}
	all := make([]provider.NodeClass, 0, len(classes)+len(aksClasses))
	for _, nc := range classes {
		all = append(all, nc)
	}
	for _, nc := range aksClasses {
		all = append(all, nc)
	}
	providers := s.cfg.Snapshot.Providers()
	for _, nc := range all {
		if _, dup := s.classes[nc.GetName()]; dup {
			continue
		}
		s.classes[nc.GetName()] = providers.Owner(nc).Replaced(nil, nc)
	}
	for _, p := range snap.NodePools {
		s.pools[p.NodePool.Name] = p.NodePool
		// The class's own catalog, not the pool's overlaid one: the
		// controller applies the NodeOverlays to it on every pass.
		class := p.NodePool.Spec.Template.Spec.NodeClassRef.Name
		if c, ok := snap.ClassCatalogs[class]; ok {
			s.catalogs[class] = c
		} else {
			s.catalogs[class] = p.InstanceTypes
		}
	}
	for _, d := range set.Deployments {
		s.deployments[objectKey(d.Namespace, d.Name)] = d.DeepCopy()
	}
	s.daemonSets, s.pdbs = snap.DaemonSets, snap.PDBs
	s.loadBuffers(set)
	if s.cfg.Snapshot.DRA {
		// FromSet checked the DRA objects: its translator built, and
		// knows the claims of the pods it translated.
		s.dra = snap.Translator
		for _, p := range set.Pods {
			if p.Spec.NodeName != "" {
				s.dra.Allocates(p)
			}
		}
	}
	if err := s.loadNodes(snap); err != nil {
		return err
	}
	s.loadNodeObjects(set.Nodes)
	return s.loadPods(snap)
}

// loadNodes imports the snapshot's nodes as initialized. Managed ones get a
// NodeClaim so that they can be disrupted, priced from their pool's catalog.
func (s *sim) loadNodes(snap *snapshot.Snapshot) error {
	for _, n := range snap.Nodes {
		sn := &simNode{Node: controller.Node{StateNode: controller.StateNode{Node: n, InitializedAt: s.start},
			Registered: true, Initialized: n.Initialized},
			pods: map[string]*simPod{}}
		inst := &sn.Instance
		inst.ID = "existing-" + n.Name
		inst.InstanceType = n.Labels[apis.LabelInstanceType]
		inst.Zone = n.Labels[apis.LabelTopologyZone]
		inst.CapacityType = n.Labels[apis.LabelCapacityType]
		inst.LaunchedAt = s.start
		if np := s.pools[n.NodePool]; np != nil {
			sn.PricePerHour = s.offeringPrice(np, inst.InstanceType, inst.Zone, inst.CapacityType)
			c := scheduling.NodeClaim{Name: n.Name, NodePool: np.Name}
			from := s.launchFrom(np, inst.InstanceType)
			sn.NodeClaim, sn.KubeletVersion = controller.NewNodeClaim(c, n.Labels, np, from, s.start)
			sn.NodeClaim.Status.ProviderID = provider.ProviderID(from.Provider, n.Name, inst.Zone, inst.ID)
		}
		if !n.Initialized {
			return fmt.Errorf("simulator: node %s is not initialized; in-flight NodeClaims at the start are not modelled", n.Name)
		}
		s.nodes[n.Name] = sn
		s.nodeOrder = nil
		s.lifeBegins(sn)
		s.lifeRegistered(n.Name)
		s.lifeReady(n.Name)
	}
	return nil
}

// providers are the run's providers, the default cloud the run's cluster's
// (which keeps the cache of offerings launches found without capacity).
func (s *sim) providers() provider.Providers {
	p := s.cfg.Snapshot.Providers()
	p.Default = s.cloud
	return p
}

// launchFrom is what a node of the NodePool and instance type launches
// from: the pool's node class and its provider.
func (s *sim) launchFrom(np *apis.NodePool, instanceType string) controller.Launch {
	ref := np.Spec.Template.Spec.NodeClassRef
	from := controller.Launch{NodeClass: s.NodeClass(ref.Name)}
	if p, ok := s.cfg.Snapshot.Providers().For(ref); ok {
		from.Provider = p
	}
	if it, ok := s.catalogs[ref.Name].Get(instanceType); ok {
		from.InstanceType = it
	}
	return from
}

func (s *sim) offeringPrice(np *apis.NodePool, instanceType, zone, capacityType string) float64 {
	it, _ := s.catalogs[np.Spec.Template.Spec.NodeClassRef.Name].Get(instanceType)
	price, _ := it.NodePrice(map[string]string{apis.LabelTopologyZone: zone, apis.LabelCapacityType: capacityType})
	return price
}

// loadPods imports bound and pending pods; pods expanded from Deployments
// are owned by them, for scale steps.
func (s *sim) loadPods(snap *snapshot.Snapshot) error {
	owners := map[string]string{}
	for key, d := range s.deployments {
		replicas := int32(1)
		if d.Spec.Replicas != nil {
			replicas = *d.Spec.Replicas
		}
		pods, err := s.expand(d, replicas)
		if err != nil {
			return err
		}
		for _, p := range pods {
			owners[p.key] = key
		}
	}
	for _, p := range snap.Bound {
		sp := &simPod{key: apis.PodKey(p), pod: p, node: p.Spec.NodeName, owner: owners[apis.PodKey(p)]}
		s.pods[sp.key] = sp
		if n := s.nodes[p.Spec.NodeName]; n != nil {
			n.pods[sp.key] = sp
			s.lifePod(n.Name(), sp, 1)
		}
	}
	for _, p := range snap.Pending {
		sp := &simPod{key: apis.PodKey(p), pod: p, owner: owners[apis.PodKey(p)]}
		s.pods[sp.key] = sp
		s.makePending(sp)
	}
	return nil
}
