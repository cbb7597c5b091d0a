package conformance

import (
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// Kubelet expressions (the AWS provider's NodeClassCEL gate): maxPods,
// kubeReserved and systemReserved given as expressions over the instance
// type, evaluated per type by instancetypes.NewAWS.

var celOn = instancetypes.AWSOptions{NodeClassCEL: true}

// maxPodsExpr is a kubelet configuration whose maxPods is an expression.
func maxPodsExpr(expr string) *apis.KubeletConfiguration {
	v := intstr.FromString(expr)
	return &apis.KubeletConfiguration{MaxPods: &v}
}

// maxPodsFails checks that the expression fails the catalog's resolution.
func maxPodsFails(expr string) func(t *T) {
	return func(t *T) {
		opts := celOn
		opts.NodeClass = awsNodeClass("al2023@latest", maxPodsExpr(expr))
		c, err := instancetypes.NewAWS(instancetypes.EmbeddedFacts(), opts)
		require.ErrorContains(t, err, "resolving maxPods")
		require.Nil(t, c)
	}
}

var _ = register("aws-kubelet-expr",
	conformanceCase{Name: "max-pods-negative", Run: maxPodsFails("0 - 1")},
	conformanceCase{Name: "max-pods-above-int32", Run: maxPodsFails(strconv.FormatInt(math.MaxInt32, 10) + " + 1")},
	conformanceCase{Name: "max-pods-divide-by-zero", Run: maxPodsFails("1 / (vcpus - vcpus)")},
	conformanceCase{Name: "max-pods-in-range", Run: func(t *T) {
		it := awsType(t, awsNodeClass("al2023@latest", maxPodsExpr("min(110, vcpus * 8)")), celOn, "m5.large")
		require.Equal(t, int64(16), it.Capacity.Pods())
	}},
	conformanceCase{Name: "max-pods-gate-off", Run: func(t *T) {
		it := awsType(t, awsNodeClass("al2023@latest", maxPodsExpr("7")), instancetypes.AWSOptions{}, "t3.large")
		require.Equal(t, int64(35), it.Capacity.Pods())
	}},
	conformanceCase{Name: "kube-reserved", Run: func(t *T) {
		k := &apis.KubeletConfiguration{KubeReserved: map[string]string{
			"cpu": "vcpus * 30", "memory": "memory_mib / 100", "ephemeral-storage": "3Gi"}}
		it := awsType(t, awsNodeClass("al2023@latest", k), celOn, "m5.large")
		equalQuantity(t, "60", it.Overhead.KubeReserved.CPU(), "cpu (millicores)")
		equalQuantity(t, "96Mi", it.Overhead.KubeReserved.Memory(), "memory")
		equalQuantity(t, "3Gi", it.Overhead.KubeReserved.Get(corev1.ResourceEphemeralStorage), "ephemeral storage")
	}},
	conformanceCase{Name: "kube-reserved-max-pods", Run: func(t *T) {
		k := maxPodsExpr("min(110, vcpus * 8)")
		k.KubeReserved = map[string]string{"memory": "max_pods * 11"}
		it := awsType(t, awsNodeClass("al2023@latest", k), celOn, "m5.large")
		require.Equal(t, int64(16), it.Capacity.Pods())
		equalQuantity(t, "176Mi", it.Overhead.KubeReserved.Memory(), "memory")
	}},
	conformanceCase{Name: "system-reserved", Run: func(t *T) {
		k := &apis.KubeletConfiguration{SystemReserved: map[string]string{"cpu": "vcpus * 30", "memory": "memory_mib / 100"}}
		it := awsType(t, awsNodeClass("al2023@latest", k), celOn, "m5.large")
		equalQuantity(t, "60", it.Overhead.SystemReserved.CPU(), "cpu (millicores)")
		equalQuantity(t, "96Mi", it.Overhead.SystemReserved.Memory(), "memory")
	}},
)
