package apis

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The AWS provider v1.15.0 registers the interruptible reservation and
// placement group labels as well known, and no longer the nitro-sandbox
// label: a NodePool may require the first three, not the last.
func TestAWSWellKnownLabelsOfV115(t *testing.T) {
	for key, allowed := range map[string]bool{
		LabelCapacityReservationInterruptible: true,
		LabelPlacementGroupID:                 true,
		LabelPlacementGroupPartition:          true,
		AWSGroup + "/nitro-sandbox":           false,
	} {
		if AWSLabels.IsWellKnown(key) != allowed {
			t.Errorf("%s well known: %v, want %v", key, !allowed, allowed)
		}
		np := &NodePool{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
		np.Spec.Template.Spec.NodeClassRef = &NodeClassReference{Group: AWSGroup, Kind: KindEC2NodeClass, Name: "default"}
		np.Spec.Template.Spec.Requirements = []NodeSelectorRequirementWithMinValues{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}}
		np.SetDefaults()
		err := np.Validate()
		if (err == nil) != allowed || err != nil && !strings.Contains(err.Error(), "is restricted") {
			t.Errorf("a NodePool requiring %s: %v, want allowed %v", key, err, allowed)
		}
		// On Azure the karpenter.k8s.aws domain is an ordinary one.
		if AzureLabels.IsRestrictedLabel(key) {
			t.Errorf("%s is restricted on Azure", key)
		}
	}
}
