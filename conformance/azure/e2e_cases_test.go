package azure

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// The end-to-end scheduling suite, which runs on a live AKS cluster: here
// on package azure's whole catalog of its default region, westus2, the
// sizes derived from Cluster Autoscaler's table included (a real
// subscription sees them all).

const (
	e2eRegion            = "westus2"
	e2eNodeResourceGroup = "MC_karpenter-e2e_karpenter-e2e_westus2"
)

func e2eCatalog(t *T, s azure.Settings) instancetypes.Catalog {
	t.Helper()
	c, err := azure.Catalog(e2eRegion, s)
	if err != nil {
		t.Fatalf("azure.Catalog(%s): %v", e2eRegion, err)
	}
	return c
}

// e2ePool is the suite's NodePool: Linux, on-demand, amd64, any VM family
// (the suite makes the family requirement Exists), then reqs in place of
// requirements on the same keys.
func e2ePool(name string, reqs ...requirement) *apis.NodePool {
	base := []requirement{
		in(apis.LabelOS, "linux"),
		in(apis.LabelCapacityType, apis.CapacityTypeOnDemand),
		in(apis.LabelArch, apis.ArchitectureAmd64),
		{Key: azure.LabelSKUFamily, Operator: corev1.NodeSelectorOpExists},
	}
	for _, r := range reqs {
		base = slices.DeleteFunc(base, func(b requirement) bool { return b.Key == r.Key })
		base = append(base, r)
	}
	np := nodePool(base...)
	np.Name = name
	return np
}

// selectingAll is the suite's label test pod: the labels as node selector,
// required node affinity and preferred node affinity.
func selectingAll(labels map[string]string) podOption {
	return func(p *corev1.Pod) {
		var exprs []corev1.NodeSelectorRequirement
		for _, k := range sortedKeys(labels) {
			selecting(k, labels[k])(p)
			exprs = append(exprs, corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{labels[k]}})
		}
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}},
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
				{Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: exprs}}},
		}}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// e2eLabels launches one pod selecting the labels on one node that
// carries them all.
func e2eLabels(t *T, s azure.Settings, np *apis.NodePool, labels map[string]string) {
	w := world{e2eCatalog(t, s), np}
	res := w.solve(pendingPod("p", selectingAll(labels)))
	if len(res.NodeClaims) != 1 {
		t.Fatalf("%d NodeClaims, want 1; unschedulable %v", len(res.NodeClaims), res.Unschedulable)
	}
	got := w.launch(t, pendingPod("p", selectingAll(labels)))[0]
	for _, k := range sortedKeys(labels) {
		key := k
		if stable, ok := normalized[k]; ok {
			key = stable
		}
		expectLabel(t, got, key, labels[k])
	}
}

func replicas(n int, name string, opts ...podOption) []*corev1.Pod {
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = pendingPod(fmt.Sprintf("%s-%d", name, i), opts...)
	}
	return pods
}

func affinityTo(labels map[string]string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			{LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: apis.LabelHostname}}}}
	}
}

func withLabels(labels map[string]string) podOption {
	return func(p *corev1.Pod) {
		for k, v := range labels {
			p.Labels[k] = v
		}
	}
}

func cpu(q string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}
}

// initContainers gives the pod init containers, sidecars (restart policy
// Always) or not.
func initContainers(cs ...corev1.Container) podOption {
	return func(p *corev1.Pod) { p.Spec.InitContainers = append(p.Spec.InitContainers, cs...) }
}

func ephemeralInit(requests corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: fmt.Sprintf("init-%d", len(requests)), Resources: corev1.ResourceRequirements{Requests: requests}}
}

func sidecar(requests corev1.ResourceList) corev1.Container {
	always := corev1.ContainerRestartPolicyAlways
	return corev1.Container{Name: "sidecar", RestartPolicy: &always, Resources: corev1.ResourceRequirements{Requests: requests}}
}

func named(c corev1.Container, name string) corev1.Container { c.Name = name; return c }

// rightSized: a buffer pod of 3 CPU and the pod, tied to one node by pod
// affinity, on sizes of 4 or 8 vCPUs outside the B family: the node has
// want vCPUs.
func rightSized(t *T, want string, requests corev1.ResourceList, inits ...corev1.Container) {
	np := e2ePool("default", in(azure.LabelSKUCPU, "4", "8"),
		requirement{Key: azure.LabelSKUFamily, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"B"}})
	w := world{e2eCatalog(t, azure.Settings{}), np}
	tie := map[string]string{"test": "right-sized"}
	buffer := pendingPod("buffer", withLabels(tie), withLabels(map[string]string{"app": "buffer"}), affinityTo(tie), requesting(corev1.ResourceCPU, "3"))
	p := pendingPod("p", withLabels(tie), withLabels(map[string]string{"app": "p"}), affinityTo(tie), initContainers(inits...))
	p.Spec.Containers[0].Resources.Requests = requests
	labels := w.launch(t, buffer, p)
	if labels[0][apis.LabelHostname] != labels[1][apis.LabelHostname] {
		t.Errorf("the pods are on two nodes")
	}
	expectLabel(t, labels[1], azure.LabelSKUCPU, want)
}

func priceOverlay(t *T, np *apis.NodePool, c instancetypes.Catalog, spec apis.NodeOverlaySpec) instancetypes.Catalog {
	o := &apis.NodeOverlay{ObjectMeta: metav1.ObjectMeta{Name: "overlay"}, Spec: spec}
	out, conflicts := instancetypes.ApplyOverlays([]instancetypes.OverlayPool{{Name: np.Name, Labels: np.Spec.Template.ObjectMeta.Labels, Types: c}}, []*apis.NodeOverlay{o})
	if len(conflicts) > 0 {
		t.Fatalf("ApplyOverlays: conflicts %v", conflicts)
	}
	return out[0]
}

func overlayPicks(t *T, spec apis.NodeOverlaySpec) {
	spec.Requirements = []corev1.NodeSelectorRequirement{{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"Standard_D8s_v5"}}}
	np := e2ePool("default")
	w := world{priceOverlay(t, np, e2eCatalog(t, azure.Settings{}), spec), np}
	expectLabel(t, w.launch(t, pendingPod("p"))[0], apis.LabelInstanceType, "Standard_D8s_v5")
}

func ptrString(s string) *string { return &s }

var _ = register("e2e-scheduling",
	conformanceCase{Name: "well-known-labels", Run: func(t *T) {
		e2eLabels(t, azure.Settings{NodeResourceGroup: e2eNodeResourceGroup}, e2ePool("default"), map[string]string{
			apis.LabelNodePool: "default", apis.LabelInstanceType: "Standard_D2s_v3",
			azure.LabelSKUName: "Standard_D2s_v3", azure.LabelSKUFamily: "D", azure.LabelSKUSeries: "Ds_v3", azure.LabelSKUVersion: "3",
			azure.LabelSKUCPU: "2", azure.LabelSKUMemory: "8192", azure.LabelAKSCPU: "2", azure.LabelAKSMemory: "8192",
			azure.LabelSKUAcceleratedNetworking: "true", azure.LabelSKUStoragePremiumCapable: "true",
			azure.LabelSKUEphemeralOSMaxSize: "53", azure.LabelSKUUltraSSD: "false",
			azure.LabelAKSCluster: e2eNodeResourceGroup, azure.LabelAKSMode: "system",
			azure.LabelAKSScaleSetPriority: "regular", azure.LabelAKSPriority: "regular", azure.LabelAKSOSSKU: "Ubuntu",
		})
	}},
	conformanceCase{Name: "deprecated-instance-type", Run: func(t *T) {
		e2eLabels(t, azure.Settings{}, e2ePool("default"), map[string]string{"beta.kubernetes.io/instance-type": "Standard_D4s_v5"})
	}},
	conformanceCase{Name: "deprecated-labels", Run: func(t *T) {
		e2eLabels(t, azure.Settings{}, e2ePool("default"), map[string]string{
			"failure-domain.beta.kubernetes.io/region": e2eRegion, "failure-domain.beta.kubernetes.io/zone": e2eRegion + "-1",
			"topology.disk.csi.azure.com/zone": e2eRegion + "-1", "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
		})
	}},
	conformanceCase{Name: "topology-and-arch", Run: func(t *T) {
		e2eLabels(t, azure.Settings{}, e2ePool("default"), map[string]string{
			apis.LabelNodePool: "default", apis.LabelTopologyRegion: e2eRegion, apis.LabelTopologyZone: e2eRegion + "-1",
			azure.LabelPlacementScope: azure.PlacementScopeZonal, apis.LabelOS: "linux", apis.LabelArch: "amd64",
			apis.LabelCapacityType: apis.CapacityTypeOnDemand,
		})
	}},
	conformanceCase{Name: "gpu-nvidia", Run: func(t *T) {
		e2eLabels(t, azure.Settings{}, e2ePool("default"), map[string]string{azure.LabelSKUGPUManufacturer: "nvidia", azure.LabelSKUGPUCount: "1"})
	}},
	conformanceCase{Name: "fips", Run: func(t *T) {
		e2eLabels(t, azure.Settings{FIPSMode: azure.FIPSModeFIPS, ImageFamily: azure.ImageFamilyAzureLinux}, e2ePool("default"), map[string]string{
			apis.LabelNodePool: "default", apis.LabelInstanceType: "Standard_D2s_v3", azure.LabelAKSFIPSEnabled: "true",
		})
	}},
	conformanceCase{Name: "domain-exception-node-restriction", Run: func(t *T) { domainException(t, "node-restriction.kubernetes.io") }},
	conformanceCase{Name: "domain-exception-node", Run: func(t *T) { domainException(t, "node.kubernetes.io") }},
	conformanceCase{Name: "naked-pod", Run: func(t *T) {
		world{e2eCatalog(t, azure.Settings{}), e2ePool("default")}.launch(t, pendingPod("p"))
	}},
	conformanceCase{Name: "deployment", Run: func(t *T) {
		w := world{e2eCatalog(t, azure.Settings{}), e2ePool("default")}
		pods := replicas(50, "d")
		w.launch(t, pods...)
		if n := len(w.solve(pods...).NodeClaims); n > 2 {
			t.Errorf("%d nodes for 50 replicas, want at most 2", n)
		}
	}},
	conformanceCase{Name: "self-affinity", Run: func(t *T) {
		w := world{e2eCatalog(t, azure.Settings{}), e2ePool("default")}
		self := map[string]string{"test": "self-affinity"}
		pods := replicas(2, "d", withLabels(self), affinityTo(self))
		w.launch(t, pods...)
		if n := len(w.solve(pods...).NodeClaims); n != 1 {
			t.Errorf("%d nodes, want 1", n)
		}
	}},
	conformanceCase{Name: "zonal-spread", Run: func(t *T) {
		w := world{e2eCatalog(t, azure.Settings{}), e2ePool("default")}
		spread := map[string]string{"test": "zonal-spread"}
		three, honor := int32(3), corev1.NodeInclusionPolicyHonor
		pods := replicas(3, "d", withLabels(spread), func(p *corev1.Pod) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: apis.LabelTopologyZone,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: spread},
				MinDomains: &three, NodeTaintsPolicy: &honor}}
		})
		zones := map[string]bool{}
		for _, l := range w.launch(t, pods...) {
			zones[l[apis.LabelTopologyZone]] = true
		}
		if n := len(w.solve(pods...).NodeClaims); n != 3 || len(zones) != 3 {
			t.Errorf("%d nodes in zones %v, want 3 in 3 zones", n, zones)
		}
	}},
	conformanceCase{Name: "nodepool-weight", Run: func(t *T) {
		low, high := e2ePool("low", in(apis.LabelInstanceType, "Standard_D2s_v5")), e2ePool("high", in(apis.LabelInstanceType, "Standard_D4s_v5"))
		low.Spec.Weight, high.Spec.Weight = ptr(int32(10)), ptr(int32(100))
		c := e2eCatalog(t, azure.Settings{})
		res := scheduling.Solve(scheduling.Input{Pods: []*corev1.Pod{pendingPod("p")},
			NodePools: []scheduling.Pool{{NodePool: low, InstanceTypes: c}, {NodePool: high, InstanceTypes: c}}})
		if len(res.NodeClaims) != 1 || res.NodeClaims[0].NodePool != "high" || res.NodeClaims[0].InstanceType != "Standard_D4s_v5" {
			t.Errorf("claims %+v, want one Standard_D4s_v5 of NodePool high", res.NodeClaims)
		}
	}},
	conformanceCase{Name: "init-sidecar-later-init-exceeds", Run: func(t *T) {
		rightSized(t, "8", cpu("400m"), named(ephemeralInit(cpu("300m")), "a"), sidecar(cpu("350m")), named(ephemeralInit(cpu("1")), "b"))
	}},
	conformanceCase{Name: "init-sidecar-later-init-fits", Run: func(t *T) {
		rightSized(t, "4", cpu("400m"), named(ephemeralInit(cpu("300m")), "a"), sidecar(cpu("350m")), named(ephemeralInit(cpu("300m")), "b"))
	}},
	conformanceCase{Name: "init-exceeds-later", Run: func(t *T) {
		rightSized(t, "8", cpu("400m"), named(sidecar(cpu("100m")), "s1"), named(ephemeralInit(cpu("1500m")), "a"), named(sidecar(cpu("100m")), "s2"))
	}},
	conformanceCase{Name: "init-mixed-resources", Run: func(t *T) {
		w := world{e2eCatalog(t, azure.Settings{}), e2ePool("default")}
		mixed := func(c, m string) corev1.ResourceList {
			return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c), corev1.ResourceMemory: resource.MustParse(m)}
		}
		p := pendingPod("p", initContainers(sidecar(mixed("100m", "128Mi")), named(ephemeralInit(mixed("50m", "4Gi")), "a")))
		p.Spec.Containers[0].Resources.Requests = mixed("100m", "128Mi")
		w.launch(t, p)
	}},
	conformanceCase{Name: "overlay-price-adjustment", Run: func(t *T) {
		overlayPicks(t, apis.NodeOverlaySpec{PriceAdjustment: ptrString("-99.99999999999%")})
	}},
	conformanceCase{Name: "overlay-price", Run: func(t *T) { overlayPicks(t, apis.NodeOverlaySpec{Price: ptrString("0.0000000232")}) }},
)

// domainException: labels in a domain the kubelet may set, which the
// NodePool defines (Exists), reach the node.
func domainException(t *T, domain string) {
	labels := map[string]string{
		domain + "/team": "team-1", domain + "/custom-label": "custom-value", "subdomain." + domain + "/custom-label": "custom-value",
	}
	var reqs []requirement
	for _, k := range sortedKeys(labels) {
		reqs = append(reqs, requirement{Key: k, Operator: corev1.NodeSelectorOpExists})
	}
	e2eLabels(t, azure.Settings{}, e2ePool("default", reqs...), labels)
}
