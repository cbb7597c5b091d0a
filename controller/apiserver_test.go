package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/controller/hosttest"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/kube"
	"github.com/karpsim/karpsim/kube/kubetest"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// spreadPools are NodePools of the shapes users write: one general pool
// with minValues and template metadata, a spot-only pool with a taint and
// a startup taint, and an on-demand GPU pool with the NVIDIA taint, all on
// one EC2NodeClass.
const spreadPools = `
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  weight: 10
  template:
    metadata:
      labels: {team: shop}
      annotations: {example.com/owner: shop}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 720h
      terminationGracePeriod: 48h
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r], minValues: 2}
      - {key: node.kubernetes.io/instance-type, operator: Exists, minValues: 5}
      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["4"]}
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
    budgets: [{nodes: "10%"}]
  limits: {cpu: "1000"}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: batch}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      taints: [{key: dedicated, value: batch, effect: NoSchedule}]
      startupTaints: [{key: example.com/agent-not-ready, effect: NoExecute}]
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
      - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b]}
      - {key: karpenter.k8s.aws/instance-family, operator: NotIn, values: [t3, t3a]}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: karpenter.k8s.aws/instance-gpu-manufacturer, operator: In, values: [nvidia]}
`

// spreadPods are pods for each pool: web pods spread over zones on the
// general pool, batch pods that tolerate the batch taint, GPU pods and a
// pod that wants a large instance family.
func spreadPods(now time.Time) []*corev1.Pod {
	pod := func(name string, cpu, mem string, mutate func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"app": strings.TrimRight(name, "-0123456789")},
			CreationTimestamp: metav1.NewTime(now)}}
		p.Spec.Containers = []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}
		if mutate != nil {
			mutate(p)
		}
		return p
	}
	var pods []*corev1.Pod
	for i := range 9 {
		pods = append(pods, pod(fmt.Sprintf("web-%d", i), "1", "2Gi", func(p *corev1.Pod) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: apis.LabelTopologyZone,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
		}))
	}
	for i := range 4 {
		pods = append(pods, pod(fmt.Sprintf("batch-%d", i), "2", "4Gi", func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{apis.LabelNodePool: "batch"}
			p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
		}))
	}
	for i := range 2 {
		pods = append(pods, pod(fmt.Sprintf("train-%d", i), "4", "16Gi", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests["nvidia.com/gpu"] = resource.MustParse("1")
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
			p.Spec.Tolerations = []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		}))
	}
	pods = append(pods, pod("cache-0", "3", "24Gi", func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpIn, Values: []string{"r", "m"}},
				{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.CapacityTypeOnDemand}},
			}}}}}}
	}))
	return pods
}

// TestWrittenObjectsPassKarpentersCRDs runs the loop in memory over three
// NodePools (minValues, taints and startup taints, spot and on-demand,
// GPU types) until every pod is bound, then creates what karpsim wrote on
// a real kube-apiserver holding Karpenter's own CRDs: the NodePools and
// EC2NodeClasses as karpsim reads them back (the CLI's defaults among
// them), each NodeClaim
// through kube.Writer (spec, then status), and each Node the host fake
// wrote, with its status. It also plans a spread of pod shapes on each
// pool and creates each plan's NodeClaims from controller.NewNodeClaim.
// Every create must be accepted, schema and CEL rules both.
func TestWrittenObjectsPassKarpentersCRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; not with -short")
	}
	s := kubetest.StartAPIServer(t)
	s.InstallCRDs(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	set, err := manifests.Decode("spread", []byte(spreadPools))
	require.NoError(t, err)
	w := &world{t: t, clock: cloud.NewManualClock(t0), cluster: &cloud.MemoryCluster{}}
	catalog := instancetypes.Default()
	w.cloud, err = cloud.NewMemory(cloud.MemoryConfig{Clock: w.clock, Catalog: catalog, Seed: 1})
	require.NoError(t, err)
	for _, np := range set.NodePools {
		require.NoError(t, w.cluster.Apply(np))
	}
	require.NoError(t, w.cluster.Apply(set.EC2NodeClasses[0]))
	for _, p := range spreadPods(t0) {
		require.NoError(t, w.cluster.Apply(p))
	}
	w.host = hosttest.New(w.cluster, hosttest.Config{Instances: w.cloud.Instances})
	w.runner, err = controller.NewRunner(controller.RunnerConfig{Watcher: w.cluster, Writer: w.cluster, Launcher: w.cloud,
		Clock: w.clock, Record: func(d controller.Decision) { w.log = append(w.log, d) }})
	require.NoError(t, err)
	t.Cleanup(w.runner.Close)
	w.run(3 * time.Minute)
	st := w.cluster.Snapshot()
	pools := map[string]int{}
	for _, c := range st.NodeClaims {
		pools[c.Labels[apis.LabelNodePool]]++
	}
	require.Len(t, pools, 3, "claims on the general, batch and gpu pools: %v; decisions %s", pools, w.kinds())
	for _, p := range st.Pods {
		require.NotEmpty(t, p.Spec.NodeName, "pod %s bound; decisions %s", p.Name, w.kinds())
	}

	var refused []string
	create := func(kind string, obj any) {
		if err := createObject(ctx, s, kind, obj); err != nil {
			refused = append(refused, err.Error())
		}
	}
	for _, np := range st.NodePools {
		create(apis.KindNodePool, np)
	}
	for _, np := range set.NodePools {
		np = np.DeepCopy()
		np.Name += "-as-read"
		create(apis.KindNodePool, np)
	}
	defaults, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	require.NoError(t, err)
	for _, np := range defaults.NodePools {
		create(apis.KindNodePool, np)
	}
	for i, nc := range append(st.EC2NodeClasses, defaults.EC2NodeClasses...) {
		nc = nc.DeepCopy()
		nc.Name += fmt.Sprintf("-%d", i)
		create(apis.KindEC2NodeClass, nc)
	}
	writer := kube.NewWriter(s.Admin, kube.WriterConfig{})
	for _, c := range st.NodeClaims {
		if err := writer.CreateNodeClaim(ctx, c); err != nil {
			refused = append(refused, err.Error())
			continue
		}
		if err := writer.UpdateNodeClaim(ctx, c); err != nil {
			refused = append(refused, err.Error())
		}
	}
	for _, n := range st.Nodes {
		create("Node", n)
	}

	// A spread of plans, each claim as NewNodeClaim writes it at launch,
	// created with server-side dry run: validated, stored nowhere.
	dry := kube.NewWriter(s.Admin, kube.WriterConfig{DryRun: true})
	claims := 0
	for _, np := range set.NodePools {
		np = np.DeepCopy()
		np.UID = "3f1e0c55-0d4b-4f6a-9a8e-6b8f7f6d2c10"
		for i, shape := range planShapes {
			res := scheduling.Solve(scheduling.Input{Pods: shape.pods(np.Name), NodePools: []scheduling.Pool{{NodePool: np, InstanceTypes: catalog}}})
			for j, claim := range res.NodeClaims {
				it, ok := catalog.Get(claim.InstanceType)
				require.True(t, ok)
				claim.Name = fmt.Sprintf("%s-%d-%d", np.Name, i, j)
				nc, _ := controller.NewNodeClaim(claim, claim.LaunchLabels(it, np), np, controller.Launch{Provider: &provider.AWS{}, NodeClass: set.EC2NodeClasses[0], InstanceType: it}, t0)
				nc.Status.ProviderID = "aws:///" + claim.Zone + "/i-0123456789abcdef0"
				claims++
				if err := dry.CreateNodeClaim(ctx, nc); err != nil {
					refused = append(refused, fmt.Sprintf("plan %s on %s: %v", shape.name, np.Name, err))
				}
			}
		}
	}
	// MinValuesPolicy BestEffort: a claim that falls short of minValues
	// launches all the same, its minValues relaxed to what it has.
	// Here the pods want one instance family of the general pool, which
	// asks for two categories and 50 types.
	short := set.NodePools[0].DeepCopy()
	for i := range short.Spec.Template.Spec.Requirements {
		if short.Spec.Template.Spec.Requirements[i].Key == apis.LabelInstanceType {
			short.Spec.Template.Spec.Requirements[i].MinValues = new(50)
		}
	}
	pods := planShapes[1].pods(short.Name)
	for _, p := range pods {
		p.Spec.NodeSelector["karpenter.k8s.aws/instance-family"] = "m5"
	}
	res := scheduling.Solve(scheduling.Input{Pods: pods, Options: scheduling.Options{MinValuesBestEffort: true},
		NodePools: []scheduling.Pool{{NodePool: short, InstanceTypes: catalog}}})
	require.NotEmpty(t, res.NodeClaims, "%+v", res.Unschedulable)
	for j, claim := range res.NodeClaims {
		require.Equal(t, map[string]int{"karpenter.k8s.aws/instance-category": 1, apis.LabelInstanceType: len(claim.InstanceTypeOptions)},
			claim.MinValuesRelaxed, "minValues lowered to what the m5 types give")
		it, ok := catalog.Get(claim.InstanceType)
		require.True(t, ok)
		claim.Name = fmt.Sprintf("best-effort-%d", j)
		nc, _ := controller.NewNodeClaim(claim, claim.LaunchLabels(it, short), short, controller.Launch{Provider: &provider.AWS{}, NodeClass: set.EC2NodeClasses[0], InstanceType: it}, t0)
		require.Equal(t, "true", nc.Annotations[apis.AnnotationMinValuesRelaxed])
		claims++
		if err := dry.CreateNodeClaim(ctx, nc); err != nil {
			refused = append(refused, fmt.Sprintf("best effort: %v", err))
		}
	}
	require.Greater(t, claims, 2*len(planShapes), "the plans make claims")
	require.Empty(t, refused, "the API server refused:\n%s", strings.Join(refused, "\n"))
}

// planShape is a group of identical pods for one pool.
type planShape struct {
	name          string
	n             int
	cpu, mem, gpu string
	antiAffinity  bool
}

var planShapes = []planShape{
	{name: "one small", n: 1, cpu: "250m", mem: "256Mi"},
	{name: "many medium", n: 20, cpu: "1", mem: "3Gi"},
	{name: "memory heavy", n: 3, cpu: "2", mem: "60Gi"},
	{name: "one per node", n: 4, cpu: "500m", mem: "1Gi", antiAffinity: true},
	{name: "gpu", n: 2, cpu: "4", mem: "16Gi", gpu: "1"},
}

// pods are the shape's pods, tolerating every pool's taints and selecting
// pool.
func (s planShape) pods(pool string) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range s.n {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "plans", Name: fmt.Sprintf("p-%d", i), Labels: map[string]string{"shape": s.name}}}
		req := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(s.cpu), corev1.ResourceMemory: resource.MustParse(s.mem)}
		if s.gpu != "" {
			req["nvidia.com/gpu"] = resource.MustParse(s.gpu)
		}
		p.Spec.Containers = []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: req}}}
		p.Spec.NodeSelector = map[string]string{apis.LabelNodePool: pool}
		p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		if s.antiAffinity {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: apis.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"shape": s.name}}}}}}
		}
		out = append(out, p)
	}
	return out
}

// resourceOf are the resources createObject writes.
var resourceOf = map[string]schema.GroupVersionResource{
	apis.KindNodePool:     {Group: "karpenter.sh", Version: "v1", Resource: "nodepools"},
	apis.KindEC2NodeClass: {Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"},
	"Node":                {Version: "v1", Resource: "nodes"},
}

// createObject creates obj, as JSON, as the kind, then sets its status; it
// returns what the API server refused.
func createObject(ctx context.Context, s *kubetest.APIServer, kind string, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &u.Object); err != nil {
		return err
	}
	gvr := resourceOf[kind]
	u.SetAPIVersion(gvr.GroupVersion().String())
	u.SetKind(kind)
	u.SetUID("")
	u.SetResourceVersion("")
	u.SetCreationTimestamp(metav1.Time{})
	status, hasStatus := u.Object["status"].(map[string]any)
	client := s.Admin.Dynamic.Resource(gvr)
	created, err := client.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create %s %s: %w", kind, u.GetName(), err)
	}
	if !hasStatus || len(status) == 0 {
		return nil
	}
	created.Object["status"] = status
	if _, err := client.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("set status of %s %s: %w", kind, u.GetName(), err)
	}
	return nil
}
