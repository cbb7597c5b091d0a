package conformance

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// onlyClaim provisions pods into w and returns the single NodeClaim made.
func onlyClaim(t *T, w *world, pods ...*corev1.Pod) scheduling.NodeClaim {
	res := w.provision(pods...)
	require.True(t, scheduled(pods...), "%v", res.Unschedulable)
	require.Len(t, res.NodeClaims, 1)
	return res.NodeClaims[0]
}

// requirement finds the claim's requirement on key.
func requirement(nc scheduling.NodeClaim, key string) (corev1.NodeSelectorRequirement, bool) {
	for _, r := range nc.Requirements {
		if r.Key == key {
			return r, true
		}
	}
	return corev1.NodeSelectorRequirement{}, false
}

func requireRequirement(t *T, nc scheduling.NodeClaim, key string, op corev1.NodeSelectorOperator, values ...string) {
	r, ok := requirement(nc, key)
	require.True(t, ok, "no requirement on %s in %v", key, nc.Requirements)
	require.Equal(t, op, r.Operator, "%s", key)
	if values != nil {
		require.ElementsMatch(t, values, r.Values, "%s", key)
	}
}

// requireRequests checks the claim's requests resource by resource.
func requireRequests(t *T, nc scheduling.NodeClaim, want map[string]string) {
	require.Len(t, nc.Requests, len(want), "%v", nc.Requests)
	for k, v := range want {
		got, ok := nc.Requests[k]
		require.True(t, ok, "no %s in %v", k, nc.Requests)
		require.True(t, resource.MustParse(got).Equal(resource.MustParse(v)), "%s: %s, want %s", k, got, v)
	}
}

var _ = register("provisioning",
	conformanceCase{Name: "pool-labels-and-requirements", Run: func(t *T) {
		np := nodePool("default", withLabels("test-key-1", "test-value-1"), withRequirements(
			in("test-key-2", "test-value-2"), req("test-key-3", corev1.NodeSelectorOpNotIn, "test-value-3"),
			req("test-key-4", corev1.NodeSelectorOpLt, "4"), req("test-key-5", corev1.NodeSelectorOpGt, "5"),
			req("test-key-6", corev1.NodeSelectorOpExists), req("test-key-7", corev1.NodeSelectorOpDoesNotExist)))
		w := newWorld(defaultFakeCatalog(), np)
		nc := onlyClaim(t, w, ppod("p"))
		requireRequirement(t, nc, apis.LabelNodePool, corev1.NodeSelectorOpIn, "default")
		requireRequirement(t, nc, "test-key-1", corev1.NodeSelectorOpIn, "test-value-1")
		requireRequirement(t, nc, "test-key-2", corev1.NodeSelectorOpIn, "test-value-2")
		// The rest leave the value open: the node gets one that meets them.
		for _, key := range []string{"test-key-3", "test-key-4", "test-key-5", "test-key-6"} {
			r, ok := requirement(nc, key)
			require.True(t, ok, "no requirement on %s", key)
			require.NotEqual(t, corev1.NodeSelectorOpDoesNotExist, r.Operator, key)
		}
		if r, ok := requirement(nc, "test-key-7"); ok {
			require.Equal(t, corev1.NodeSelectorOpDoesNotExist, r.Operator)
		}
	}},
	conformanceCase{Name: "kubernetes-domain-labels", Run: func(t *T) {
		for _, domain := range []string{"kubernetes.io", "k8s.io"} {
			w := newWorld(defaultFakeCatalog(), nodePool("default", withLabels(domain+"/test", "test-value")))
			nc := onlyClaim(t, w, ppod("p", nodeRequirements(in(domain+"/test", "test-value"))))
			requireRequirement(t, nc, domain+"/test", corev1.NodeSelectorOpIn, "test-value")
		}
	}},
	conformanceCase{Name: "kubernetes-subdomain-labels", Run: func(t *T) {
		for _, domain := range []string{"kubernetes.io", "k8s.io"} {
			key := "subdomain." + domain + "/test"
			w := newWorld(defaultFakeCatalog(), nodePool("default", withLabels(key, "test-value")))
			nc := onlyClaim(t, w, ppod("p", nodeRequirements(in(key, "test-value"))))
			requireRequirement(t, nc, key, corev1.NodeSelectorOpIn, "test-value")
		}
	}},
	conformanceCase{Name: "well-known-requirement-not-a-label", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("default", withRequirements(in("foo", "bar"),
			req(corev1.LabelWindowsBuild, corev1.NodeSelectorOpNotIn, "test-value"))))
		nc := onlyClaim(t, w, ppod("p"))
		requireRequirement(t, nc, "foo", corev1.NodeSelectorOpIn, "bar")
		if r, ok := requirement(nc, corev1.LabelWindowsBuild); ok {
			require.NotEqual(t, corev1.NodeSelectorOpIn, r.Operator, "the NotIn does not become a fixed label")
		}
	}},
	conformanceCase{Name: "tolerating-pods", Run: func(t *T) {
		w := provWorld(withTaints(corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}))
		pods := []*corev1.Pod{
			ppod("equal", tolerates(corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule})),
			ppod("exists-effect", tolerates(corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})),
			ppod("exists-key", tolerates(corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists})),
			ppod("exists-all", tolerates(corev1.Toleration{Operator: corev1.TolerationOpExists})),
		}
		w.provision(pods...)
		require.True(t, scheduled(pods...))
	}},
	conformanceCase{Name: "claim-requirements", Run: func(t *T) {
		w := provWorld()
		nc := onlyClaim(t, w, ppod("p"))
		requireRequirement(t, nc, apis.LabelNodePool, corev1.NodeSelectorOpIn, "default")
		require.ElementsMatch(t, defaultFakeCatalog().Names(), nc.InstanceTypeOptions)
	}},
	conformanceCase{Name: "claim-requirements-pool-and-pod", Run: func(t *T) {
		w := provWorld(withRequirements(in("custom-requirement-key", "value"), in("custom-requirement-key2", "value")))
		nc := onlyClaim(t, w, ppod("p"))
		requireRequirement(t, nc, apis.LabelNodePool, corev1.NodeSelectorOpIn, "default")
		requireRequirement(t, nc, "custom-requirement-key", corev1.NodeSelectorOpIn, "value")
		requireRequirement(t, nc, "custom-requirement-key2", corev1.NodeSelectorOpIn, "value")
		require.ElementsMatch(t, defaultFakeCatalog().Names(), nc.InstanceTypeOptions)
	}},
	conformanceCase{Name: "claim-types-by-arch", Run: func(t *T) {
		w := provWorld(withRequirements(in(apis.LabelArch, apis.ArchitectureArm64)))
		nc := onlyClaim(t, w, ppod("p"))
		requireRequirement(t, nc, apis.LabelArch, corev1.NodeSelectorOpIn, apis.ArchitectureArm64)
		require.Equal(t, []string{"arm-instance-type"}, nc.InstanceTypeOptions)
	}},
	conformanceCase{Name: "claim-types-by-os", Run: func(t *T) {
		// Upstream's arm type runs several operating systems, ios among
		// them; a karpsim type has one value per label, so here it is ios.
		var types []*instancetypes.InstanceType
		for _, n := range defaultFakeCatalog().Names() {
			it, _ := defaultFakeCatalog().Get(n)
			if n == "arm-instance-type" {
				it = mustType(instancetypes.Spec{Name: n, Labels: map[string]string{apis.LabelArch: apis.ArchitectureArm64, apis.LabelOS: "ios",
					instancetypes.FakeLabelSize: "large", instancetypes.FakeLabelSpecial: "optional"}, Capacity: it.Capacity, Overhead: it.Overhead, Offerings: it.Offerings})
			}
			types = append(types, it)
		}
		w := newWorld(mustCatalog(types...), nodePool("default", withRequirements(in(apis.LabelOS, "ios"))))
		nc := onlyClaim(t, w, ppod("p"))
		requireRequirement(t, nc, apis.LabelOS, corev1.NodeSelectorOpIn, "ios")
		require.Equal(t, []string{"arm-instance-type"}, nc.InstanceTypeOptions)
	}},
	conformanceCase{Name: "claim-types-by-requests", Run: func(t *T) {
		w := provWorld()
		nc := onlyClaim(t, w, ppod("p", requests(string(gpuVendorA), "1"), limits(string(gpuVendorA), "1")))
		require.Equal(t, []string{"gpu-vendor-instance-type"}, nc.InstanceTypeOptions)
	}},
	conformanceCase{Name: "claim-requests", Run: func(t *T) {
		w := provWorld()
		nc := onlyClaim(t, w, ppod("p", requests("cpu", "1", "memory", "1Mi", string(gpuVendorA), "1"), limits(string(gpuVendorA), "1")))
		requireRequests(t, nc, map[string]string{"cpu": "1", "memory": "1Mi", string(gpuVendorA): "1", "pods": "1"})
	}},
	conformanceCase{Name: "claim-requests-daemon-overhead", Run: func(t *T) {
		w := provWorld()
		w.daemons = []*corev1.Pod{daemon("ds", requests("cpu", "1", "memory", "1Mi"))}
		nc := onlyClaim(t, w, ppod("p", requests("cpu", "1", "memory", "1Mi")))
		requireRequests(t, nc, map[string]string{"cpu": "2", "memory": "2Mi", "pods": "2"})
	}},
	conformanceCase{Name: "claim-requests-daemon-overhead-once", Run: func(t *T) {
		w := provWorld()
		w.daemons = []*corev1.Pod{daemon("ds", requests("cpu", "1", "memory", "1Mi"))}
		nc := onlyClaim(t, w, ppods(2, "p", requests("cpu", "1", "memory", "1Mi"))...)
		requireRequests(t, nc, map[string]string{"cpu": "3", "memory": "3Mi", "pods": "3"})
	}},
)
