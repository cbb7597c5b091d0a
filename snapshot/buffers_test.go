package snapshot

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
)

func chunkOf(cpu, memory string) BufferChunk {
	return BufferChunk{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}},
	}}}}}
}

func ptr[T any](v T) *T { return &v }

// TestBufferReplicas holds the count to Karpenter's buffer controller:
// the larger of replicas and percentage, capped by limits; limits alone
// give as many chunks as fit.
func TestBufferReplicas(t *testing.T) {
	scalable := &apis.BufferScalableRef{APIGroup: "apps", Kind: "Deployment", Name: "web"}
	limits := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5"), corev1.ResourceMemory: resource.MustParse("16Gi")}
	for _, tc := range []struct {
		name     string
		spec     apis.CapacityBufferSpec
		replicas int32
		want     int32
	}{
		{"replicas only", apis.CapacityBufferSpec{ScalableRef: scalable, Replicas: ptr(int32(4))}, 10, 4},
		{"percentage rounds up", apis.CapacityBufferSpec{ScalableRef: scalable, Percentage: ptr(int32(25))}, 10, 3},
		{"a small percentage is one chunk", apis.CapacityBufferSpec{ScalableRef: scalable, Percentage: ptr(int32(1))}, 3, 1},
		{"the larger of replicas and percentage", apis.CapacityBufferSpec{ScalableRef: scalable, Percentage: ptr(int32(50)), Replicas: ptr(int32(2))}, 10, 5},
		{"limits cap them", apis.CapacityBufferSpec{ScalableRef: scalable, Replicas: ptr(int32(9)), Limits: limits}, 10, 2},
		{"limits alone fill up", apis.CapacityBufferSpec{PodTemplateRef: &apis.BufferObjectRef{Name: "t"}, Limits: limits}, 0, 2},
		{"limits naming nothing requested do not count", apis.CapacityBufferSpec{ScalableRef: scalable, Replicas: ptr(int32(3)),
			Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}}, 10, 3},
		{"nothing asked, nothing kept", apis.CapacityBufferSpec{ScalableRef: scalable}, 10, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunk := chunkOf("2", "4Gi")
			chunk.ScalableReplicas = tc.replicas
			b := &apis.CapacityBuffer{Spec: tc.spec}
			if got := BufferReplicas(b, chunk); got != tc.want {
				t.Errorf("BufferReplicas = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestBufferPodsAreVirtual checks what every other package relies on: the
// pods are marked, pending, at the lowest priority, without claim-backed
// volumes, and the template is left as it was.
func TestBufferPodsAreVirtual(t *testing.T) {
	chunk := chunkOf("1", "1Gi")
	chunk.Template.Labels = map[string]string{"app": "web"}
	chunk.Template.Spec.NodeName = "somewhere"
	chunk.Template.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}, {Name: "tmp"}}
	chunk.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data"}, {Name: "tmp"}}
	b := &apis.CapacityBuffer{Spec: apis.CapacityBufferSpec{PodTemplateRef: &apis.BufferObjectRef{Name: "t"}, Replicas: ptr(int32(2))}}
	b.Name = "web"
	pods := BufferPods(b, chunk, time.Unix(0, 0))
	if len(pods) != 2 {
		t.Fatalf("%d pods, want 2", len(pods))
	}
	p := pods[1]
	switch {
	case apis.PodKey(p) != "default/capacity-buffer-web-2":
		t.Errorf("key %s", apis.PodKey(p))
	case !apis.IsBufferPod(p) || apis.BufferOf(p) != "default/web":
		t.Errorf("not marked as a buffer's: %v", p.Annotations)
	case p.Spec.NodeName != "" || *p.Spec.Priority >= 0:
		t.Errorf("node %q, priority %d", p.Spec.NodeName, *p.Spec.Priority)
	case len(p.Spec.Volumes) != 1 || len(p.Spec.Containers[0].VolumeMounts) != 1 || p.Labels["app"] != "web":
		t.Errorf("volumes %v, mounts %v, labels %v", p.Spec.Volumes, p.Spec.Containers[0].VolumeMounts, p.Labels)
	}
	if len(chunk.Template.Spec.Volumes) != 2 || chunk.Template.Spec.NodeName != "somewhere" {
		t.Error("the template was changed")
	}
	pods[0].Labels["app"] = "changed"
	if chunk.Template.Labels["app"] != "web" || pods[1].Labels["app"] != "web" {
		t.Error("the pods share labels with the template or each other")
	}
}

// TestBufferReferencesAreChecked: a buffer naming an object that is not
// given is refused, naming the file, the buffer and the field.
func TestBufferReferencesAreChecked(t *testing.T) {
	_, err := manifests.Decode("buffers.yaml", []byte(`apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: b, namespace: team}
spec:
  scalableRef: {apiGroup: apps, kind: Deployment, name: web}
  replicas: 2
---
apiVersion: autoscaling.x-k8s.io/v1alpha1
kind: CapacityBuffer
metadata: {name: c}
spec:
  podTemplateRef: {name: t}
  percentage: -1
`))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"buffers.yaml: CapacityBuffer/team/b: spec.scalableRef.name: no Deployment team/web was given",
		"CapacityBuffer/c: spec: with podTemplateRef, replicas or limits must be set",
		"CapacityBuffer/c: spec.percentage: applies only with scalableRef",
		"CapacityBuffer/c: spec.percentage: -1: must be at least 0",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
}
