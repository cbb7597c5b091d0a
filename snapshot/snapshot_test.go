package snapshot

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

const (
	nodeYAML = `apiVersion: v1
kind: Node
metadata:
  name: %s
  labels: %s
spec: %s
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
  allocatable: {cpu: 3920m, memory: 15Gi, pods: "110"}
  conditions: [{type: Ready, status: "%s"}]
`
	managedLabels = `{karpenter.sh/nodepool: general, karpenter.sh/initialized: "true", node.kubernetes.io/instance-type: m5.xlarge}`
)

func node(name, labels, spec, ready string) string {
	return replace(replace(replace(replace(nodeYAML, "%s", name), "%s", labels), "%s", spec), "%s", ready)
}

func TestBoundAndPendingPods(t *testing.T) {
	s := build(t, nodeClassYAML, nodePoolYAML,
		node("n1", managedLabels, "{}", "True"),
		replace(node("gone", managedLabels, "{}", "True"), "name: gone", "name: gone\n  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n  finalizers: [karpenter.sh/termination]"),
		podYAML("waiting", ""),
		podYAML("on-n1", "  nodeName: n1\n"),
		podYAML("on-unknown", "  nodeName: elsewhere\n"),
		podYAML("on-gone", "  nodeName: gone\n"),
		replace(podYAML("daemon-on-gone", "  nodeName: gone\n"), "name: daemon-on-gone}", "name: daemon-on-gone, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: d, uid: x}]}"),
		replace(podYAML("mirror", ""), "name: mirror}", "name: mirror, annotations: {kubernetes.io/config.mirror: abc}}"),
		replace(podYAML("daemon-pending", ""), "name: daemon-pending}", "name: daemon-pending, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: d, uid: x}]}"),
		replace(podYAML("deleted", ""), "name: deleted}", "name: deleted, deletionTimestamp: \"2026-01-01T00:00:00Z\", finalizers: [x]}"),
		podYAML("done", "status: {phase: Succeeded}\n"),
		podYAML("failed", "  nodeName: n1\nstatus: {phase: Failed}\n"),
		podYAML("gated", "  schedulingGates: [{name: example.com/quota}]\n"),
		podYAML("preempting", "status: {nominatedNodeName: n1}\n"),
	)
	assert.Equal(t, []string{"default/on-gone", "default/waiting"}, names(s.Pending))
	assert.Equal(t, []string{"default/on-n1", "default/on-unknown"}, names(s.Bound))
	require.Len(t, s.Nodes, 1, "the node being deleted is no target")
	assert.Equal(t, []string{"default/on-n1"}, names(s.Nodes[0].Pods))
	joined := strings.Join(s.Warnings, "\n")
	assert.Contains(t, joined, `pod default/on-unknown is bound to node "elsewhere", which was not given`)
	assert.Contains(t, joined, "pod default/gated has scheduling gates (example.com/quota)")
	assert.Contains(t, joined, `pod default/preempting is nominated to node "n1"`)
}

func TestNodes(t *testing.T) {
	s := build(t, nodeClassYAML, nodePoolYAML,
		node("managed-ready", managedLabels, "{}", "True"),
		node("managed-new", `{karpenter.sh/nodepool: general}`, "{}", "True"),
		node("unmanaged-ready", `{kubernetes.io/os: linux}`, "{unschedulable: true}", "True"),
		node("unmanaged-notready", `{kubernetes.io/os: linux}`, "{taints: [{key: dedicated, value: db, effect: NoSchedule}]}", "False"),
	)
	byName := map[string]*scheduling.Node{}
	for _, n := range s.Nodes {
		byName[n.Name] = n
	}
	require.Len(t, byName, 4)
	assert.True(t, byName["managed-ready"].Initialized, "managed: the karpenter.sh/initialized label")
	assert.True(t, byName["managed-new"].Initialized, "a NodePool's label but no NodeClaim: Karpenter manages it not, and counts it initialized")
	assert.True(t, byName["unmanaged-ready"].Initialized, "unmanaged: the Ready condition")
	assert.False(t, byName["unmanaged-notready"].Initialized)
	assert.Equal(t, "general", byName["managed-ready"].NodePool)
	assert.Equal(t, "", byName["unmanaged-ready"].NodePool)
	assert.Equal(t, []corev1.Taint{{Key: "example.com/booting", Effect: corev1.TaintEffectNoSchedule}}, byName["managed-ready"].StartupTaints, "startup taints come from the NodePool")
	assert.Equal(t, []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}, byName["unmanaged-ready"].Taints, "a cordoned node is tainted")
	alloc := byName["managed-ready"].Allocatable[corev1.ResourceCPU]
	assert.Equal(t, "3920m", alloc.String())
}

const nodeClaimYAML = `apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: general-abc12
  labels: {karpenter.sh/nodepool: general}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: general}
  requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
    - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}
    - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
status: %s
`

func TestNodeClaims(t *testing.T) {
	t.Run("matched to its node by status.nodeName: one node", func(t *testing.T) {
		s := build(t, nodeClassYAML, nodePoolYAML, node("ip-10-0-0-1", `{kubernetes.io/os: linux}`, "{}", "True"),
			replace(nodeClaimYAML, "%s", "{nodeName: ip-10-0-0-1}"))
		require.Len(t, s.Nodes, 1)
		n := s.Nodes[0]
		assert.Equal(t, "ip-10-0-0-1", n.Name)
		assert.Equal(t, "general", n.NodePool, "the claim tells the NodePool")
		assert.False(t, n.Initialized, "managed, and not labelled initialized")
	})
	t.Run("matched by providerID", func(t *testing.T) {
		s := build(t, nodeClassYAML, nodePoolYAML, node("ip-10-0-0-2", managedLabels, "{providerID: aws:///us-east-1a/i-123}", "True"),
			replace(nodeClaimYAML, "%s", "{providerID: aws:///us-east-1a/i-123}"))
		require.Len(t, s.Nodes, 1)
		assert.Equal(t, "ip-10-0-0-2", s.Nodes[0].Name)
	})
	t.Run("in flight with allocatable from its instance type", func(t *testing.T) {
		s := build(t, nodeClassYAML, nodePoolYAML, replace(nodeClaimYAML, "%s", "{}"),
			podYAML("early", "  nodeName: general-abc12\n"))
		require.Len(t, s.Nodes, 1)
		n := s.Nodes[0]
		assert.Equal(t, "general-abc12", n.Name)
		assert.False(t, n.Initialized)
		assert.Equal(t, "m5.large", n.Labels[apis.LabelInstanceType])
		assert.Equal(t, "us-east-1a", n.Labels[apis.LabelTopologyZone], "a single-valued requirement is a label")
		assert.NotContains(t, n.Labels, apis.LabelCapacityType, "two values: not a label yet")
		assert.Equal(t, "web", n.Labels["team"], "the NodePool's template labels")
		assert.Equal(t, "amd64", n.Labels[apis.LabelArch], "labels the instance type implies")
		cpu := n.Allocatable[corev1.ResourceCPU]
		assert.Equal(t, "1930m", cpu.String(), "m5.large on AL2023")
		assert.Equal(t, []string{"default/early"}, names(n.Pods))
	})
	t.Run("in flight with allocatable from its status", func(t *testing.T) {
		s := build(t, nodeClassYAML, nodePoolYAML, replace(nodeClaimYAML, "%s", "{allocatable: {cpu: 1500m, memory: 6Gi, pods: \"29\"}}"))
		cpu := s.Nodes[0].Allocatable[corev1.ResourceCPU]
		assert.Equal(t, "1500m", cpu.String())
	})
	t.Run("in flight without a single instance type", func(t *testing.T) {
		claim := replace(replace(nodeClaimYAML, "%s", "{}"), "values: [m5.large]", "values: [m5.large, m5.xlarge]")
		s := build(t, nodeClassYAML, nodePoolYAML, claim)
		assert.Empty(t, s.Nodes[0].Allocatable)
		assert.Contains(t, strings.Join(s.Warnings, "\n"), "NodeClaim/general-abc12 states no allocatable resources and no single instance type")
	})
}

func TestDefaultNodePool(t *testing.T) {
	s := build(t, podYAML("p", ""))
	assert.True(t, s.DefaultNodePool)
	require.Len(t, s.NodePools, 1)
	assert.Equal(t, "default", s.NodePools[0].NodePool.Name)
	assert.NotEmpty(t, s.NodePools[0].InstanceTypes)
	assert.Contains(t, s.Warnings[0], `no NodePool given: using karpsim's default NodePool "default" and EC2NodeClass "default"`)

	given := build(t, replace(nodeClassYAML, "name: general", "name: default"))
	assert.True(t, given.DefaultNodePool)
	assert.Contains(t, given.Warnings[0], `with the given EC2NodeClass "default"`)

	withPool := build(t, nodeClassYAML, nodePoolYAML)
	assert.False(t, withPool.DefaultNodePool)
}

func TestNodePoolsSharingAnEC2NodeClassShareOneCatalog(t *testing.T) {
	s := build(t, nodeClassYAML, nodePoolYAML, replace(nodePoolYAML, "name: general}", "name: second}"),
		replace(nodePoolYAML, "name: general}", "name: static}")+"  replicas: 2\n")
	require.Len(t, s.NodePools, 2, "the static NodePool is left out")
	assert.Equal(t, "general", s.NodePools[0].NodePool.Name)
	assert.Equal(t, "second", s.NodePools[1].NodePool.Name)
	assert.Same(t, s.NodePools[0].InstanceTypes[0], s.NodePools[1].InstanceTypes[0])
	assert.Contains(t, strings.Join(s.Warnings, "\n"), "NodePool/static is static (spec.replicas: 2)")
}

func TestErrorsNameFileObjectAndField(t *testing.T) {
	tests := []struct {
		name string
		docs []string
		want string
	}{
		{"a Deployment without containers", []string{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: empty, namespace: shop}\nspec:\n  selector: {matchLabels: {a: b}}\n  template: {metadata: {labels: {a: b}}}\n"},
			"test.yaml: Deployment/shop/empty: spec.template.spec.containers: required: a pod needs at least one container"},
		{"negative replicas", []string{deployment("replicas: -2")},
			"test.yaml: Deployment/web: spec.replicas: -2: must be 0 or more"},
		{"a negative request in a pod", []string{replace(podYAML("neg", ""), `cpu: "1"`, `cpu: "-1"`)},
			"test.yaml: Pod/neg: spec.containers[0] (app).resources.requests.cpu: negative quantity -1"},
		{"a pod without a name", []string{replace(podYAML("x", ""), "metadata: {name: x}", "metadata: {generateName: x-}")},
			"test.yaml: Pod without a name: metadata.name: required"},
		{"a negative request in a template", []string{replace(deployment(""), "cpu: 500m", "cpu: -500m")},
			"test.yaml: Deployment/web: spec.template.spec.containers[0] (web).resources.requests.cpu: negative quantity -500m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromSet(decode(t, tt.docs...), Options{})
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.ErrorIs(t, err, manifests.ErrInvalid)
		})
	}
}

func TestANodePoolWithoutItsEC2NodeClassIsAnError(t *testing.T) {
	np := decode(t, nodeClassYAML, nodePoolYAML).NodePools[0]
	_, err := FromSet(&manifests.Set{NodePools: []*apis.NodePool{np}}, Options{})
	require.Error(t, err)
	assert.True(t, errors.Is(err, manifests.ErrMissingReference))
	assert.Contains(t, err.Error(), `NodePool/general: spec.template.spec.nodeClassRef.name: EC2NodeClass "general" not found`)
	_, err = FromSet(nil, Options{})
	assert.Error(t, err)
}

// everything is a Set with one object of each kind FromSet reads.
func everything(t *testing.T) []string {
	return []string{nodeClassYAML, nodePoolYAML, node("n1", managedLabels, "{}", "True"), replace(nodeClaimYAML, "%s", "{}"),
		podYAML("p", ""), podYAML("q", "  nodeName: n1\n"), deployment("replicas: 2"), replace(statefulSetYAML, "%s", ""),
		replace(jobYAML, "%s", "parallelism: 2"), replace(daemonSetYAML, "%s", ""),
		"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec: {minAvailable: 1, selector: {matchLabels: {app: web}}}\n"}
}

func TestFromSetLeavesTheSetAlone(t *testing.T) {
	docs := everything(t)
	set, pristine := decode(t, docs...), decode(t, docs...)
	s, err := FromSet(set, Options{})
	require.NoError(t, err)
	// Changing the snapshot must not reach the Set either.
	s.Pending[0].Labels["changed"] = "yes"
	s.Nodes[0].Labels["changed"] = "yes"
	s.NodePools[0].NodePool.Spec.Template.ObjectMeta.Labels["changed"] = "yes"
	s.DaemonSets[0].Spec.Tolerations[0].Key = "changed"
	s.PDBs[0].Name = "changed"
	sv, pv := reflect.ValueOf(set).Elem(), reflect.ValueOf(pristine).Elem()
	for i := range sv.NumField() {
		if sv.Type().Field(i).IsExported() {
			assert.True(t, reflect.DeepEqual(sv.Field(i).Interface(), pv.Field(i).Interface()), "Set.%s changed", sv.Type().Field(i).Name)
		}
	}
}

func TestFromSetIsDeterministic(t *testing.T) {
	set := decode(t, everything(t)...)
	a, err := FromSet(set, Options{})
	require.NoError(t, err)
	b, err := FromSet(set, Options{})
	require.NoError(t, err)
	assert.Equal(t, names(a.Pending), names(b.Pending))
	// Catalogs are rebuilt per call; the rest must be equal in full.
	a.NodePools, b.NodePools = nil, nil
	assert.True(t, reflect.DeepEqual(a, b))
	assert.Equal(t, scheduling.Solve(build(t, everything(t)...).Input(scheduling.Options{})), scheduling.Solve(build(t, everything(t)...).Input(scheduling.Options{})))
}

func TestInput(t *testing.T) {
	s := build(t, everything(t)...)
	in := s.Input(scheduling.Options{IgnorePreferences: true})
	assert.Equal(t, len(s.Pending), len(in.Pods))
	assert.Equal(t, len(s.Nodes), len(in.Nodes))
	assert.Len(t, in.DaemonSets, 1)
	assert.True(t, in.Options.IgnorePreferences)
	assert.NotEmpty(t, DefaultManifests())
}

func TestHugeReplicaCountsAreRefused(t *testing.T) {
	set, err := manifests.Decode("huge.yaml", []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: huge, namespace: default}
spec:
  replicas: 2147483647
  selector: {matchLabels: {app: huge}}
  template:
    metadata: {labels: {app: huge}}
    spec: {containers: [{name: c, image: i}]}
`))
	require.NoError(t, err)
	_, err = FromSet(set, Options{})
	require.EqualError(t, err, "huge.yaml: Deployment/default/huge: spec.replicas: 2147483647 would take the pods to place past 200000, the most karpsim expands (snapshot.Options.MaxPods)")
	small, err := manifests.Decode("small.yaml", []byte(strings.Replace(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: REPLICAS
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: i}]}
`, "REPLICAS", "3", 1)))
	require.NoError(t, err)
	_, err = FromSet(small, Options{MaxPods: 2})
	assert.ErrorContains(t, err, "spec.replicas: 3 would take the pods to place past 2")
	snap, err := FromSet(small, Options{MaxPods: 3})
	require.NoError(t, err)
	assert.Len(t, snap.Pending, 3)
}

func TestStatefulSetClaimsAreCreatedWithTheDefaultClass(t *testing.T) {
	set, err := manifests.Decode("sts.yaml", []byte(`apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gp3
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
allowedTopologies:
- matchLabelExpressions:
  - {key: topology.kubernetes.io/zone, values: [us-east-1b]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
`))
	require.NoError(t, err)
	snap, err := FromSet(set, Options{})
	require.NoError(t, err)
	require.Len(t, snap.PersistentVolumeClaims, 2)
	assert.Equal(t, "data-db-0", snap.PersistentVolumeClaims[0].Name)
	assert.Equal(t, "gp3", *snap.PersistentVolumeClaims[0].Spec.StorageClassName)
	r := scheduling.Solve(snap.Input(scheduling.Options{}))
	require.Empty(t, r.Unschedulable)
	for _, c := range r.NodeClaims {
		assert.Equal(t, "us-east-1b", c.Zone, "the storage class's allowed topology")
	}
}

// A NodeOverlay naming a type the price list lacks (a preview type) prices
// it, so it can be launched, as Karpenter's AWS provider does with the
// NodeOverlay gate on; karpsim applies overlays whenever they are given.
func TestAnOverlayPricesAPreviewType(t *testing.T) {
	pool := replace(nodePoolYAML, "values: [m]", "values: [p]")
	overlay := `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: preview}
spec:
  price: "98.32"
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [p5e.48xlarge]}]
`
	for _, tt := range []struct {
		docs []string
		want bool
	}{{[]string{nodeClassYAML, pool}, false}, {[]string{nodeClassYAML, pool, overlay}, true}} {
		snap, err := FromSet(decode(t, tt.docs...), Options{})
		require.NoError(t, err)
		it, ok := snap.NodePools[0].InstanceTypes.Get("p5e.48xlarge")
		require.True(t, ok)
		o, available := it.CheapestOffering(requirements.NewRequirements())
		require.Equal(t, tt.want, available, "%d documents: %+v", len(tt.docs), o)
		if tt.want {
			assert.Equal(t, 98.32, o.Price)
		}
	}
}

// TestCatalogForPricesPreviewTypes: CatalogFor with the cluster's
// NodeOverlays makes an unpriced embedded type launchable (the simulator
// passes them when a step replaces an EC2NodeClass); without them it has no
// available offering.
func TestCatalogForPricesPreviewTypes(t *testing.T) {
	price := "40.5"
	overlay := &apis.NodeOverlay{Spec: apis.NodeOverlaySpec{Price: &price, Requirements: []corev1.NodeSelectorRequirement{{
		Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"p5e.48xlarge"}}}}}
	overlay.Name = "preview"
	available := func(overlays ...*apis.NodeOverlay) int {
		c, err := Options{}.CatalogFor(nil, overlays...)
		require.NoError(t, err)
		it, ok := c.Get("p5e.48xlarge")
		require.True(t, ok)
		n := 0
		for _, o := range it.Offerings {
			if o.Available {
				n++
			}
		}
		return n
	}
	assert.Zero(t, available())
	assert.Positive(t, available(overlay))
}

// TestNotReadyNodePoolsLaunchNothing follows Karpenter's scheduling suite
// ("should not schedule pods with nodePool which is not ready"): a NodePool
// whose Ready condition is not True, or whose EC2NodeClass's is not, is
// left out of provisioning with a warning; one without conditions is used.
func TestNotReadyNodePoolsLaunchNothing(t *testing.T) {
	const notReady = "status:\n  conditions:\n  - {type: Ready, status: \"False\", reason: NodeClassNotReady, message: waiting, lastTransitionTime: \"2026-03-01T10:00:00Z\"}\n"
	const ready = "status:\n  conditions:\n  - {type: Ready, status: \"True\", reason: Ready, lastTransitionTime: \"2026-03-01T10:00:00Z\"}\n"
	s := build(t, nodeClassYAML, nodePoolYAML+notReady, replace(nodePoolYAML, "name: general}", "name: second}"))
	require.Len(t, s.NodePools, 1)
	assert.Equal(t, "second", s.NodePools[0].NodePool.Name)
	assert.Contains(t, strings.Join(s.Warnings, "\n"),
		"NodePool/general is not ready (status.conditions Ready=False, NodeClassNotReady: waiting): Karpenter launches no node from it until it is")

	s = build(t, nodeClassYAML+notReady, nodePoolYAML)
	assert.Empty(t, s.NodePools, "the class is not ready, so neither is the NodePool")
	assert.Contains(t, strings.Join(s.Warnings, "\n"), "EC2NodeClass/general status.conditions Ready=False")

	s = build(t, nodeClassYAML+notReady, nodePoolYAML+ready)
	assert.Len(t, s.NodePools, 1, "the NodePool's own condition decides when it has one")
	s = build(t, nodeClassYAML+ready, nodePoolYAML)
	assert.Len(t, s.NodePools, 1)
}
