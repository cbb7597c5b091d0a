package resources_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/resources"
)

// An init container that needs more than the app decides the pod's request;
// a sidecar adds to both.
func ExamplePodRequests() {
	always := corev1.ContainerRestartPolicyAlways
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{
			{Name: "migrate", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}},
			{Name: "proxy", RestartPolicy: &always, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}},
		},
		Containers: []corev1.Container{
			{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi"),
			}}},
		},
	}}
	requests, err := resources.PodRequests(pod)
	fmt.Println(requests, err)
	allocatable := resources.New(1930, 3055<<20, 29)
	fmt.Println("fits a 2-vCPU node:", requests.Fits(allocatable), requests.Exceeding(allocatable))
	// Output:
	// {"cpu":"2","memory":"1Gi","pods":"1"} <nil>
	// fits a 2-vCPU node: false [cpu]
}
