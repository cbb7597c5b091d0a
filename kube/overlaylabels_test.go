package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

// The watcher checks the cluster's NodeOverlays under its NodePools'
// clouds: karpenter.k8s.aws/team is a custom label on Azure, restricted
// on AWS.
func TestCheckOverlayLabelsFollowsTheNodePools(t *testing.T) {
	overlay := &apis.NodeOverlay{ObjectMeta: metav1.ObjectMeta{Name: "team"}}
	overlay.Spec.Requirements = []corev1.NodeSelectorRequirement{{Key: "karpenter.k8s.aws/team", Operator: corev1.NodeSelectorOpIn, Values: []string{"web"}}}
	pool := func(group string) *apis.NodePool {
		np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
		np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: group, Kind: "K", Name: "default"}
		return np
	}
	var errs []error
	if got := checkOverlayLabels([]*apis.NodeOverlay{overlay}, []*apis.NodePool{pool(apis.AzureGroup)}, &errs); len(got) != 1 || len(errs) != 0 {
		t.Errorf("Azure: kept %d, errors %v; want the overlay kept", len(got), errs)
	}
	got := checkOverlayLabels([]*apis.NodeOverlay{overlay}, []*apis.NodePool{pool(apis.AWSGroup)}, &errs)
	if len(got) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "NodeOverlay/team: spec.requirements[0].key") {
		t.Errorf("AWS: kept %d, errors %v; want it refused, naming the field", len(got), errs)
	}
}
