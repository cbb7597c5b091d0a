package resources

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// FuzzQuantity reads arbitrary quantity text the way karpsim reads
// untrusted quantities (ParseQuantity), then as a pod's requests, limits
// and overhead (PodRequests). Refusals name the field; an accepted
// quantity prints back to an equal one; a request is read exactly (cpu in
// millicores rounded up, the rest in units rounded up) or refused as past
// MaxAmount or negative, naming the container and resource; the sum of two
// containers is their sum; the pod is left unchanged and the answer is the
// same twice. Every input is done in well under a second: a huge exponent
// is refused, not rounded for minutes.
func FuzzQuantity(f *testing.F) {
	for _, s := range []string{"500m", "2", "1Gi", "1.5", "0", "-1", "1e3", "1E-3", "1Ei", "1e-99999999", "1e99999999",
		"9007199254740992", "9007199254740993m", "9007199254740.992", "0.0000001", "1e-30", "1e+30", "12Ki", ".5", "1E", "+1"} {
		f.Add(s, "256Mi", "nvidia.com/gpu")
	}
	f.Add("1", "1e-99999999", "hugepages-2Mi")
	f.Add("100m", "8Ei", "ephemeral-storage")
	f.Fuzz(func(t *testing.T, cpuText, memoryText, extended string) {
		start := time.Now()
		defer func() {
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("%q, %q took %v", cpuText, memoryText, took)
			}
		}()
		cpu, cpuErr := ParseQuantity("cpu", cpuText)
		memory, memErr := ParseQuantity("memory", memoryText)
		if cpuErr != nil && !strings.HasPrefix(cpuErr.Error(), "cpu: ") {
			t.Fatalf("error does not name the field: %v", cpuErr)
		}
		if cpuErr != nil || memErr != nil {
			return
		}
		for i, q := range []resource.Quantity{cpu, memory} {
			// apimachinery prints some amounts past its largest suffix
			// wrongly; messages print them with quantityText.
			text := []string{cpuText, memoryText}[i]
			if again, err := ParseQuantity("again", q.String()); err != nil || (again.Cmp(q) != 0 && quantityText(q) == q.String()) {
				t.Fatalf("%q prints as %q, which reads back as %v (%v)", text, q.String(), again.String(), err)
			}
			if f, err := strconv.ParseFloat(quantityText(q), 64); err == nil && math.Abs(f-q.AsApproximateFloat64()) > 1e-5*math.Abs(f) {
				t.Fatalf("%q prints as %q in messages", text, quantityText(q))
			}
		}
		name := corev1.ResourceName(extended)
		if _, isSlot := Slot(name); isSlot || extended == "" {
			name = "example.com/device"
		}
		container := func() corev1.Container {
			return corev1.Container{Name: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: cpu.DeepCopy()},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: memory.DeepCopy(), name: cpu.DeepCopy()},
			}}
		}
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container()}}}
		before := pod.DeepCopy()
		one, err := PodRequests(pod)
		again, err2 := PodRequests(pod)
		if one.String() != again.String() || (err == nil) != (err2 == nil) {
			t.Fatalf("two answers: %v (%v) and %v (%v)", one, err, again, err2)
		}
		if !reflect.DeepEqual(pod, before) {
			t.Fatal("PodRequests changed the pod")
		}
		negative := cpu.Sign() < 0 || memory.Sign() < 0
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "spec.containers[0] (app).resources.requests.") {
				t.Fatalf("error does not name the container: %v", err)
			}
			// The first bad resource by name is reported: negative, or
			// past MaxAmount.
			if !strings.Contains(msg, ": negative quantity ") && !strings.Contains(msg, " is more than karpsim reads (2^53 ") {
				t.Fatalf("cpu %s, memory %s: %v", cpu.String(), memory.String(), err)
			}
			if !negative && strings.Contains(msg, "negative") {
				t.Fatalf("cpu %s, memory %s: %v", cpu.String(), memory.String(), err)
			}
			return
		}
		if negative {
			t.Fatalf("negative cpu %s or memory %s read as %v", cpu.String(), memory.String(), one)
		}
		if one.CPU() != cpu.MilliValue() || one.Memory() != memory.Value() || one.Get(name) != cpu.Value() || one.Pods() != 1 {
			t.Fatalf("cpu %s, memory %s read as %v", cpu.String(), memory.String(), one)
		}
		for _, v := range []int64{one.CPU(), one.Memory(), one.Get(name)} {
			if v > MaxAmount {
				t.Fatalf("%v: an amount past MaxAmount was read", one)
			}
		}
		if q := one.Quantity(corev1.ResourceCPU); q.MilliValue() != one.CPU() {
			t.Fatalf("cpu %d millicores prints as %s", one.CPU(), q.String())
		}
		pod.Spec.Containers = append(pod.Spec.Containers, container())
		pod.Spec.Overhead = corev1.ResourceList{corev1.ResourceMemory: memory.DeepCopy()}
		two, err := PodRequests(pod)
		if err != nil {
			t.Fatalf("two containers and overhead of what one reads as %v: %v", one, err)
		}
		if two.CPU() != 2*one.CPU() || two.Memory() != 3*one.Memory() || two.Pods() != 1 {
			t.Fatalf("one container reads as %v, two and overhead as %v", one, two)
		}
	})
}
