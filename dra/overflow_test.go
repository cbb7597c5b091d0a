package dra

import (
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/resources"
)

// A pod's device counts are summed over its claims' requests: two
// requests of 2^62 and MaxInt64 devices sum past 2^63, which wrapped into
// a negative request that fit any node. They saturate, a request no node
// has (and PodRequests refuses as past resources.MaxAmount).
func TestDeviceCountsPast2To63Saturate(t *testing.T) {
	o := objects()
	spec := &o.ResourceClaimTemplates[0].Spec.Spec.Devices
	spec.Requests[0].Exactly.Count = 1 << 62
	second := spec.Requests[0]
	second.Name = "more"
	more := *second.Exactly
	more.Count = math.MaxInt64
	second.Exactly = &more
	spec.Requests = append(spec.Requests, second)
	tr, problems := New(o)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	two := "two"
	pod, err := tr.Pod(claimPod("c", corev1.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: &two}))
	if err != nil {
		t.Fatal(err)
	}
	q := pod.Spec.Containers[0].Resources.Requests[ResourceDevices]
	if q.Value() != resources.Saturated {
		t.Fatalf("devices requested: %s, want 2^62", q.String())
	}
	if _, err := resources.PodRequests(pod); err == nil {
		t.Errorf("PodRequests read a request of %s devices", q.String())
	}
}
