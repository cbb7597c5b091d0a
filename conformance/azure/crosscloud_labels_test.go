package azure

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// One provider runs in a cluster and registers its own label domain and
// well-known labels: on Azure, karpenter.k8s.aws keys are custom labels
// (the Azure provider's NodePool CRD and runtime validation accept them,
// and no VM size defines them), and on AWS karpenter.azure.com keys are.
// Not an upstream spec: the cross-cloud reading of both providers' label
// registrations (Azure v1.14.2 apis/v1beta1 labels and NodePool CRD, AWS
// v1.15.0 apis/v1 labels and NodePool CRD).
func TestCrossCloudLabels(t *testing.T) {
	azureCatalog, err := azure.Catalog(fakeRegion, azure.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	awsCatalog := instancetypes.Default()
	awsPool := func(reqs ...requirement) *apis.NodePool {
		np := nodePool(reqs...)
		np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: apis.KindEC2NodeClass, Name: "default"}
		return np
	}
	withLabel := func(np *apis.NodePool, k, v string) *apis.NodePool {
		np.Spec.Template.ObjectMeta.Labels = map[string]string{k: v}
		return np
	}
	// plan validates the pool as the API server would, then provisions the
	// pods and returns the labels of the node each lands on (nil for a pod
	// placed nowhere) and the reasons of the unschedulable ones.
	plan := func(t *testing.T, np *apis.NodePool, c instancetypes.Catalog, pods ...*corev1.Pod) ([]map[string]string, map[string]string) {
		t.Helper()
		if np.Spec.Template.Spec.Requirements == nil {
			np.Spec.Template.Spec.Requirements = []requirement{}
		}
		if err := np.Validate(); err != nil {
			t.Fatalf("the NodePool is refused: %v", err)
		}
		res := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: []scheduling.Pool{{NodePool: np, InstanceTypes: c}}})
		out := make([]map[string]string, len(pods))
		for i, p := range pods {
			for _, claim := range res.NodeClaims {
				if slices.Contains(claim.Pods, apis.PodKey(p)) {
					it := c[slices.IndexFunc(c, func(it *instancetypes.InstanceType) bool { return it.Name == claim.InstanceType })]
					out[i] = claim.LaunchLabels(it, np)
				}
			}
		}
		reasons := map[string]string{}
		for _, u := range res.Unschedulable {
			reasons[u.Pod] = u.Reason
		}
		return out, reasons
	}

	t.Run("azure/template-label", func(t *testing.T) {
		np := withLabel(nodePool(), "karpenter.k8s.aws/team", "web")
		got, reasons := plan(t, np, azureCatalog, pendingPod("web", selecting("karpenter.k8s.aws/team", "web")))
		if got[0] == nil {
			t.Fatalf("not placed: %v", reasons)
		}
		if got[0]["karpenter.k8s.aws/team"] != "web" || got[0][azure.LabelSKUName] == "" {
			t.Errorf("node labels %v", got[0])
		}
	})
	t.Run("azure/instance-family-requirement", func(t *testing.T) {
		np := nodePool(in(apis.LabelInstanceFamily, "m5"))
		got, reasons := plan(t, np, azureCatalog, pendingPod("app", requesting(corev1.ResourceCPU, "1")))
		if got[0] == nil {
			t.Fatalf("not placed: no VM size defines the custom label, so the NodePool's requirement is satisfied by its label: %v", reasons)
		}
		if got[0][apis.LabelInstanceFamily] != "m5" {
			t.Errorf("node labels %v, want the requirement's value", got[0])
		}
	})
	t.Run("azure/pod-selecting-undefined-aws-key", func(t *testing.T) {
		// Not well known on Azure: a claim must define it, and no NodePool
		// label or VM size does.
		got, reasons := plan(t, nodePool(), azureCatalog, pendingPod("app", selecting(apis.LabelInstanceFamily, "m5")))
		if got[0] != nil || !strings.Contains(reasons["default/app"], `"karpenter.k8s.aws/instance-family" does not have known values`) {
			t.Errorf("placed on %v, reasons %v", got[0], reasons)
		}
	})
	t.Run("azure/pod-selecting-restricted-azure-key", func(t *testing.T) {
		got, reasons := plan(t, nodePool(), azureCatalog, pendingPod("app", selecting("karpenter.azure.com/team", "web")))
		if got[0] != nil || !strings.Contains(reasons["default/app"], `restricted label "karpenter.azure.com/team"`) {
			t.Errorf("placed on %v, reasons %v", got[0], reasons)
		}
	})
	t.Run("aws/template-label-refused", func(t *testing.T) {
		refused := withLabel(awsPool(), "karpenter.k8s.aws/team", "web")
		refused.Spec.Template.Spec.Requirements = []requirement{}
		err := refused.Validate()
		if err == nil || !strings.Contains(err.Error(), `"karpenter.k8s.aws/team" is restricted`) {
			t.Errorf("%v, want the label refused", err)
		}
		_, reasons := plan(t, awsPool(), awsCatalog, pendingPod("app", selecting("karpenter.k8s.aws/team", "web")))
		if !strings.Contains(reasons["default/app"], `restricted label "karpenter.k8s.aws/team"`) {
			t.Errorf("reasons %v, want the pod refused", reasons)
		}
	})
	t.Run("aws/instance-family-requirement", func(t *testing.T) {
		got, reasons := plan(t, awsPool(in(apis.LabelInstanceFamily, "m5")), awsCatalog, pendingPod("app", requesting(corev1.ResourceCPU, "1")))
		if got[0] == nil || !strings.HasPrefix(got[0][apis.LabelInstanceType], "m5.") {
			t.Errorf("placed on %v, reasons %v, want an m5", got[0], reasons)
		}
	})
	t.Run("aws/azure-key-is-custom", func(t *testing.T) {
		np := withLabel(awsPool(), "karpenter.azure.com/team", "web")
		got, reasons := plan(t, np, awsCatalog, pendingPod("web", selecting("karpenter.azure.com/team", "web")))
		if got[0] == nil || got[0]["karpenter.azure.com/team"] != "web" {
			t.Errorf("placed on %v, reasons %v", got[0], reasons)
		}
		got, _ = plan(t, awsPool(), awsCatalog, pendingPod("app", selecting("karpenter.azure.com/sku-family", "D")))
		if got[0] != nil {
			t.Errorf("a pod selecting an Azure label no EC2 type defines is placed on %v", got[0])
		}
	})
}
