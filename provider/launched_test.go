package provider

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/drift"
	"github.com/karpsim/karpsim/instancetypes"
)

// azureSize is a VM size of the embedded eastus catalog.
func azureSize(t *testing.T, name string) *instancetypes.InstanceType {
	t.Helper()
	c, err := (&Azure{}).Catalog(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	it, ok := c.Get(name)
	if !ok {
		t.Fatalf("no %s in the eastus catalog", name)
	}
	return it
}

const (
	gen1Image = "/CommunityGalleries/AKSUbuntu-x/images/2204containerd/versions/202511.01.0"
	gen2Image = "/CommunityGalleries/AKSUbuntu-x/images/2204gen2containerd/versions/202511.01.0"
	armImage  = "/CommunityGalleries/AKSUbuntu-x/images/2204gen2arm64containerd/versions/202511.01.0"
)

// resolvedClass is an AKSNodeClass with the status the provider resolves:
// images in priority order, each for the sizes its requirements admit.
func resolvedClass() *apis.AKSNodeClass {
	image := func(id, arch, gen string) apis.AKSNodeImage {
		return apis.AKSNodeImage{ID: id, Requirements: []corev1.NodeSelectorRequirement{
			{Key: apis.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{arch}},
			{Key: azure.LabelSKUHyperVGeneration, Operator: corev1.NodeSelectorOpIn, Values: []string{gen}}}}
	}
	return &apis.AKSNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Generation: 3},
		Spec:       apis.AKSNodeClassSpec{ImageFamily: ptr("Ubuntu")},
		Status: apis.AKSNodeClassStatus{KubernetesVersion: ptr("1.33.2"), Images: []apis.AKSNodeImage{
			image(armImage, "arm64", "2"), image(gen2Image, "amd64", "2"), image(gen1Image, "amd64", "1")},
			Conditions: []metav1.Condition{{Type: apis.AKSConditionImagesReady, Status: metav1.ConditionTrue, ObservedGeneration: 3}}},
	}
}

// A claim launched from an AKSNodeClass carries the class's hash at hash
// version v3 and, as its image, the first image the size meets; its node
// runs the class's Kubernetes version.
func TestAzureLaunchedStampsHashImageAndVersion(t *testing.T) {
	nc := resolvedClass()
	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: map[string]string{"keep": "me"}}}
	for size, want := range map[string]string{"Standard_D2als_v6": gen2Image, "Standard_D2pls_v6": armImage} {
		out, kubelet := (&Azure{}).Launched(claim, nc, azureSize(t, size))
		if out.Status.ImageID != want {
			t.Errorf("%s: image %q, want %q", size, out.Status.ImageID, want)
		}
		if kubelet != "v1.33.2" {
			t.Errorf("%s: kubelet %q, want v1.33.2", size, kubelet)
		}
		if out.Annotations[apis.AnnotationAKSNodeClassHash] != drift.AKSNodeClassHash(nc) ||
			out.Annotations[apis.AnnotationAKSNodeClassHashVersion] != drift.AKSNodeClassHashVersion || out.Annotations["keep"] != "me" {
			t.Errorf("%s: annotations %v", size, out.Annotations)
		}
	}
	if len(claim.Annotations) != 1 || claim.Status.ImageID != "" {
		t.Errorf("the caller's claim was modified: %+v", claim)
	}
	// A size no image admits gets none: the provider would fail the launch.
	nc.Status.Images = nc.Status.Images[:1]
	if out, _ := (&Azure{}).Launched(claim, nc, azureSize(t, "Standard_D2als_v6")); out.Status.ImageID != "" {
		t.Errorf("an amd64 size got the arm64 image %q", out.Status.ImageID)
	}
	// Launched and then checked, the claim has not drifted.
	nc = resolvedClass()
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	out, kubelet := (&Azure{}).Launched(drift.Stamp(claim, np, nil), nc, azureSize(t, "Standard_D2als_v6"))
	out.Labels = map[string]string{apis.LabelNodePool: "p"}
	out.Status.ProviderID = "azure:///x"
	out.Status.Conditions = []metav1.Condition{{Type: "Launched", Status: metav1.ConditionTrue}}
	if r := (&Azure{}).Drift(drift.Input{NodeClaim: out, NodePool: np, KubeletVersion: kubelet}, nc); r.Drifted {
		t.Errorf("a claim just launched has drifted: %v", r)
	}
}

// The AWS provider stamps the EC2NodeClass hash and the first AMI, and
// leaves the kubelet version to the AMI.
func TestAWSLaunchedStampsHashAndAMI(t *testing.T) {
	nc := &apis.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	nc.Status.AMIs = []apis.AMI{{ID: "ami-1"}, {ID: "ami-2"}}
	out, kubelet := (&AWS{}).Launched(&apis.NodeClaim{}, nc, nil)
	if out.Status.ImageID != "ami-1" || kubelet != "" || out.Annotations[apis.AnnotationEC2NodeClassHash] != drift.NodeClassHash(nc) {
		t.Errorf("image %q, kubelet %q, annotations %v", out.Status.ImageID, kubelet, out.Annotations)
	}
}

func TestReplacedKeepsWhatTheProviderResolved(t *testing.T) {
	az := &Azure{}
	prev := az.Replaced(nil, resolvedClass()).(*apis.AKSNodeClass)
	prev.Annotations = map[string]string{apis.AnnotationAKSNodeClassHash: "stamped", apis.AnnotationAKSNodeClassHashVersion: drift.AKSNodeClassHashVersion}

	// The same spec, no status: the stamp, images, version and conditions
	// carry over, the conditions observed at the new generation.
	next := &apis.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default", Generation: 4}, Spec: prev.Spec}
	got := az.Replaced(prev, next).(*apis.AKSNodeClass)
	if got.Annotations[apis.AnnotationAKSNodeClassHash] != "stamped" || len(got.Status.Images) != 3 ||
		*got.Status.KubernetesVersion != "1.33.2" || got.Status.Conditions[0].ObservedGeneration != 4 {
		t.Errorf("same spec: %+v", got)
	}
	if next.Status.Images != nil || next.Annotations != nil || prev.Status.Conditions[0].ObservedGeneration != 3 {
		t.Error("Replaced modified its arguments")
	}
	// A hashed field changed: the stamp is dropped, the hash recomputed.
	next.Spec.OSDiskSizeGB = ptr(int32(256))
	got = az.Replaced(prev, next).(*apis.AKSNodeClass)
	if _, ok := got.Annotations[apis.AnnotationAKSNodeClassHash]; ok || drift.AKSNodeClassHashOf(got) == drift.AKSNodeClassHashOf(prev) {
		t.Errorf("spec changed: annotations %v", got.Annotations)
	}
	// A new class with no status resolves the initial image and version.
	got = az.Replaced(nil, &apis.AKSNodeClass{}).(*apis.AKSNodeClass)
	if len(got.Status.Images) != 1 || got.Status.Images[0].ID != AzureInitialImage || *got.Status.KubernetesVersion != AzureInitialKubernetesVersion {
		t.Errorf("new class: %+v", got.Status)
	}
	ec2 := (&AWS{}).Replaced(nil, &apis.EC2NodeClass{}).(*apis.EC2NodeClass)
	if len(ec2.Status.AMIs) != 1 || ec2.Status.AMIs[0].ID != AWSInitialImage {
		t.Errorf("new EC2NodeClass: %+v", ec2.Status.AMIs)
	}
}

func TestReleaseImageAndKubernetesVersion(t *testing.T) {
	az := &Azure{}
	nc := resolvedClass()
	released, err := az.ReleaseImage(nc, "img-2")
	if err != nil {
		t.Fatal(err)
	}
	if imgs := released.(*apis.AKSNodeClass).Status.Images; len(imgs) != 1 || imgs[0].ID != "img-2" || len(nc.Status.Images) != 3 {
		t.Errorf("released %v, the class's own %d images", imgs, len(nc.Status.Images))
	}
	upgraded, err := az.SetKubernetesVersion(nc, "v1.34.0")
	if err != nil || *upgraded.(*apis.AKSNodeClass).Status.KubernetesVersion != "1.34.0" || *nc.Status.KubernetesVersion != "1.33.2" {
		t.Errorf("SetKubernetesVersion: %v", err)
	}
	ec2 := &apis.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := (&AWS{}).SetKubernetesVersion(ec2, "1.34.0"); err == nil || !strings.Contains(err.Error(), "EC2NodeClass default holds no Kubernetes version") {
		t.Errorf("AWS SetKubernetesVersion: %v", err)
	}
	if r, err := (&AWS{}).ReleaseImage(ec2, "ami-2"); err != nil || r.(*apis.EC2NodeClass).Status.AMIs[0].ID != "ami-2" || ec2.Status.AMIs != nil {
		t.Errorf("AWS ReleaseImage: %v", err)
	}
	if _, err := az.ReleaseImage(ec2, "x"); err == nil {
		t.Error("the Azure provider released an image into an EC2NodeClass")
	}
}

func TestOwner(t *testing.T) {
	var p Providers
	if p.Owner(&apis.AKSNodeClass{}).Cloud() != CloudAzure || p.Owner(&apis.EC2NodeClass{}).Cloud() != CloudAWS || p.Owner(nil) != nil {
		t.Error("Owner picks the provider by the class's kind")
	}
}
