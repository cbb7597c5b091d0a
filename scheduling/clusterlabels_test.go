package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

func TestClusterLabels(t *testing.T) {
	pool := func(group string, rules *apis.LabelRules) Pool {
		np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
		if group != "" {
			np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: group, Kind: "K", Name: "default"}
		}
		var c instancetypes.Catalog
		if rules != nil {
			it, err := instancetypes.NewInstanceType(instancetypes.Spec{Name: "t", Capacity: resources.New(1000, 1<<30, 10), LabelRules: rules,
				Offerings: []instancetypes.Offering{{Zone: "z", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true}}})
			if err != nil {
				t.Fatal(err)
			}
			c = instancetypes.Catalog{it}
		}
		return Pool{NodePool: np, InstanceTypes: c}
	}
	for name, c := range map[string]struct {
		pools []Pool
		want  *apis.LabelRules
	}{
		"no pool":                      {nil, apis.AWSLabels},
		"an Azure pool without types":  {[]Pool{pool(apis.AzureGroup, nil)}, apis.AzureLabels},
		"Azure types, no nodeClassRef": {[]Pool{pool("", apis.AzureLabels)}, apis.AzureLabels},
		"Azure":                        {[]Pool{pool(apis.AzureGroup, apis.AzureLabels), pool(apis.AzureGroup, nil)}, apis.AzureLabels},
		"AWS":                          {[]Pool{pool(apis.AWSGroup, apis.AWSLabels)}, apis.AWSLabels},
		"both clouds":                  {[]Pool{pool(apis.AzureGroup, apis.AzureLabels), pool(apis.AWSGroup, nil)}, apis.AWSLabels},
		"an AWS ref with Azure types":  {[]Pool{pool(apis.AWSGroup, apis.AzureLabels)}, apis.AWSLabels},
	} {
		if got := clusterLabels(c.pools); got != c.want {
			t.Errorf("%s: %s, want %s", name, got.Domain(), c.want.Domain())
		}
	}
	selecting := func(key string) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{key: "web"}}}
	}
	for _, c := range []struct {
		rules    *apis.LabelRules
		key      string
		refusing bool
	}{
		{apis.AzureLabels, "karpenter.k8s.aws/team", false},
		{apis.AzureLabels, "karpenter.azure.com/team", true},
		{apis.AzureLabels, "karpenter.azure.com/sku-family", false},
		{apis.AWSLabels, "karpenter.k8s.aws/team", true},
		{apis.AWSLabels, "karpenter.azure.com/team", false},
		{apis.AWSLabels, "karpenter.sh/team", true},
		{apis.AzureLabels, "karpenter.sh/team", true},
	} {
		if err := validatePodLabels(selecting(c.key), c.rules); (err != nil) != c.refusing {
			t.Errorf("%s selecting %s: %v", c.rules.Domain(), c.key, err)
		}
	}
}
