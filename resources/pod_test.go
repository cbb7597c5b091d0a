package resources

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A quantity past MaxAmount is refused, naming the field, instead of
// wrapping around int64 into a small request.
func TestPodRequestsRefuseAbsurdQuantities(t *testing.T) {
	for _, c := range []struct{ name, cpu, memory, want string }{
		{"huge cpu", "1e99999999", "1Gi", "spec.containers[0] (app).resources.requests.cpu: quantity 1e99999999 is more than karpsim reads (2^53 millicores)"},
		{"huge memory", "1", "1e30", "spec.containers[0] (app).resources.requests.memory: quantity 1e30 is more than karpsim reads (2^53 units)"},
		// apimachinery prints this amount as "1".
		{"memory past the largest suffix", "1", "1000000000000000000000", "spec.containers[0] (app).resources.requests.memory: quantity 1e+21 is more than karpsim reads (2^53 units)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c.cpu), corev1.ResourceMemory: resource.MustParse(c.memory)}}}}}}
			_, err := PodRequests(pod)
			if err == nil || err.Error() != c.want {
				t.Fatalf("err = %v, want %s", err, c.want)
			}
		})
	}
	// The largest real nodes are far inside the limit.
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("896"), corev1.ResourceMemory: resource.MustParse("32Ti")}}}}}}
	if _, err := PodRequests(pod); err != nil {
		t.Fatal(err)
	}
	if got := FromList(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1e40")}).CPU(); got != MaxAmount {
		t.Errorf("a node's capacity past the limit reads as %d, want MaxAmount", got)
	}
}
