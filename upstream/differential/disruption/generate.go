package disruption

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// Cluster is one random disruption situation: the objects both sides are
// given. Status fields are set here; the API server drops them on create
// and the harness writes them back with status updates.
type Cluster struct {
	Seed       uint64
	NodePools  []*karpv1.NodePool
	NodeClaims []*karpv1.NodeClaim
	Nodes      []*corev1.Node
	Pods       []*corev1.Pod
	PDBs       []*policyv1.PodDisruptionBudget
}

// Namespace holds every generated pod and PDB.
const Namespace = "default"

// nodeClassName is the EC2NodeClass every NodePool and NodeClaim names.
const nodeClassName = "default"

// workload is a ReplicaSet's pod shape; its pods are bound to nodes.
type workload struct {
	name          string
	cpu, memory   resource.Quantity
	doNotDisrupt  float64 // the chance that a pod carries karpenter.sh/do-not-disrupt
	pdb           *policyv1.PodDisruptionBudget
	replicaSetUID types.UID
}

// poolShape is what the generator decided about a NodePool: what a node
// of it may be.
type poolShape struct {
	pool          *karpv1.NodePool
	capacityTypes []string
	types         []machine
	zones         []string
}

// Generate makes the cluster of a seed. The same seed always gives the
// same cluster. at is the time the NodeClaims' conditions and pod events
// are stamped with: before the evaluation time, so that consolidateAfter
// (0s) has passed.
func Generate(seed uint64, at time.Time) *Cluster {
	r := rand.New(rand.NewPCG(seed, 0x6469737275707421))
	c := &Cluster{Seed: seed}
	var pools []poolShape
	for i := range 1 + r.IntN(3) {
		pools = append(pools, generatePool(r, i))
	}
	for _, p := range pools {
		c.NodePools = append(c.NodePools, p.pool)
	}
	workloads := generateWorkloads(r)
	for _, w := range workloads {
		if w.pdb != nil {
			c.PDBs = append(c.PDBs, w.pdb)
		}
	}
	// Most clusters have no empty node, so that the methods after
	// emptiness get their turn.
	emptyShare := 0.0
	if r.IntN(3) == 0 {
		emptyShare = 0.3
	}
	for i := range 1 + r.IntN(10) {
		p := pools[r.IntN(len(pools))]
		node, claim, m := generateNode(r, i, p, at)
		c.Nodes = append(c.Nodes, node)
		c.NodeClaims = append(c.NodeClaims, claim)
		c.Pods = append(c.Pods, fillNode(r, node, m, workloads, emptyShare, at)...)
	}
	for _, pdb := range c.PDBs {
		setPDBStatus(pdb, c.Pods)
	}
	limitPools(r, c)
	return c
}

// limitPools gives one NodePool in five a CPU limit a few cores above what
// its nodes have, so that some replacements do not fit under it.
func limitPools(r *rand.Rand, c *Cluster) {
	for _, np := range c.NodePools {
		if r.IntN(5) != 0 {
			continue
		}
		var cores int64
		for _, n := range c.Nodes {
			if n.Labels[karpv1.NodePoolLabelKey] == np.Name {
				cores += n.Status.Capacity.Cpu().Value()
			}
		}
		np.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: *resource.NewQuantity(cores+int64(r.IntN(9)), resource.DecimalSI)}
	}
}

// setPDBStatus writes the status kube-controller-manager's disruption
// controller would (no such controller runs beside the API server): every
// pod is ready, so maxUnavailable k allows min(k, pods) disruptions.
func setPDBStatus(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod) {
	var n int32
	for _, p := range pods {
		if p.Labels["app"] == pdb.Spec.Selector.MatchLabels["app"] {
			n++
		}
	}
	k := pdb.Spec.MaxUnavailable.IntVal
	pdb.Generation = 1
	pdb.Status = policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: 1,
		ExpectedPods:       n,
		CurrentHealthy:     n,
		DesiredHealthy:     max(0, n-k),
		DisruptionsAllowed: min(k, n),
	}
}

// capacityTypeChoices are the capacity-type requirements a NodePool may have.
var capacityTypeChoices = [][]string{
	{karpv1.CapacityTypeOnDemand},
	{karpv1.CapacityTypeOnDemand},
	{karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand},
	{karpv1.CapacityTypeSpot},
}

// budgetChoices are the disruption budgets a NodePool may have.
var budgetChoices = [][]karpv1.Budget{
	{{Nodes: "100%"}},
	{{Nodes: "100%"}},
	{{Nodes: "10%"}},
	{{Nodes: "50%"}},
	{{Nodes: "1"}},
	{{Nodes: "2"}},
	{{Nodes: "0"}},
	{{Nodes: "0", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonUnderutilized}}, {Nodes: "100%"}},
	{{Nodes: "0", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty}}, {Nodes: "1"}},
	{{Nodes: "0", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonDrifted}}, {Nodes: "100%"}},
}

func generatePool(r *rand.Rand, i int) poolShape {
	all := machines()
	shape := poolShape{capacityTypes: capacityTypeChoices[r.IntN(len(capacityTypeChoices))], types: all, zones: zones}
	reqs := []karpv1.NodeSelectorRequirementWithMinValues{
		{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: shape.capacityTypes},
	}
	if r.IntN(2) == 0 {
		perm := r.Perm(len(all))[:3+r.IntN(8)]
		slices.Sort(perm)
		shape.types = nil
		var names []string
		for _, k := range perm {
			shape.types = append(shape.types, all[k])
			names = append(names, all[k].name)
		}
		reqs = append(reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: names})
	}
	if r.IntN(5) == 0 {
		skip := r.IntN(len(zones))
		shape.zones = slices.Delete(slices.Clone(zones), skip, skip+1)
		reqs = append(reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: shape.zones})
	}
	policy := karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized
	if r.IntN(4) == 0 {
		policy = karpv1.ConsolidationPolicyWhenEmpty
	}
	zero := karpv1.MustParseNillableDuration("0s")
	np := &karpv1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodePool"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pool-%d", i)},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
				NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: nodeClassName},
				Requirements: reqs,
			}},
			Disruption: karpv1.Disruption{
				ConsolidationPolicy: policy,
				ConsolidateAfter:    zero,
				Budgets:             slices.Clone(budgetChoices[r.IntN(len(budgetChoices))]),
			},
		},
	}
	if r.IntN(3) == 0 {
		np.Spec.Weight = new(int32(1 + r.IntN(100)))
	}
	shape.pool = np
	return shape
}

func generateWorkloads(r *rand.Rand) []*workload {
	cpus := []string{"100m", "250m", "500m", "750m", "1", "1500m", "2", "3"}
	mems := []string{"128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "3Gi", "6Gi"}
	var out []*workload
	for i := range 1 + r.IntN(5) {
		w := &workload{
			name:          fmt.Sprintf("app-%d", i),
			cpu:           resource.MustParse(cpus[r.IntN(len(cpus))]),
			memory:        resource.MustParse(mems[r.IntN(len(mems))]),
			replicaSetUID: types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i+1)),
		}
		if r.IntN(5) == 0 {
			w.doNotDisrupt = 0.3
		}
		if r.IntN(4) == 0 {
			w.pdb = &policyv1.PodDisruptionBudget{
				TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
				ObjectMeta: metav1.ObjectMeta{Name: w.name, Namespace: Namespace},
				Spec: policyv1.PodDisruptionBudgetSpec{
					Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.name}},
					MaxUnavailable: new(intstr.FromInt32(int32(r.IntN(2)))),
				},
			}
		}
		out = append(out, w)
	}
	return out
}

// generateNode makes a node of the pool and its NodeClaim. One node in
// twelve is drifted: its capacity type, type or zone is one the pool no
// longer allows.
func generateNode(r *rand.Rand, i int, p poolShape, at time.Time) (*corev1.Node, *karpv1.NodeClaim, machine) {
	ct := p.capacityTypes[r.IntN(len(p.capacityTypes))]
	m := p.types[r.IntN(len(p.types))]
	zone := p.zones[r.IntN(len(p.zones))]
	if r.IntN(12) == 0 {
		switch r.IntN(3) {
		case 0:
			if len(p.capacityTypes) == 1 {
				ct = map[string]string{karpv1.CapacityTypeSpot: karpv1.CapacityTypeOnDemand, karpv1.CapacityTypeOnDemand: karpv1.CapacityTypeSpot}[ct]
			}
		case 1:
			all := machines()
			m = all[r.IntN(len(all))]
		default:
			zone = zones[r.IntN(len(zones))]
		}
	}
	name := fmt.Sprintf("node-%02d", i)
	providerID := fmt.Sprintf("aws:///%s/i-%017x", zone, 0xa000+i)
	labels := map[string]string{
		karpv1.NodePoolLabelKey:        p.pool.Name,
		karpv1.CapacityTypeLabelKey:    ct,
		corev1.LabelInstanceTypeStable: m.name,
		corev1.LabelTopologyZone:       zone,
		corev1.LabelArchStable:         karpv1.ArchitectureAmd64,
		corev1.LabelOSStable:           string(corev1.Linux),
		corev1.LabelHostname:           name,
	}
	var nodeAnnotations map[string]string
	nodeLabels := map[string]string{karpv1.NodeRegisteredLabelKey: "true", karpv1.NodeInitializedLabelKey: "true"}
	for k, v := range labels {
		nodeLabels[k] = v
	}
	if r.IntN(30) == 0 {
		nodeAnnotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
	}
	stamp := metav1.NewTime(at)
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: nodeLabels, Annotations: nodeAnnotations},
		Spec:       corev1.NodeSpec{ProviderID: providerID},
		Status: corev1.NodeStatus{
			Phase:       corev1.NodeRunning,
			Capacity:    m.capacity(),
			Allocatable: m.allocatable(),
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: stamp, LastTransitionTime: stamp,
			}},
		},
	}
	claimLabels := map[string]string{}
	for k, v := range labels {
		if k != corev1.LabelHostname {
			claimLabels[k] = v
		}
	}
	reqs := slices.Clone(p.pool.Spec.Template.Spec.Requirements)
	reqs = append(reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: karpv1.NodePoolLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{p.pool.Name}})
	claim := &karpv1.NodeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%02d", p.pool.Name, i), Labels: claimLabels},
		Spec: karpv1.NodeClaimSpec{
			NodeClassRef: p.pool.Spec.Template.Spec.NodeClassRef,
			Requirements: reqs,
		},
		Status: karpv1.NodeClaimStatus{
			NodeName:         name,
			ProviderID:       providerID,
			ImageID:          "ami-0123456789abcdef0",
			Capacity:         m.capacity(),
			Allocatable:      m.allocatable(),
			LastPodEventTime: stamp,
		},
	}
	for _, t := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized} {
		claim.Status.Conditions = append(claim.Status.Conditions, statusCondition(t, at))
	}
	return node, claim, m
}

// fillNode binds pods of random workloads to the node up to a random share
// of its allocatable: none (emptyShare of the nodes), a small share (under
// a third, for four in ten of the rest), or up to nearly all of it.
func fillNode(r *rand.Rand, node *corev1.Node, m machine, workloads []*workload, emptyShare float64, at time.Time) []*corev1.Pod {
	if r.Float64() < emptyShare {
		return nil
	}
	alloc := m.allocatable()
	share := 0.35 + 0.6*r.Float64()
	if r.IntN(5) < 2 {
		share = 0.05 + 0.3*r.Float64()
	}
	cpuRoom := int64(float64(alloc.Cpu().MilliValue()) * share)
	memRoom := int64(float64(alloc.Memory().Value()) * share)
	podRoom := alloc.Pods().Value()
	var pods []*corev1.Pod
	for tries := 0; tries < 40 && int64(len(pods)) < podRoom; tries++ {
		w := workloads[r.IntN(len(workloads))]
		if w.cpu.MilliValue() > cpuRoom || w.memory.Value() > memRoom {
			continue
		}
		cpuRoom -= w.cpu.MilliValue()
		memRoom -= w.memory.Value()
		pods = append(pods, makePod(r, fmt.Sprintf("%s-%s-%d", w.name, node.Name, len(pods)), node.Name, w, at))
	}
	if len(pods) == 0 {
		// A node meant to hold pods holds at least the smallest workload's
		// pod that fits it, so that small nodes are not all empty.
		var smallest *workload
		for _, w := range workloads {
			if w.cpu.Cmp(*alloc.Cpu()) <= 0 && w.memory.Cmp(*alloc.Memory()) <= 0 &&
				(smallest == nil || w.cpu.Cmp(smallest.cpu) < 0) {
				smallest = w
			}
		}
		if smallest != nil {
			pods = append(pods, makePod(r, fmt.Sprintf("%s-%s-0", smallest.name, node.Name), node.Name, smallest, at))
		}
	}
	return pods
}

func makePod(r *rand.Rand, name, nodeName string, w *workload, at time.Time) *corev1.Pod {
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: Namespace,
			Labels: map[string]string{"app": w.name},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: w.name + "-5d8f9c7b6", UID: w.replicaSetUID,
				Controller: new(true), BlockOwnerDeletion: new(true),
			}},
		},
		Spec: corev1.PodSpec{
			NodeName: nodeName,
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.example.com/" + w.name + ":1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: w.cpu, corev1.ResourceMemory: w.memory}},
			}},
		},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			StartTime:  new(metav1.NewTime(at)),
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)}},
		},
	}
	if w.doNotDisrupt > 0 && r.Float64() < w.doNotDisrupt {
		pod.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
	}
	return pod
}

func statusCondition(t string, at time.Time) status.Condition {
	return status.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t, LastTransitionTime: metav1.NewTime(at)}
}

// nodeClass is the EC2NodeClass the pools name. Karpenter's side never
// reads it (its fake cloud provider stands for the AWS one); karpsim reads
// it as the CLI does.
func nodeClass() *awsv1.EC2NodeClass {
	return &awsv1.EC2NodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.k8s.aws/v1", Kind: "EC2NodeClass"},
		ObjectMeta: metav1.ObjectMeta{Name: nodeClassName},
		Spec: awsv1.EC2NodeClassSpec{
			AMISelectorTerms:           []awsv1.AMISelectorTerm{{Alias: "al2023@latest"}},
			SubnetSelectorTerms:        []awsv1.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "differential"}}},
			SecurityGroupSelectorTerms: []awsv1.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "differential"}}},
			Role:                       "KarpenterNodeRole-differential",
		},
	}
}
