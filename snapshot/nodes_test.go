package snapshot

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

// A node reporting more allocatable than capacity is read with its
// capacity, resource by resource, with a warning naming the node; what it
// reports within its capacity is kept, and the given Node is not changed.
func TestAllocatableIsClampedToCapacity(t *testing.T) {
	set := decode(t, `apiVersion: v1
kind: Node
metadata: {name: liar, labels: {node.kubernetes.io/instance-type: m5.large}}
status:
  capacity: {cpu: "2", memory: 8Gi, pods: "29"}
  allocatable: {cpu: "64", memory: 7Gi, pods: "110", example.com/widget: "3"}
  conditions: [{type: Ready, status: "True"}]`)
	s, err := FromSet(set, Options{})
	assert.NoError(t, err)
	n := s.Nodes[0]
	for name, want := range map[corev1.ResourceName]string{corev1.ResourceCPU: "2", corev1.ResourceMemory: "7Gi", corev1.ResourcePods: "29", "example.com/widget": "3"} {
		q := n.Allocatable[name]
		assert.Equal(t, want, q.String(), name)
	}
	warnings := strings.Join(s.Warnings, "\n")
	assert.Contains(t, warnings, "Node/liar: status.allocatable.cpu 64 is more than status.capacity.cpu 2: karpsim uses the capacity")
	assert.Contains(t, warnings, "Node/liar: status.allocatable.pods 110 is more than status.capacity.pods 29: karpsim uses the capacity")
	assert.NotContains(t, warnings, "memory")
	given := set.Nodes[0].Status.Allocatable[corev1.ResourceCPU]
	assert.Equal(t, "64", given.String(), "the given Node was changed")
}
