package kube_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/kube"
	"github.com/karpsim/karpsim/kube/kubetest"
)

// newerKinds are objects of the kinds the watcher reads beside the
// scheduling basics: default-spread selectors (a Service, a Deployment),
// DRA (a DeviceClass and a ResourceClaim), and a PodTemplate.
const newerKinds = `
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: ip-10-0-1-17.ec2.internal}
spec:
  drivers:
    - {name: ebs.csi.aws.com, nodeID: i-0a1b2c3d4e5f60718, allocatable: {count: 25}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec: {containers: [{name: pause, image: pause}]}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: batch, namespace: shop}
template:
  spec: {containers: [{name: pause, image: pause}]}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.nvidia.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu, namespace: shop}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.nvidia.com}
`

// optionalKinds are a NodeOverlay and a CapacityBuffer, served only once
// their CRDs are installed.
const optionalKinds = `
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: licence}
spec:
  requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}]
  priceAdjustment: "+0.02"
---
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: headroom, namespace: shop}
spec:
  scalableRef: {apiGroup: apps, kind: Deployment, name: inflate}
  replicas: 2
`

// TestWatcherReadsNewerKindsFromARealAPIServer reads Services, workloads,
// PodTemplates and DRA's objects from a real kube-apiserver; without the
// NodeOverlay and CapacityBuffer CRDs the watcher starts all the same and
// reads none, naming them skipped; once they are installed it reads them.
func TestWatcherReadsNewerKindsFromARealAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; not with -short")
	}
	s := kubetest.StartAPIServer(t)
	s.InstallCRDs(t)
	objs, err := kubetest.Objects([]byte(cluster + "---" + newerKinds))
	require.NoError(t, err)
	s.Create(t, objs...)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	w := kube.NewWatcher(s.Admin, kube.WatcherConfig{})
	require.NoError(t, w.Start(ctx), "CRDs of optional kinds absent: no error")
	st, err := w.State()
	w.Stop()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"nodeoverlays.karpenter.sh: not served", "capacitybuffers.autoscaling.x-k8s.io: not served"}, w.Skipped())
	assert.Empty(t, st.NodeOverlays)
	assert.Empty(t, st.CapacityBuffers)
	require.Len(t, st.Services, 2, "shop/web and the API server's default/kubernetes")
	assert.Equal(t, "default/kubernetes shop/web", st.Services[0].Namespace+"/"+st.Services[0].Name+" "+st.Services[1].Namespace+"/"+st.Services[1].Name)
	require.Len(t, st.Deployments, 1)
	assert.Equal(t, "inflate", st.Deployments[0].Name)
	require.Len(t, st.PodTemplates, 1)
	require.Len(t, st.DeviceClasses, 1)
	assert.Equal(t, "gpu.nvidia.com", st.DeviceClasses[0].Name)
	require.Len(t, st.ResourceClaims, 1)
	assert.Equal(t, "gpu.nvidia.com", st.ResourceClaims[0].Spec.Devices.Requests[0].Exactly.DeviceClassName)
	require.Len(t, st.CSINodes, 1)
	assert.Equal(t, int32(25), *st.CSINodes[0].Spec.Drivers[0].Allocatable.Count)

	s.InstallOptionalCRDs(t)
	objs, err = kubetest.Objects([]byte(optionalKinds))
	require.NoError(t, err)
	s.Create(t, objs...)
	w = kube.NewWatcher(s.Admin, kube.WatcherConfig{})
	require.NoError(t, w.Start(ctx))
	defer w.Stop()
	st, err = w.State()
	require.NoError(t, err)
	assert.Empty(t, w.Skipped())
	require.Len(t, st.NodeOverlays, 1)
	assert.Equal(t, "+0.02", st.NodeOverlays[0].PriceChange())
	require.Len(t, st.CapacityBuffers, 1)
	assert.Equal(t, "shop", st.CapacityBuffers[0].Namespace)
	assert.Equal(t, "inflate", st.CapacityBuffers[0].Spec.ScalableRef.Name)
}
