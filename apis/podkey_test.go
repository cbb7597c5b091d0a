package apis

import (
	"cmp"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestComparePodKeysOrdersAsPodKey checks ComparePodKeys against comparing
// the built keys, on namespaces that are prefixes of each other, empty
// (read as default) and names around '/' in byte order.
func TestComparePodKeysOrdersAsPodKey(t *testing.T) {
	namespaces := []string{"", "a", "a-b", "ab", "default", "defaults", "b", "a0", "a.b"}
	names := []string{"", "x", "x-1", "x.1", "0", "-", ".", "y", "default"}
	rng := rand.New(rand.NewPCG(1, 2))
	pod := func() *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespaces[rng.IntN(len(namespaces))], Name: names[rng.IntN(len(names))]}}
	}
	for range 20000 {
		a, b := pod(), pod()
		if got, want := ComparePodKeys(a, b), cmp.Compare(PodKey(a), PodKey(b)); got != want {
			t.Fatalf("ComparePodKeys(%s, %s) = %d, want %d", PodKey(a), PodKey(b), got, want)
		}
	}
}
