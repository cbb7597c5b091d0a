package controller_test

import (
	"strings"
	"testing"
	"time"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/controller/hosttest"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/provider"
)

const azurePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements:
      - {key: karpenter.azure.com/sku-family, operator: In, values: [D]}
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.azure.com/v1beta1
kind: AKSNodeClass
metadata: {name: default}
spec: {imageFamily: Ubuntu}
status:
  images:
  - id: /CommunityGalleries/AKSUbuntu-x/images/2204gen2containerd/versions/202511.01.0
`

// newAzureWorld is newWorld on Azure: a NodePool of an AKSNodeClass, and
// an in-memory cloud selling the class's VM sizes.
func newAzureWorld(t *testing.T, pods int) *world {
	t.Helper()
	w := &world{t: t, clock: cloud.NewManualClock(t0), cluster: &cloud.MemoryCluster{}}
	set, err := manifests.Decode("azure", []byte(azurePool))
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := (&provider.Azure{}).Catalog(set.AKSNodeClasses[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.cloud, err = cloud.NewMemory(cloud.MemoryConfig{Clock: w.clock, Catalog: catalog, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []any{set.NodePools[0], set.AKSNodeClasses[0]} {
		if err := w.cluster.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	w.host = hosttest.New(w.cluster, hosttest.Config{Instances: w.cloud.Instances})
	w.addPods(pods)
	w.runner, err = controller.NewRunner(controller.RunnerConfig{Watcher: w.cluster, Writer: w.cluster, Launcher: w.cloud,
		Clock: w.clock, Record: func(d controller.Decision) { w.log = append(w.log, d) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.runner.Close)
	return w
}

// launchedOnAzure is newAzureWorld two minutes on, with the one NodeClaim
// it launched for its three pods.
func launchedOnAzure(t *testing.T) (*world, *apis.NodeClaim) {
	t.Helper()
	w := newAzureWorld(t, 3)
	w.run(2 * time.Minute)
	st := w.cluster.Snapshot()
	if len(st.NodeClaims) != 1 {
		t.Fatalf("%d NodeClaims: %s", len(st.NodeClaims), w.kinds())
	}
	return w, st.NodeClaims[0]
}

// On a live cluster the runner stamps its NodeClaims as the Azure provider
// does (AKSNodeClass hash, the class's node image), and a new node image
// in the AKSNodeClass's status drifts the node, which is replaced.
func TestRunnerReplacesAzureNodesOnANewNodeImage(t *testing.T) {
	w, claim := launchedOnAzure(t)
	if claim.Annotations[apis.AnnotationAKSNodeClassHash] == "" || !strings.HasSuffix(claim.Status.ImageID, "/versions/202511.01.0") {
		t.Fatalf("the NodeClaim is not stamped as the Azure provider stamps it: annotations %v, image %q", claim.Annotations, claim.Status.ImageID)
	}
	nc := w.cluster.Snapshot().AKSNodeClasses[0]
	nc.Status.Images[0].ID = "/CommunityGalleries/AKSUbuntu-x/images/2204gen2containerd/versions/202512.04.0"
	if err := w.cluster.Apply(nc); err != nil {
		t.Fatal(err)
	}
	w.run(3 * time.Minute)
	if got := w.kinds(); !strings.HasPrefix(got, "launch ready drifted launch ready replace") {
		t.Fatalf("decisions: %s", got)
	}
	if d := w.log[2]; !strings.HasPrefix(d.Reason, "ImageDrift") {
		t.Errorf("drift %+v", d)
	}
	st := w.cluster.Snapshot()
	if len(st.NodeClaims) != 1 || !strings.HasSuffix(st.NodeClaims[0].Status.ImageID, "/versions/202512.04.0") {
		t.Errorf("the replacement does not run the new image: %+v", st.NodeClaims)
	}
}
