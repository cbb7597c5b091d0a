package conformance

import (
	"fmt"
	"slices"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Upstream's consolidation spec with a cluster-wide device shared by
// capacity: consolidating a candidate gives back its pod's share only,
// which its claim then takes again where the pod lands. The cluster comes
// in as YAML through snapshot.ForDisruption with DRA on, as `karpsim
// disrupt --dra` reads it, and the view's allocator places the claims.

const draSharedCapacitySlice = `---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: shared-gpu-pool}
spec:
  driver: gpu.nvidia.com
  allNodes: true
  pool: {name: shared-gpu-pool, generation: 1, resourceSliceCount: 1}
  devices:
    - name: shared-gpu-0
      allowMultipleAllocations: true
      capacity: {memory: {value: 16Gi}}
`

// draSharedClaim is a claim allocated memory of shared-gpu-0, reserved
// for pod.
func draSharedClaim(name, memory, pod string) string {
	return fmt.Sprintf(`---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: %[1]s, namespace: default}
spec:
  devices:
    requests: [{name: req, exactly: {deviceClassName: gpu, allocationMode: ExactCount, count: 1, capacity: {requests: {memory: %[2]s}}}}]
status:
  allocation:
    devices:
      results: [{request: req, driver: gpu.nvidia.com, pool: shared-gpu-pool, device: shared-gpu-0, consumedCapacity: {memory: %[2]s}}]
  reservedFor: [{resource: pods, name: %[3]s, uid: uid-%[3]s}]
`, name, memory, pod)
}

// candidateSharingDevice evaluates consolidation with the live pod holding
// live of the shared device and the candidate's pod 10Gi, and reports
// whether the candidate is deleted.
func candidateSharingDevice(t *T, live string) (bool, string) {
	t.Helper()
	doc := fmt.Sprintf(draDisruptHead, "m5.large, m5.xlarge") + draSharedCapacitySlice +
		draPlainNode("live", "", true) + draSharedClaim("live-claim", live, "live-pod") +
		draPlainNode("candidate", "candidate-claim", false) + draSharedClaim("candidate-claim", "10Gi", "candidate-pod")
	set, err := manifests.Decode("consolidation-dra-shared.yaml", []byte(doc))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	d, err := snapshot.ForDisruption(set, snapshot.Options{DRA: true}, draNow)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	dec := consolidation.Evaluate(d.Cluster, draNow, consolidation.Options{Scheduling: scheduling.Options{DRA: d.DRA, Devices: d.Devices()}})
	return slices.ContainsFunc(dec.Commands, func(c consolidation.Command) bool { return slices.Contains(c.Delete, "node-candidate") }), describeDecision(dec)
}

var _ = register("consolidation-dra",
	conformanceCase{Name: "shared-device-candidate-share-reclaimed", Run: func(t *T) {
		// 16Gi: the live pod's 4Gi stays, the candidate's 10Gi is given
		// back and taken again where its pod lands. No type has a GPU of
		// its own: the shared device is the only one.
		if deleted, dec := candidateSharingDevice(t, "4Gi"); !deleted {
			t.Fatalf("the candidate's pod could not take its 10Gi share again beside the live 4Gi: %s", dec)
		}
		// Control: with 8Gi live, 10Gi no longer fits: the pod has nowhere
		// to go and the candidate stays.
		if deleted, dec := candidateSharingDevice(t, "8Gi"); deleted {
			t.Fatalf("the candidate was consolidated though its pod's 10Gi share fits nowhere beside 8Gi: %s", dec)
		}
	}},
)
