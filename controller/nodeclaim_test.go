package controller_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// TestNewNodeClaimIsWhatKarpenterWrites plans pods on a NodePool with
// taints, minValues and template annotations, and checks the NodeClaim the
// launch writes: the fields Karpenter's CRD requires and those Karpenter
// copies from the template and the plan, valid by the CRD's rules, with
// the NodePool left as it was.
func TestNewNodeClaimIsWhatKarpenterWrites(t *testing.T) {
	pool := &apis.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "default", UID: "0d5a1e6c-3b1f-4b7e-9d36-2f6f0b1c9a01"},
		Spec: apis.NodePoolSpec{Template: apis.NodeClaimTemplate{
			ObjectMeta: apis.TemplateMetadata{Annotations: map[string]string{"team": "shop"}},
			Spec: apis.NodeClaimTemplateSpec{
				NodeClassRef:  &apis.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
				Taints:        []corev1.Taint{{Key: "dedicated", Value: "shop", Effect: corev1.TaintEffectNoSchedule}},
				StartupTaints: []corev1.Taint{{Key: "node.cilium.io/agent-not-ready", Effect: corev1.TaintEffectNoExecute}},
				Requirements: []apis.NodeSelectorRequirementWithMinValues{
					{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpIn, Values: []string{"c", "m", "r"}, MinValues: new(2)},
					{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpExists, MinValues: new(5)},
					{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot", "on-demand"}},
				},
			},
		}},
	}
	pool.SetDefaults()
	before := pool.DeepCopy()
	var pods []*corev1.Pod
	for i := range 3 {
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "shop"},
			Spec: corev1.PodSpec{
				Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "shop", Effect: corev1.TaintEffectNoSchedule}},
				Containers: []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")},
				}}},
			},
		})
	}
	catalog := instancetypes.Default()
	res := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: []scheduling.Pool{{NodePool: pool, InstanceTypes: catalog}}})
	require.Len(t, res.NodeClaims, 1, "%+v", res.Unschedulable)
	claim := res.NodeClaims[0]
	it, ok := catalog.Get(claim.InstanceType)
	require.True(t, ok)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	nc, kubelet := controller.NewNodeClaim(claim, claim.LaunchLabels(it, pool), pool, controller.Launch{}, now)
	assert.Empty(t, kubelet, "without a provider the kubelet version is unknown")

	require.NoError(t, nc.Validate(), "the NodeClaim passes the karpenter.sh/v1 CRD's rules")
	assert.Equal(t, apis.GroupV1, nc.APIVersion)
	assert.Equal(t, apis.KindNodeClaim, nc.Kind)
	assert.Equal(t, "shop", nc.Annotations["team"], "template annotations")
	assert.NotEmpty(t, nc.Annotations[apis.AnnotationNodePoolHash], "the NodePool's hash")
	assert.Equal(t, "false", nc.Annotations[apis.AnnotationMinValuesRelaxed], "minValues met: not relaxed")
	assert.Equal(t, pool.Spec.Template.Spec.Taints, nc.Spec.Taints)
	assert.Equal(t, pool.Spec.Template.Spec.StartupTaints, nc.Spec.StartupTaints)
	require.Len(t, nc.OwnerReferences, 1)
	assert.Equal(t, metav1.OwnerReference{APIVersion: "karpenter.sh/v1", Kind: "NodePool", Name: "default",
		UID: pool.UID, BlockOwnerDeletion: new(true)}, nc.OwnerReferences[0])

	byKey := map[string]apis.NodeSelectorRequirementWithMinValues{}
	for _, r := range nc.Spec.Requirements {
		byKey[r.Key] = r
	}
	assert.True(t, slices.IsSortedFunc(nc.Spec.Requirements, func(a, b apis.NodeSelectorRequirementWithMinValues) int {
		return strings.Compare(a.Key, b.Key)
	}), "requirements in key order")
	types := byKey[apis.LabelInstanceType]
	assert.Equal(t, corev1.NodeSelectorOpIn, types.Operator)
	assert.Equal(t, claim.InstanceTypeOptions, types.Values, "the instance types narrowed to the claim's options, cheapest first")
	assert.Contains(t, types.Values, claim.InstanceType)
	require.NotNil(t, types.MinValues)
	assert.Equal(t, 5, *types.MinValues)
	category := byKey["karpenter.k8s.aws/instance-category"]
	require.NotNil(t, category.MinValues, "minValues on the NodePool's keys are kept")
	assert.Equal(t, 2, *category.MinValues)
	assert.Nil(t, byKey[apis.LabelCapacityType].MinValues)
	_, hostname := byKey[apis.LabelHostname]
	assert.False(t, hostname, "no hostname requirement: the CRD restricts it")

	cpu := nc.Spec.Resources.Requests[corev1.ResourceCPU]
	assert.True(t, cpu.Cmp(resource.MustParse("3")) >= 0, "requests hold the pods' 3 CPUs and daemon overhead: %s", cpu.String())
	assert.Equal(t, before, pool, "the NodePool is not changed")

	// Without a UID, an owner reference would be refused by the API server.
	pool.UID = ""
	nc, _ = controller.NewNodeClaim(claim, nil, pool, controller.Launch{}, now)
	assert.Empty(t, nc.OwnerReferences)
}
