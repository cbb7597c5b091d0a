// Package clustergen generates random provisioning clusters, seeded, as the
// Kubernetes objects both Karpenter and karpsim read: pending and bound
// Pods, DaemonSets, Karpenter v1 NodePools and NodeClaims, EC2NodeClasses,
// Nodes, PersistentVolumes with their claims and StorageClasses, and the
// instance-type catalog the cluster's cloud sells, in karpsim's JSON catalog
// format (which karpsim reads with --catalog and the differential harness
// turns into Karpenter's cloudprovider.InstanceTypes).
//
// A cluster has 1–500 pending pods from one to six workloads, each workload
// one request shape, with node selectors, required and preferred node
// affinity, zone and hostname topology spread (DoNotSchedule and
// ScheduleAnyway), pod affinity and anti-affinity to itself and to another
// workload, tolerations of tainted NodePools and zonal volumes; 1–3
// NodePools with weights, limits and minValues; existing nodes running bound
// pods and in-flight NodeClaims that have no node yet; DaemonSets; and
// reserved (capacity-reservation) offerings on some types.
//
// The catalog is a random sample of 12–40 types of karpsim's embedded EC2
// model (us-east-1, zones a, b and c), on-demand and spot, with no GPU,
// accelerator or bare-metal type, plus a reservation on up to two types.
// The same catalog is handed to both sides, so what is compared is how
// each schedules, not how each models EC2.
//
// Left out, because one side cannot read it or it is not part of a single
// provisioning decision:
//   - workload controllers (Deployments, ReplicaSets, StatefulSets, Jobs):
//     Karpenter's provisioner sees only the pods their controllers create, so
//     the pods are generated directly, named WORKLOAD-N;
//   - pods that claim DRA devices (off by default upstream:
//     --ignore-dra-requests), CapacityBuffers and NodeOverlays (feature gates
//     off by default), static NodePools;
//   - nodes and claims being deleted (their pods come from the disruption
//     path: Karpenter reads them through a client field index the fake client
//     and cluster state do not keep in step);
//   - unbound claims whose StorageClass restricts topology and CSI attach
//     limits (both sides model them, but they need the CSINode objects and
//     drivers of a real cluster to matter);
//   - kube-scheduler's default spread constraints (--scheduler-config);
//   - the AWS provider's own instance-type computation (overhead, ENI pod
//     counts): the catalog comes from karpsim's model of it, and both sides
//     read the same numbers.
package clustergen

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/awslabs/operatorpkg/status"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpsim/karpsim/instancetypes"
)

// Namespace is the namespace of every namespaced object.
const Namespace = "default"

// Zones are the zones of the catalog's offerings.
var Zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// Cluster is one generated cluster. Objects are Karpenter's and Kubernetes'
// own types; Pending are the pods provisioning decides on (unbound, marked
// unschedulable by kube-scheduler), Bound the pods running on Nodes.
type Cluster struct {
	Seed           uint64
	NodeClasses    []*awsv1.EC2NodeClass
	NodePools      []*karpv1.NodePool
	Nodes          []*corev1.Node
	NodeClaims     []*karpv1.NodeClaim
	Pending        []*corev1.Pod
	Bound          []*corev1.Pod
	DaemonSets     []*appsv1.DaemonSet
	StorageClasses []*storagev1.StorageClass
	PVs            []*corev1.PersistentVolume
	PVCs           []*corev1.PersistentVolumeClaim
	// Catalog is the instance types in karpsim's JSON catalog format.
	Catalog []byte
	// Types is Catalog read back (instancetypes.ReadJSON).
	Types instancetypes.Catalog
}

// Objects are the cluster's objects in the order a dump of it lists them:
// the configuration, nodes and claims, DaemonSets, volumes, bound pods,
// then pending pods. They are the cluster's own, not copies.
func (c *Cluster) Objects() []client.Object {
	var objs []client.Object
	objs = appendObjects(objs, c.NodeClasses)
	objs = appendObjects(objs, c.NodePools)
	objs = appendObjects(objs, c.Nodes)
	objs = appendObjects(objs, c.NodeClaims)
	objs = appendObjects(objs, c.DaemonSets)
	objs = appendObjects(objs, c.StorageClasses)
	objs = appendObjects(objs, c.PVs)
	objs = appendObjects(objs, c.PVCs)
	objs = appendObjects(objs, c.Bound)
	return appendObjects(objs, c.Pending)
}

func appendObjects[T client.Object](objs []client.Object, in []T) []client.Object {
	for _, o := range in {
		objs = append(objs, o)
	}
	return objs
}

// Features summarizes what a cluster uses, for divergence reports.
func (c *Cluster) Features() string {
	var f []string
	add := func(on bool, s string) {
		if on {
			f = append(f, s)
		}
	}
	var zoneSpread, hostSpread, anti, aff, prefNode, tol, vol bool
	for _, p := range c.Pending {
		for _, t := range p.Spec.TopologySpreadConstraints {
			zoneSpread = zoneSpread || t.TopologyKey == corev1.LabelTopologyZone
			hostSpread = hostSpread || t.TopologyKey == corev1.LabelHostname
		}
		if a := p.Spec.Affinity; a != nil {
			anti = anti || a.PodAntiAffinity != nil
			aff = aff || a.PodAffinity != nil
			prefNode = prefNode || (a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
		}
		tol = tol || len(p.Spec.Tolerations) > 0
		vol = vol || len(p.Spec.Volumes) > 0
	}
	reserved, full := false, false
	for _, it := range c.Types {
		for _, o := range it.Offerings {
			reserved = reserved || o.ReservationID != ""
			full = full || o.ReservationID != "" && o.ReservationCapacity == 0
		}
	}
	f = append(f, fmt.Sprintf("pods=%d pools=%d types=%d", len(c.Pending), len(c.NodePools), len(c.Types)))
	add(len(c.Nodes) > 0, fmt.Sprintf("nodes=%d", len(c.Nodes)))
	add(len(c.NodeClaims) > len(c.Nodes), fmt.Sprintf("inflight=%d", len(c.NodeClaims)-len(c.Nodes)))
	add(len(c.DaemonSets) > 0, fmt.Sprintf("daemonsets=%d", len(c.DaemonSets)))
	add(zoneSpread, "zone-spread")
	add(hostSpread, "hostname-spread")
	add(anti, "anti-affinity")
	add(aff, "pod-affinity")
	add(prefNode, "preferred-node-affinity")
	add(tol, "tolerations")
	add(vol, "volumes")
	add(reserved, "reserved")
	add(full, "full-reservation")
	return strings.Join(f, " ")
}

// catalogOf is karpsim's embedded EC2 model for us-east-1, built once.
var catalogOf = func() func() (instancetypes.Catalog, error) {
	var c instancetypes.Catalog
	var err error
	done := false
	return func() (instancetypes.Catalog, error) {
		if !done {
			c, err = instancetypes.NewAWS(instancetypes.EmbeddedFacts(), instancetypes.AWSOptions{Region: "us-east-1", Zones: Zones})
			done = true
		}
		return c, err
	}
}()

// families are the instance families the catalog samples from: general,
// compute and memory optimized, burstable, on Intel, AMD and Graviton.
var families = []string{"m5", "m6i", "m6a", "m7g", "c5", "c6i", "c7g", "r5", "r6i", "r7g", "t3", "t4g", "m5a", "c6a"}

// jsonType mirrors an entry of karpsim's JSON catalog format, so that the
// sample can be edited (reservations added) before karpsim reads it.
type jsonType struct {
	Name         string              `json:"name"`
	Labels       map[string]string   `json:"labels"`
	AbsentLabels []string            `json:"absentLabels,omitempty"`
	LabelChoices map[string][]string `json:"labelChoices,omitempty"`
	Capacity     map[string]string   `json:"capacity"`
	Overhead     json.RawMessage     `json:"overhead"`
	Allocatable  map[string]string   `json:"allocatable,omitempty"`
	Offerings    []jsonOffering      `json:"offerings"`
}

type jsonOffering struct {
	Zone                string  `json:"zone"`
	CapacityType        string  `json:"capacityType"`
	Price               float64 `json:"price"`
	Available           bool    `json:"available"`
	ReservationID       string  `json:"reservationID,omitempty"`
	ReservationCapacity int     `json:"reservationCapacity,omitempty"`
	ReservationType     string  `json:"reservationType,omitempty"`
}

type gen struct {
	r *rand.Rand
	c *Cluster
	// types are the catalog's types, cheapest first.
	types instancetypes.Catalog
	pools []*karpv1.NodePool
	// workloads are the app labels of the workloads made so far.
	workloads []string
}

// Generate returns the cluster of seed. The same seed gives the same
// cluster.
func Generate(seed uint64) (*Cluster, error) {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x6b61727073696d)), c: &Cluster{Seed: seed}}
	if err := g.catalog(); err != nil {
		return nil, err
	}
	g.nodePools()
	g.daemonSets()
	g.existing()
	g.pending()
	if err := g.fullReservation(); err != nil {
		return nil, err
	}
	return g.c, nil
}

// fullReservation leaves, on some clusters with reservations, the first
// reservation with no unit left while it stays available, as the AWS
// provider v1.15.0 reports a full reservation. It draws last, so that the
// rest of every cluster is what the seed gave before it was added.
func (g *gen) fullReservation() error {
	if !g.chance(0.3) {
		return nil
	}
	var entries []jsonType
	if err := json.Unmarshal(g.c.Catalog, &entries); err != nil {
		return err
	}
	found := false
	for i := range entries {
		for j := range entries[i].Offerings {
			if o := &entries[i].Offerings[j]; o.ReservationID != "" && !found {
				o.ReservationCapacity, found = 0, true
			}
		}
	}
	if !found {
		return nil
	}
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	types, err := instancetypes.ReadJSON(bytes.NewReader(data), "catalog.json")
	if err != nil {
		return err
	}
	g.c.Catalog, g.c.Types = data, types
	return nil
}

func (g *gen) intn(lo, hi int) int   { return lo + g.r.IntN(hi-lo+1) }
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }
func pick[T any](g *gen, xs []T) T   { return xs[g.r.IntN(len(xs))] }

// catalog samples the instance types.
func (g *gen) catalog() error {
	all, err := catalogOf()
	if err != nil {
		return err
	}
	var candidates instancetypes.Catalog
	fams := slices.Clone(families)
	g.r.Shuffle(len(fams), func(i, j int) { fams[i], fams[j] = fams[j], fams[i] })
	fams = fams[:g.intn(2, 6)]
	for _, it := range all {
		fam, _, _ := strings.Cut(it.Name, ".")
		if slices.Contains(fams, fam) && !strings.Contains(it.Name, "metal") && it.Capacity.Get(corev1.ResourceCPU) <= 64_000 {
			candidates = append(candidates, it)
		}
	}
	g.r.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	candidates = candidates[:min(len(candidates), g.intn(12, 40))]
	var buf bytes.Buffer
	if err := instancetypes.WriteJSON(&buf, candidates); err != nil {
		return err
	}
	var entries []jsonType
	if err := json.Unmarshal(buf.Bytes(), &entries); err != nil {
		return err
	}
	// Reservations: on up to two types, in one zone each.
	if g.chance(0.3) {
		for i, n := 0, g.intn(1, 2); i < n; i++ {
			e := &entries[g.r.IntN(len(entries))]
			zone := pick(g, Zones)
			var od float64
			for _, o := range e.Offerings {
				if o.Zone == zone && o.CapacityType == karpv1.CapacityTypeOnDemand {
					od = o.Price
				}
			}
			if od == 0 || slices.ContainsFunc(e.Offerings, func(o jsonOffering) bool { return o.ReservationID != "" }) {
				continue
			}
			e.Offerings = append(e.Offerings, jsonOffering{Zone: zone, CapacityType: karpv1.CapacityTypeReserved,
				Price: od / 1000, Available: true, ReservationID: fmt.Sprintf("cr-%017x", g.r.Uint64()>>4),
				ReservationCapacity: g.intn(1, 4), ReservationType: "default"})
		}
	}
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	types, err := instancetypes.ReadJSON(bytes.NewReader(data), "catalog.json")
	if err != nil {
		return err
	}
	g.c.Catalog, g.c.Types = data, types
	g.types = slices.Clone(types)
	slices.SortFunc(g.types, func(a, b *instancetypes.InstanceType) int {
		return cmp.Or(cmp.Compare(a.Capacity.Get(corev1.ResourceCPU), b.Capacity.Get(corev1.ResourceCPU)),
			cmp.Compare(a.Capacity.Get(corev1.ResourceMemory), b.Capacity.Get(corev1.ResourceMemory)), cmp.Compare(a.Name, b.Name))
	})
	return nil
}

func (g *gen) label(it *instancetypes.InstanceType, key string) string {
	r, ok := it.Requirements.Lookup(key)
	if !ok || r.Operator() != corev1.NodeSelectorOpIn || r.Len() != 1 {
		return ""
	}
	return r.Values()[0]
}

// labelValues are the distinct values of a label across the catalog.
func (g *gen) labelValues(key string) []string {
	var out []string
	for _, it := range g.c.Types {
		if v := g.label(it, key); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

func (g *gen) nodePools() {
	nc := &awsv1.EC2NodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.k8s.aws/v1", Kind: "EC2NodeClass"},
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: awsv1.EC2NodeClassSpec{
			AMISelectorTerms:           []awsv1.AMISelectorTerm{{Alias: "al2023@latest"}},
			Role:                       "KarpenterNodeRole-sim",
			SubnetSelectorTerms:        []awsv1.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "sim"}}},
			SecurityGroupSelectorTerms: []awsv1.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "sim"}}},
		},
	}
	g.c.NodeClasses = append(g.c.NodeClasses, nc)
	n := g.intn(1, 3)
	for i := 0; i < n; i++ {
		np := &karpv1.NodePool{
			TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodePool"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pool-%c", 'a'+i), UID: types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1))},
			Spec: karpv1.NodePoolSpec{
				Template: karpv1.NodeClaimTemplate{
					ObjectMeta: karpv1.ObjectMeta{Labels: map[string]string{"pool": fmt.Sprintf("pool-%c", 'a'+i)}},
					Spec: karpv1.NodeClaimTemplateSpec{
						NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
						ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
					},
				},
				Disruption: karpv1.Disruption{ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
					ConsolidateAfter: karpv1.MustParseNillableDuration("0s"), Budgets: []karpv1.Budget{{Nodes: "10%"}}},
			},
		}
		if g.chance(0.6) {
			np.Spec.Weight = ptr(int32(g.intn(1, 100)))
		}
		reqs := &np.Spec.Template.Spec.Requirements
		cts := pick(g, [][]string{{"on-demand"}, {"spot", "on-demand"}, {"spot"}, {"on-demand", "reserved"}, {"spot", "on-demand", "reserved"}})
		*reqs = append(*reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: cts})
		if g.chance(0.4) {
			archs := g.labelValues(corev1.LabelArchStable)
			*reqs = append(*reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{pick(g, archs)}})
		}
		if g.chance(0.3) {
			zones := slices.Clone(Zones)
			g.r.Shuffle(len(zones), func(i, j int) { zones[i], zones[j] = zones[j], zones[i] })
			zones = zones[:g.intn(1, 3)]
			slices.Sort(zones)
			*reqs = append(*reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: zones})
		}
		if g.chance(0.3) {
			fams := g.labelValues("karpenter.k8s.aws/instance-family")
			req := karpv1.NodeSelectorRequirementWithMinValues{Key: "karpenter.k8s.aws/instance-family", Operator: corev1.NodeSelectorOpIn, Values: fams}
			if g.chance(0.3) {
				req = karpv1.NodeSelectorRequirementWithMinValues{Key: "karpenter.k8s.aws/instance-family", Operator: corev1.NodeSelectorOpNotIn, Values: []string{pick(g, fams)}}
			}
			if g.chance(0.5) {
				// The API server refuses an In with fewer values than
				// minValues.
				most := 3
				if req.Operator == corev1.NodeSelectorOpIn {
					most = min(most, len(req.Values))
				}
				req.MinValues = ptr(g.intn(1, most))
			}
			*reqs = append(*reqs, req)
		}
		if g.chance(0.2) {
			*reqs = append(*reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpExists, MinValues: ptr(g.intn(2, 8))})
		}
		if g.chance(0.2) {
			*reqs = append(*reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: "karpenter.k8s.aws/instance-cpu", Operator: corev1.NodeSelectorOpGt, Values: []string{pick(g, []string{"1", "2", "3", "7"})}})
		}
		if i > 0 && g.chance(0.5) {
			np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: np.Name, Effect: corev1.TaintEffectNoSchedule}}
		}
		if g.chance(0.3) {
			np.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse(fmt.Sprint(g.intn(4, 200)))}
		}
		// Karpenter provisions only from Ready NodePools; karpsim reads no
		// readiness, so every generated NodePool is Ready.
		for _, t := range []string{karpv1.ConditionTypeValidationSucceeded, karpv1.ConditionTypeNodeClassReady, status.ConditionReady} {
			np.StatusConditions().SetTrue(t)
		}
		fixTimes(np.Status.Conditions)
		g.c.NodePools = append(g.c.NodePools, np)
	}
	g.pools = g.c.NodePools
}

func (g *gen) daemonSets() {
	for i, n := 0, g.intn(0, 2); i < n; i++ {
		labels := map[string]string{"daemon": fmt.Sprintf("ds-%d", i)}
		spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(pick(g, []string{"50m", "100m", "200m", "500m"})),
				corev1.ResourceMemory: resource.MustParse(pick(g, []string{"64Mi", "128Mi", "256Mi", "1Gi"}))}}}}}
		if g.chance(0.5) {
			spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		}
		if g.chance(0.2) {
			spec.NodeSelector = map[string]string{corev1.LabelArchStable: pick(g, g.labelValues(corev1.LabelArchStable))}
		}
		g.c.DaemonSets = append(g.c.DaemonSets, &appsv1.DaemonSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("ds-%d", i), Namespace: Namespace, UID: types.UID(fmt.Sprintf("00000000-0000-4000-9000-%012d", i+1))},
			Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}},
		})
	}
}

// existing makes nodes with their NodeClaims, and in-flight claims.
func (g *gen) existing() {
	if !g.chance(0.4) {
		return
	}
	nodes, inflight := g.intn(0, 3), g.intn(0, 2)
	for i := 0; i < nodes+inflight; i++ {
		np := pick(g, g.pools)
		it := g.compatibleType(np)
		if it == nil {
			continue
		}
		zone, ct := g.offering(it, np)
		if zone == "" {
			continue
		}
		name := fmt.Sprintf("node-%d", i)
		if i >= nodes {
			name = fmt.Sprintf("claim-%d", i)
		}
		providerID := fmt.Sprintf("aws:///%s/i-%017x", zone, seedID(g.c.Seed, i))
		labels := map[string]string{
			karpv1.NodePoolLabelKey:        np.Name,
			corev1.LabelInstanceTypeStable: it.Name,
			corev1.LabelTopologyZone:       zone,
			karpv1.CapacityTypeLabelKey:    ct,
			corev1.LabelArchStable:         g.label(it, corev1.LabelArchStable),
			corev1.LabelOSStable:           "linux",
			corev1.LabelHostname:           name,
		}
		for k, v := range np.Spec.Template.Labels {
			labels[k] = v
		}
		capacity, allocatable := it.Capacity.List(), it.Allocatable().List()
		claim := &karpv1.NodeClaim{
			TypeMeta: metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"},
			ObjectMeta: metav1.ObjectMeta{Name: np.Name + "-" + name, Labels: copyMap(labels),
				UID:               types.UID(fmt.Sprintf("00000000-0000-4000-a000-%012d", i+1)),
				CreationTimestamp: metav1.Unix(1_700_000_000, 0),
				Annotations:       map[string]string{}},
			Spec: karpv1.NodeClaimSpec{
				NodeClassRef: np.Spec.Template.Spec.NodeClassRef.DeepCopy(),
				Taints:       slices.Clone(np.Spec.Template.Spec.Taints),
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
					{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{it.Name}},
					{Key: karpv1.NodePoolLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{np.Name}},
				},
			},
			Status: karpv1.NodeClaimStatus{ProviderID: providerID, Capacity: capacity, Allocatable: allocatable},
		}
		claim.OwnerReferences = []metav1.OwnerReference{{APIVersion: "karpenter.sh/v1", Kind: "NodePool", Name: np.Name, UID: np.UID}}
		claim.StatusConditions().SetTrue(karpv1.ConditionTypeLaunched)
		fixTimes(claim.Status.Conditions)
		if i < nodes {
			claim.Status.NodeName = name
			claim.StatusConditions().SetTrue(karpv1.ConditionTypeRegistered)
			claim.StatusConditions().SetTrue(karpv1.ConditionTypeInitialized)
			fixTimes(claim.Status.Conditions)
			nodeLabels := copyMap(labels)
			nodeLabels[karpv1.NodeRegisteredLabelKey] = "true"
			nodeLabels[karpv1.NodeInitializedLabelKey] = "true"
			g.c.Nodes = append(g.c.Nodes, &corev1.Node{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: nodeLabels, UID: types.UID(fmt.Sprintf("00000000-0000-4000-b000-%012d", i+1)), CreationTimestamp: metav1.Unix(1_700_000_000, 0)},
				Spec:       corev1.NodeSpec{ProviderID: providerID, Taints: slices.Clone(np.Spec.Template.Spec.Taints)},
				Status: corev1.NodeStatus{Capacity: capacity, Allocatable: allocatable,
					Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
			})
		}
		g.c.NodeClaims = append(g.c.NodeClaims, claim)
	}
}

// compatibleType is a random type the NodePool allows by arch, family
// and cpu, or nil.
func (g *gen) compatibleType(np *karpv1.NodePool) *instancetypes.InstanceType {
	var ok []*instancetypes.InstanceType
	for _, it := range g.types {
		if allows(np, it, g) {
			ok = append(ok, it)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	return ok[g.r.IntN(min(len(ok), 8))]
}

func allows(np *karpv1.NodePool, it *instancetypes.InstanceType, g *gen) bool {
	for _, r := range np.Spec.Template.Spec.Requirements {
		v := g.label(it, r.Key)
		switch r.Key {
		case karpv1.CapacityTypeLabelKey, corev1.LabelTopologyZone:
			continue
		}
		switch r.Operator {
		case corev1.NodeSelectorOpIn:
			if !slices.Contains(r.Values, v) {
				return false
			}
		case corev1.NodeSelectorOpNotIn:
			if slices.Contains(r.Values, v) {
				return false
			}
		case corev1.NodeSelectorOpGt:
			var a, b int
			fmt.Sscan(v, &a)
			fmt.Sscan(r.Values[0], &b)
			if a <= b {
				return false
			}
		}
	}
	return true
}

// offering is the zone and capacity type of an available offering the
// NodePool allows; "" when none.
func (g *gen) offering(it *instancetypes.InstanceType, np *karpv1.NodePool) (string, string) {
	var zones, cts []string
	for _, r := range np.Spec.Template.Spec.Requirements {
		switch r.Key {
		case corev1.LabelTopologyZone:
			zones = r.Values
		case karpv1.CapacityTypeLabelKey:
			cts = r.Values
		}
	}
	var ok [][2]string
	for _, o := range it.Offerings {
		if o.Available && o.ReservationID == "" && (zones == nil || slices.Contains(zones, o.Zone)) && slices.Contains(cts, o.CapacityType) {
			ok = append(ok, [2]string{o.Zone, o.CapacityType})
		}
	}
	if len(ok) == 0 {
		return "", ""
	}
	o := pick(g, ok)
	return o[0], o[1]
}

// workload is one request shape and the constraints its pods share.
type workload struct {
	name string
	n    int
	spec corev1.PodSpec
	// zonalVolumes gives each pod a claim bound to a volume in a zone.
	zonalVolumes bool
}

func (g *gen) pending() {
	total := g.intn(1, 500)
	if g.chance(0.5) {
		total = g.intn(1, 60)
	}
	nw := g.intn(1, min(6, total))
	var ws []*workload
	left := total
	for i := 0; i < nw; i++ {
		n := left
		if i < nw-1 {
			n = g.intn(1, left-(nw-1-i))
		}
		left -= n
		ws = append(ws, g.workload(fmt.Sprintf("w%d", i), n))
	}
	for _, w := range ws {
		g.workloads = append(g.workloads, w.name)
	}
	for _, w := range ws {
		g.constrain(w)
	}
	for _, w := range ws {
		for k := 0; k < w.n; k++ {
			g.c.Pending = append(g.c.Pending, g.pod(w, k))
		}
	}
	g.bound(ws)
}

func (g *gen) workload(name string, n int) *workload {
	cpu := pick(g, []string{"50m", "100m", "250m", "500m", "750m", "1", "1500m", "2", "3", "4", "7", "15", "31", "100"})
	mem := pick(g, []string{"64Mi", "128Mi", "512Mi", "1Gi", "1500Mi", "2Gi", "4Gi", "8Gi", "15Gi", "30Gi", "60Gi", "200Gi", "2000Gi"})
	w := &workload{name: name, n: n, spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}}
	if g.chance(0.1) {
		w.spec.InitContainers = []corev1.Container{{Name: "init", Image: "init:1", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(pick(g, []string{"100m", "1", "3"}))}}}}
	}
	return w
}

// constrain adds the workload's scheduling constraints.
func (g *gen) constrain(w *workload) {
	s := &w.spec
	self := &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.name}}
	if g.chance(0.25) {
		s.NodeSelector = map[string]string{}
		switch g.r.IntN(4) {
		case 0:
			s.NodeSelector[corev1.LabelArchStable] = pick(g, g.labelValues(corev1.LabelArchStable))
		case 1:
			s.NodeSelector[karpv1.CapacityTypeLabelKey] = pick(g, []string{"spot", "on-demand"})
		case 2:
			s.NodeSelector[corev1.LabelTopologyZone] = pick(g, Zones)
		default:
			s.NodeSelector["pool"] = pick(g, g.pools).Name
		}
	}
	var aff corev1.Affinity
	if g.chance(0.2) {
		var req corev1.NodeSelectorRequirement
		switch g.r.IntN(3) {
		case 0:
			zones := slices.Clone(Zones)
			g.r.Shuffle(len(zones), func(i, j int) { zones[i], zones[j] = zones[j], zones[i] })
			req = corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: sorted(zones[:g.intn(1, 2)])}
		case 1:
			req = corev1.NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-family", Operator: corev1.NodeSelectorOpNotIn, Values: []string{pick(g, g.labelValues("karpenter.k8s.aws/instance-family"))}}
		default:
			req = corev1.NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-memory", Operator: corev1.NodeSelectorOpGt, Values: []string{pick(g, []string{"2048", "8192", "16384"})}}
		}
		aff.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req}}}}}
	}
	if g.chance(0.2) {
		if aff.NodeAffinity == nil {
			aff.NodeAffinity = &corev1.NodeAffinity{}
		}
		for i, n := 0, g.intn(1, 2); i < n; i++ {
			var req corev1.NodeSelectorRequirement
			if g.chance(0.5) {
				req = corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{pick(g, Zones)}}
			} else {
				req = corev1.NodeSelectorRequirement{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{pick(g, []string{"spot", "on-demand"})}}
			}
			aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				corev1.PreferredSchedulingTerm{Weight: int32(g.intn(1, 100)), Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req}}})
		}
	}
	if g.chance(0.3) {
		key := pick(g, []string{corev1.LabelTopologyZone, corev1.LabelHostname})
		when := pick(g, []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway})
		s.TopologySpreadConstraints = append(s.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: int32(g.intn(1, 3)), TopologyKey: key, WhenUnsatisfiable: when, LabelSelector: self})
		if g.chance(0.2) {
			other := corev1.LabelHostname
			if key == corev1.LabelHostname {
				other = corev1.LabelTopologyZone
			}
			s.TopologySpreadConstraints = append(s.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: other, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: self})
		}
	}
	if g.chance(0.15) {
		key := pick(g, []string{corev1.LabelHostname, corev1.LabelHostname, corev1.LabelTopologyZone})
		term := corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: self}
		if g.chance(0.3) {
			term.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(g, g.workloads)}}
		}
		aff.PodAntiAffinity = &corev1.PodAntiAffinity{}
		if g.chance(0.6) {
			aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{term}
		} else {
			aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: int32(g.intn(1, 100)), PodAffinityTerm: term}}
		}
	}
	if g.chance(0.1) {
		key := pick(g, []string{corev1.LabelHostname, corev1.LabelTopologyZone})
		term := corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(g, g.workloads)}}}
		if g.chance(0.6) {
			aff.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}
		} else {
			aff.PodAffinity = &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: int32(g.intn(1, 100)), PodAffinityTerm: term}}}
		}
	}
	if aff.NodeAffinity != nil || aff.PodAffinity != nil || aff.PodAntiAffinity != nil {
		s.Affinity = &aff
	}
	for _, np := range g.pools {
		for _, t := range np.Spec.Template.Spec.Taints {
			if g.chance(0.5) {
				s.Tolerations = append(s.Tolerations, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect})
			}
		}
	}
	if g.chance(0.07) {
		w.zonalVolumes = true
	}
}

func (g *gen) pod(w *workload, k int) *corev1.Pod {
	name := fmt.Sprintf("%s-%d", w.name, k)
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: map[string]string{"app": w.name},
			UID:               types.UID(fmt.Sprintf("00000000-0000-4000-c000-%012x", seedID(g.c.Seed, len(g.c.Pending)+len(g.c.Bound))&0xffffffffffff)),
			CreationTimestamp: metav1.Unix(1_700_000_000+int64(len(g.c.Pending)), 0)},
		Spec: *w.spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
			Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}},
	}
	if w.zonalVolumes {
		g.zonalVolume(p)
	}
	return p
}

// zonalVolume gives the pod a claim bound to a volume in a random zone.
func (g *gen) zonalVolume(p *corev1.Pod) {
	if len(g.c.StorageClasses) == 0 {
		mode := storagev1.VolumeBindingWaitForFirstConsumer
		g.c.StorageClasses = append(g.c.StorageClasses, &storagev1.StorageClass{
			TypeMeta:          metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
			ObjectMeta:        metav1.ObjectMeta{Name: "gp3"},
			Provisioner:       "ebs.csi.aws.com",
			VolumeBindingMode: &mode,
		})
	}
	zone := pick(g, Zones)
	pvName, pvcName := "pv-"+p.Name, "data-"+p.Name
	g.c.PVs = append(g.c.PVs, &corev1.PersistentVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: pvName},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName:              "gp3",
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-" + p.Name}},
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: Namespace, Name: pvcName},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	})
	sc := "gp3"
	g.c.PVCs = append(g.c.PVCs, &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: pvcName, Namespace: Namespace, Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &sc, VolumeName: pvName,
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound},
	})
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: pvcName}}})
}

// bound places a few pods of the workloads on the existing nodes, without
// checking fit beyond requests (as a kubelet that admitted them would).
func (g *gen) bound(ws []*workload) {
	for _, n := range g.c.Nodes {
		free := n.Status.Allocatable.Cpu().MilliValue()
		freeMem := n.Status.Allocatable.Memory().Value()
		for i, k := 0, g.intn(0, 4); i < k; i++ {
			w := pick(g, ws)
			if w.zonalVolumes || len(w.spec.InitContainers) > 0 {
				continue
			}
			req := w.spec.Containers[0].Resources.Requests
			if req.Cpu().MilliValue() > free || req.Memory().Value() > freeMem || !tolerates(w.spec.Tolerations, n.Spec.Taints) {
				continue
			}
			free -= req.Cpu().MilliValue()
			freeMem -= req.Memory().Value()
			name := fmt.Sprintf("%s-bound-%d", w.name, len(g.c.Bound))
			p := &corev1.Pod{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: map[string]string{"app": w.name},
					UID:               types.UID(fmt.Sprintf("00000000-0000-4000-d000-%012x", seedID(g.c.Seed, 1000+len(g.c.Bound))&0xffffffffffff)),
					CreationTimestamp: metav1.Unix(1_600_000_000, 0)},
				Spec: *w.spec.DeepCopy(),
				Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
					{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
			}
			p.Spec.NodeName = n.Name
			g.c.Bound = append(g.c.Bound, p)
		}
	}
}

func tolerates(tols []corev1.Toleration, taints []corev1.Taint) bool {
	for _, t := range taints {
		if !slices.ContainsFunc(tols, func(tol corev1.Toleration) bool {
			return tol.Key == t.Key && tol.Value == t.Value && tol.Effect == t.Effect
		}) {
			return false
		}
	}
	return true
}

func seedID(seed uint64, i int) uint64 {
	x := seed*0x9e3779b97f4a7c15 + uint64(i)*0xbf58476d1ce4e5b9
	x ^= x >> 31
	return x & 0x0fffffffffffffff
}

func ptr[T any](v T) *T { return &v }

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// fixTimes sets the conditions' transition times, which SetTrue takes from
// the clock, to one fixed time, so that a seed gives the same objects.
func fixTimes(conds []status.Condition) {
	for i := range conds {
		conds[i].LastTransitionTime = metav1.Unix(1_700_000_000, 0)
	}
}
