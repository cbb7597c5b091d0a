package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

// limitedType is a type sold on demand in test-zone-1 that attaches at
// most the given number of volumes of each driver.
func limitedType(t *testing.T, name string, cpu int64, price float64, limits map[string]int) *instancetypes.InstanceType {
	t.Helper()
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name: name, Labels: map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux"},
		Capacity: resources.New(cpu*1000, 64<<30, 1000), VolumeAttachmentLimits: limits,
		Offerings: []instancetypes.Offering{{Zone: "test-zone-1", CapacityType: apis.CapacityTypeOnDemand, Price: price, Available: true}},
	})
	require.NoError(t, err)
	return it
}

func catalogOf(t *testing.T, types ...*instancetypes.InstanceType) instancetypes.Catalog {
	t.Helper()
	c, err := instancetypes.NewCatalog(types...)
	require.NoError(t, err)
	return c
}

// ebsClass provisions EBS volumes once a pod is placed.
func ebsClass() *storagev1.StorageClass {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "ebs"}, Provisioner: ebs, VolumeBindingMode: &wait}
}

// claimsOf are n unbound claims of the EBS class, named prefix-i.
func claimsOf(n int, prefix string) []*corev1.PersistentVolumeClaim {
	out := make([]*corev1.PersistentVolumeClaim, n)
	for i := range out {
		out[i] = pvc(fmt.Sprintf("%s-%d", prefix, i), "", "ebs")
	}
	return out
}

// A new claim takes no more volumes than its types attach: 25 pods of one
// volume each, types of ten, make three claims.
func TestNewClaimsKeepToTheirTypesVolumeLimits(t *testing.T) {
	catalog := catalogOf(t, limitedType(t, "ten", 64, 1, map[string]int{ebs: 10}))
	in := Input{NodePools: []Pool{{NodePool: newPool("default"), InstanceTypes: catalog}},
		StorageClasses: []*storagev1.StorageClass{ebsClass()}, PersistentVolumeClaims: claimsOf(25, "data")}
	for i := range 25 {
		in.Pods = append(in.Pods, newPod(fmt.Sprintf("p-%d", i), "100m", "100Mi", withClaim("data", fmt.Sprintf("data-%d", i))))
	}
	r := Solve(in)
	require.Empty(t, r.Unschedulable)
	require.Len(t, r.NodeClaims, 3)
	var placed []int
	for _, c := range r.NodeClaims {
		placed = append(placed, len(c.Pods))
	}
	assert.ElementsMatch(t, []int{10, 10, 5}, placed)

	// A pod sharing a claim with one placed adds no volume.
	in.Pods = append(in.Pods, newPod("sharer", "100m", "100Mi", withClaim("data", "data-0")))
	assert.Len(t, Solve(in).NodeClaims, 3)
}

// A cheaper type whose limit the pod's volumes exceed is left out; a pod
// exceeding every type's limit is unschedulable, and says why; a driver no
// type limits is not limited.
func TestNewClaimsLeaveOutTypesTooFewVolumes(t *testing.T) {
	catalog := catalogOf(t, limitedType(t, "small", 4, 0.1, map[string]int{ebs: 2}), limitedType(t, "large", 64, 1, map[string]int{ebs: 5, "other": 0}))
	in := Input{NodePools: []Pool{{NodePool: newPool("default"), InstanceTypes: catalog}},
		StorageClasses: []*storagev1.StorageClass{ebsClass()}, PersistentVolumeClaims: claimsOf(6, "data")}
	three := newPod("three", "1", "1Gi", withClaim("a", "data-0"), withClaim("b", "data-1"), withClaim("c", "data-2"))
	in.Pods = []*corev1.Pod{three}
	r := Solve(in)
	require.Len(t, r.NodeClaims, 1, "%v", r.Unschedulable)
	assert.Equal(t, "large", r.NodeClaims[0].InstanceType)
	assert.Equal(t, []string{"large"}, r.NodeClaims[0].InstanceTypeOptions)

	six := newPod("six", "1", "1Gi")
	for i := range 6 {
		withClaim(fmt.Sprintf("v%d", i), fmt.Sprintf("data-%d", i))(six)
	}
	in.Pods = []*corev1.Pod{six}
	r = Solve(in)
	require.Len(t, r.Unschedulable, 1)
	assert.Contains(t, r.Unschedulable[0].Reason, "would attach 6 volumes of CSI driver ebs.csi.aws.com, over the limit of every instance type (at most 5)")

	// The same volumes of a driver no type limits go anywhere.
	other := ebsClass()
	other.Name, other.Provisioner = "unlimited", "unlimited.csi"
	in.StorageClasses = append(in.StorageClasses, other)
	for _, c := range in.PersistentVolumeClaims {
		name := "unlimited"
		c.Spec.StorageClassName = &name
	}
	r = Solve(in)
	require.Len(t, r.NodeClaims, 1, "%v", r.Unschedulable)
	assert.Equal(t, "small", r.NodeClaims[0].InstanceType)
}

// An existing node whose CSINode has not published a driver takes its
// instance type's limit for it; one that has keeps its own.
func TestExistingNodesFallBackToTheirTypesVolumeLimits(t *testing.T) {
	catalog := catalogOf(t, limitedType(t, "ten", 64, 1, map[string]int{ebs: 10}))
	node := func(limits map[string]int) *Node {
		n := makeNode("in-flight", "default", false, "64", "64Gi")
		n.Labels[apis.LabelInstanceType] = "ten"
		n.VolumeLimits = limits
		return n
	}
	in := Input{NodePools: []Pool{{NodePool: newPool("default"), InstanceTypes: catalog}},
		StorageClasses: []*storagev1.StorageClass{ebsClass()}, PersistentVolumeClaims: claimsOf(11, "data")}
	for i := range 11 {
		in.Pods = append(in.Pods, newPod(fmt.Sprintf("p-%d", i), "100m", "100Mi", withClaim("data", fmt.Sprintf("data-%d", i))))
	}
	in.Nodes = []*Node{node(nil)}
	r := Solve(in)
	assert.Len(t, r.Bindings, 10)
	assert.Len(t, r.NodeClaims, 1)

	in.Nodes = []*Node{node(map[string]int{ebs: 20})}
	r = Solve(in)
	assert.Len(t, r.Bindings, 11, "the CSINode's limit wins")
	assert.Empty(t, r.NodeClaims)

	// A node of a NodePool being deleted has no type to fall back to.
	deleting := newPool("default")
	deleting.DeletionTimestamp = &metav1.Time{}
	in.NodePools[0].NodePool = deleting
	in.Nodes = []*Node{node(nil)}
	assert.Len(t, Solve(in).Bindings, 11)

	// Prepared solves fall back the same way.
	in.NodePools[0].NodePool = newPool("default")
	prep := Prepare(in.NodePools, nil, Options{})
	assert.Len(t, prep.Solve(Input{Pods: in.Pods, Nodes: in.Nodes, StorageClasses: in.StorageClasses, PersistentVolumeClaims: in.PersistentVolumeClaims}).Bindings, 10)
}

// volumeLimitsClaimCase is the claim check's case: a pod with two EBS
// volumes on a claim whose only type attaches one.
func volumeLimitsClaimCase(t *testing.T) checkCase {
	catalog := catalogOf(t, limitedType(t, "one", 4, 1, map[string]int{ebs: 1}))
	return checkCase{in: Input{Pods: []*corev1.Pod{newPod("web", "1", "1Gi", withClaim("a", "data-0"), withClaim("b", "data-1"))},
		NodePools:      []Pool{{NodePool: newPool("default"), InstanceTypes: catalog}},
		StorageClasses: []*storagev1.StorageClass{ebsClass()}, PersistentVolumeClaims: claimsOf(2, "data")},
		pod: "default/web", reason: "over the limit of every instance type (at most 1)"}
}
