package advise_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// defaultPools is karpsim's default NodePool (the seed guide's) with the
// embedded catalog, as plan uses it without manifests.
func defaultPools() []scheduling.Pool {
	set, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	if err != nil {
		panic(err) // embedded
	}
	snap, err := snapshot.FromSet(set, snapshot.Options{})
	if err != nil {
		panic(err)
	}
	return snap.NodePools
}

func pods(n int, prefix, cpu, memory string) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		name := fmt.Sprintf("%s-%d", prefix, i)
		out[i] = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
				CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory),
			}}}}},
		}
	}
	return out
}
