package azure

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/drift"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/provider"
)

// The cloud provider suite's Create and drift specs, and the instance
// provider's.

// cigImage is the suite's community gallery image of the default family
// (Ubuntu 22.04, generation 2) at a version.
func cigImage(version string) string {
	return "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/" + version
}

// Versions the suite's environment reports.
const (
	suiteK8sVersion   = "1.34.0"
	suiteImageVersion = "202501.02.0"
	suiteClientID     = "61f71907-753f-4802-a901-47361c3664f2"
)

// driftWorld is the drift suite's setup: a NodePool, its AKSNodeClass with
// the default status (images, Kubernetes version, both ready), and a claim
// launched on Standard_D2_v2 from them, its node running the class's
// Kubernetes version with the cluster's kubelet identity.
type driftWorld struct {
	pool             *apis.NodePool
	class            *apis.AKSNodeClass
	claim            *apis.NodeClaim
	kubelet          string
	nodeID, cluster  string
	classGone, noPad bool
}

func newDriftWorld(t *T) *driftWorld {
	nc := &apis.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default", Generation: 1}}
	nc.SetDefaults()
	nc.Status.Images = []apis.AKSNodeImage{{ID: cigImage(suiteImageVersion)}}
	nc.Status.KubernetesVersion = ptr(suiteK8sVersion)
	nc.Status.Conditions = []metav1.Condition{
		{Type: apis.AKSConditionImagesReady, Status: metav1.ConditionTrue, ObservedGeneration: 1},
		{Type: apis.AKSConditionKubernetesVersionReady, Status: metav1.ConditionTrue, ObservedGeneration: 1},
	}
	np := nodePool()
	w := world{suiteCatalog(t), np}
	p := pendingPod("p", selecting(apis.LabelInstanceType, "Standard_D2_v2"))
	labels := w.launch(t, p)[0]
	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-1", Labels: labels}}
	claim.Status.ProviderID = "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/aks-default-1"
	claim.Status.ImageID = cigImage(suiteImageVersion)
	claim.Status.NodeName = "aks-default-1"
	claim = drift.StampAKS(drift.Stamp(claim, np, nil), nc)
	return &driftWorld{pool: np, class: nc, claim: claim, kubelet: "v" + suiteK8sVersion, nodeID: suiteClientID, cluster: suiteClientID}
}

// check runs the Azure provider's drift checks through the provider seam.
func (d *driftWorld) check() drift.Result {
	var class provider.NodeClass
	if !d.classGone {
		class = d.class
	}
	in := drift.Input{NodeClaim: d.claim, NodePool: d.pool, KubeletVersion: d.kubelet,
		NodeKubeletIdentityClientID: d.nodeID, KubeletIdentityClientID: d.cluster}
	if d.noPad {
		in.NodePool = nil
	}
	return (&provider.Azure{}).Drift(in, class)
}

func ptr[V any](v V) *V { return &v }

func expectDrift(t *T, r drift.Result, want drift.Reason) {
	t.Helper()
	switch {
	case want == "" && r.Drifted:
		t.Errorf("drifted: %v", r)
	case want != "" && (!r.Drifted || r.Reason != want):
		t.Errorf("%v, want drifted (%s)", r, want)
	}
}

// driftCase is a drift spec: change the setup, then expect the reason
// ("" for none).
func driftCase(name string, want drift.Reason, change func(d *driftWorld)) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		d := newDriftWorld(t)
		change(d)
		expectDrift(t, d.check(), want)
	}}
}

func setCondition(nc *apis.AKSNodeClass, conditionType string, status metav1.ConditionStatus) {
	for i := range nc.Status.Conditions {
		if nc.Status.Conditions[i].Type == conditionType {
			nc.Status.Conditions[i].Status = status
		}
	}
}

var _ = register("drift",
	driftCase("nodeclass-gone", "", func(d *driftWorld) { d.classGone = true }),
	driftCase("nodepool-gone", "", func(d *driftWorld) { d.noPad = true }),
	driftCase("valid", "", func(*driftWorld) {}),
	driftCase("no-provider-id", "", func(d *driftWorld) { d.claim.Status = apis.NodeClaimStatus{} }),
	driftCase("image-unchanged", "", func(*driftWorld) {}),
	driftCase("images-not-ready", "", func(d *driftWorld) {
		d.class.Status.Images = []apis.AKSNodeImage{{ID: cigImage("202503.02.0")}}
		setCondition(d.class, apis.AKSConditionImagesReady, metav1.ConditionFalse)
	}),
	conformanceCase{Name: "images-empty", Run: func(t *T) {
		d := newDriftWorld(t)
		d.class.Status.Images = nil
		r := d.check()
		expectDrift(t, r, "")
		if !strings.Contains(r.Detail, "status.images is empty") {
			t.Errorf("detail %q does not say the images are empty", r.Detail)
		}
	}},
	driftCase("image-gallery-sig", drift.ImageDrift, func(d *driftWorld) {
		d.class.Status.Images = []apis.AKSNodeImage{{ID: "/subscriptions/10945678-1234-1234-1234-123456789012/resourceGroups/AKS-Ubuntu/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2204gen2containerd/versions/202410.09.0"}}
	}),
	driftCase("image-version", drift.ImageDrift, func(d *driftWorld) {
		d.class.Status.Images = []apis.AKSNodeImage{{ID: cigImage("202503.02.0")}}
	}),
	driftCase("k8s-unchanged", "", func(*driftWorld) {}),
	driftCase("k8s-not-ready", "", func(d *driftWorld) {
		d.class.Status.KubernetesVersion = ptr("1.35.0")
		setCondition(d.class, apis.AKSConditionKubernetesVersionReady, metav1.ConditionFalse)
	}),
	driftCase("k8s-empty", "", func(d *driftWorld) { d.class.Status.KubernetesVersion = ptr("") }),
	// The provider reads the node's kubelet version; without a node name,
	// or with a node it cannot find, it has none: karpsim is given none.
	driftCase("k8s-no-node-name", "", func(d *driftWorld) { d.claim.Status.NodeName, d.kubelet = "", "" }),
	driftCase("k8s-node-not-found", "", func(d *driftWorld) { d.claim.Status.NodeName, d.kubelet = "NodeWhoDoesNotExist", "" }),
	driftCase("k8s-new", drift.K8sVersionDrift, func(d *driftWorld) { d.class.Status.KubernetesVersion = ptr("1.35.0") }),
	driftCase("kubelet-identity-unset", "", func(d *driftWorld) { d.nodeID = "" }),
	driftCase("kubelet-identity-differs", drift.KubeletIdentityDrift, func(d *driftWorld) { d.cluster = "3824ff7a-93b6-40af-b861-2eb621ba437a" }),
	driftCase("static-unchanged", "", func(*driftWorld) {}),
	driftCase("static-subnet", drift.NodeClassDrift, func(d *driftWorld) {
		d.class.Spec.VNETSubnetID = ptr("/subscriptions/12345678-1234-1234-1234-123456789012/resourceGroups/test-resourceGroup/providers/Microsoft.Network/virtualNetworks/aks-vnet-12345678/subnets/my-subnet")
	}),
	driftCase("static-image-family", drift.NodeClassDrift, func(d *driftWorld) { d.class.Spec.ImageFamily = ptr(apis.ImageFamilyAzureLinux) }),
)

// The node class hash suite's entries: a change of a static field changes
// the hash.
var _ = register("hash",
	hashCase("image-family", func(nc *apis.AKSNodeClass) { nc.Spec.ImageFamily = ptr(apis.ImageFamilyAzureLinux) }),
	hashCase("os-disk-size", func(nc *apis.AKSNodeClass) { nc.Spec.OSDiskSizeGB = ptr(int32(30)) }),
)

func hashCase(name string, change func(*apis.AKSNodeClass)) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		nc := &apis.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
		nc.SetDefaults()
		before := drift.AKSNodeClassHash(nc)
		changed := nc.DeepCopy()
		change(changed)
		if after := drift.AKSNodeClassHash(changed); after == before {
			t.Errorf("the hash %s did not change", before)
		}
	}}
}

// overlayCatalog is the suite's catalog with a NodeOverlay giving every
// size 100 example.com/dongle.
func overlayCatalog(t *T, np *apis.NodePool) instancetypes.Catalog {
	overlay := &apis.NodeOverlay{ObjectMeta: metav1.ObjectMeta{Name: "dongle"}}
	overlay.Spec.Capacity = corev1.ResourceList{"example.com/dongle": resource.MustParse("100")}
	out, conflicts := instancetypes.ApplyOverlays([]instancetypes.OverlayPool{{Name: np.Name, Labels: np.Spec.Template.ObjectMeta.Labels, Types: suiteCatalog(t)}}, []*apis.NodeOverlay{overlay})
	if len(conflicts) > 0 {
		t.Fatalf("ApplyOverlays: conflicts %v", conflicts)
	}
	return out[0]
}

var _ = register("create",
	conformanceCase{Name: "overlay-capacity", Run: func(t *T) {
		np := nodePool()
		w := world{overlayCatalog(t, np), np}
		labels := w.launch(t, pendingPod("p", requesting("example.com/dongle", "1")))[0]
		it := sizeOf(t, w.catalog, labels[apis.LabelInstanceType])
		if got := it.Capacity.Get("example.com/dongle"); got != 100 {
			t.Errorf("%s capacity example.com/dongle %d, want 100", it.Name, got)
		}
		if got := it.Allocatable().Get("example.com/dongle"); got != 100 {
			t.Errorf("%s allocatable example.com/dongle %d, want 100", it.Name, got)
		}
	}},
	conformanceCase{Name: "overlay-disabled", Run: func(t *T) {
		// With the NodeOverlay gate off Karpenter builds the catalog
		// without overlays: karpsim's callers then pass none.
		world{suiteCatalog(t), nodePool()}.expectNotScheduled(t, pendingPod("p", requesting("example.com/dongle", "1")))
	}},
	conformanceCase{Name: "no-instance-types", Run: func(t *T) {
		world{suiteCatalog(t), nodePool(in(apis.LabelInstanceType, "doesnotexist"))}.expectNotScheduled(t, pendingPod("p"))
	}},
)

// The instance provider's: with every offering of the one size left
// unavailable, nothing launches.
var _ = register("instance",
	conformanceCase{Name: "all-ice-zonal", Run: func(t *T) {
		allOfferingsUnavailable(t, fakeRegion, append([]string{azure.RegionalZone}, suiteZones...))
	}},
	conformanceCase{Name: "all-ice-non-zonal", Run: func(t *T) { allOfferingsUnavailable(t, nonZonalRegion, []string{azure.RegionalZone}) }},
)

func allOfferingsUnavailable(t *T, region string, zones []string) {
	w := newICEWorld(t, region, in(apis.LabelInstanceType, "Standard_D2_v2"))
	w.markBoth("Standard_D2_v2", zones...)
	for _, o := range sizeOf(t, w.at(now).catalog, "Standard_D2_v2").Offerings {
		if o.Available {
			t.Errorf("offering %s %s is available", o.Zone, o.CapacityType)
		}
	}
	w.at(now).expectNotScheduled(t, pendingPod("p"))
}
