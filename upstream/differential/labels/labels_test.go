// Package labels holds karpsim's AWS label rules against what Karpenter
// v1.15.0 and the AWS provider v1.15.0 register when the provider starts:
// the well-known labels, and which NodePool requirement keys are refused.
package labels

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	// The provider registers its labels with Karpenter's when imported.
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"

	"github.com/karpsim/karpsim/apis"
)

func TestAWSWellKnownLabelsMatchTheProviders(t *testing.T) {
	_ = awsv1.LabelInstanceFamily
	want := sets.List(karpv1.WellKnownLabels)
	got := apis.AWSLabels.WellKnownLabels()
	if !slices.Equal(got, want) {
		t.Errorf("well-known labels differ\n only karpsim's: %v\n only upstream's: %v",
			sets.List(sets.New(got...).Difference(karpv1.WellKnownLabels)), sets.List(karpv1.WellKnownLabels.Difference(sets.New(got...))))
	}
	keys := slices.Concat(want, []string{
		"karpenter.k8s.aws/team", "karpenter.k8s.aws/nitro-sandbox", "sub.karpenter.k8s.aws/x", "karpenter.sh/team",
		"sub.karpenter.sh/x", "karpenter.azure.com/team", "kubernetes.azure.com/x", "kubernetes.io/hostname",
		"kubernetes.io/team", "node.kubernetes.io/x", "k8s.io/x", "example.com/team", "team",
	})
	for _, key := range keys {
		if got, want := apis.AWSLabels.IsRestrictedLabel(key), karpv1.IsRestrictedLabel(key) != nil; got != want {
			t.Errorf("%s: karpsim restricts it %v, Karpenter with the AWS provider %v", key, got, want)
		}
	}
}
