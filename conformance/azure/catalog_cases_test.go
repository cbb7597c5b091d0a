package azure

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

// restrictedSizes are the sizes the provider lists as restricted: AKS's
// low-performance sizes and two it finds problematic.
var restrictedSizes = []string{
	"Standard_A0", "Standard_A1", "Standard_A1_v2", "Standard_B1s", "Standard_B1ms", "Standard_F1", "Standard_F1s",
	"Basic_A0", "Basic_A1", "Basic_A2", "Basic_A3", "Basic_A4", "Standard_E64i_v3", "Standard_E64is_v3",
}

var _ = register("filter",
	conformanceCase{Name: "restricted", Run: func(t *T) {
		expectSizes(t, suiteCatalog(t), []string{"Standard_D2s_v3"}, restrictedSizes)
	}},
	conformanceCase{Name: "constrained", Run: func(t *T) {
		expectSizes(t, suiteCatalog(t), []string{"Standard_D2_v2"}, []string{"Standard_M8-2ms"})
	}},
	conformanceCase{Name: "confidential", Run: func(t *T) {
		expectSizes(t, suiteCatalog(t), nil, []string{"Standard_DC8s_v3"})
	}},
	conformanceCase{Name: "azurelinux-gpu", Run: func(t *T) {
		c := catalogOf(t, fakeRegion, azure.Settings{ImageFamily: azure.ImageFamilyAzureLinux})
		expectSizes(t, c, []string{"Standard_NC16as_T4_v3", "Standard_NC24ads_A100_v4"}, nil)
	}},
	conformanceCase{Name: "ubuntu-only-gpu", Run: func(t *T) {
		// The whole catalog, with the sizes of derived facts: the provider's
		// tables hold no Ubuntu-only GPU size.
		whole := func(s azure.Settings) instancetypes.Catalog {
			c, err := azure.Catalog(fakeRegion, s)
			if err != nil {
				t.Fatalf("azure.Catalog: %v", err)
			}
			return c
		}
		expectSizes(t, whole(azure.Settings{}), []string{"Standard_NV12s_v3"}, nil)
		expectSizes(t, whole(azure.Settings{ImageFamily: azure.ImageFamilyAzureLinux}), []string{"Standard_NC16as_T4_v3"}, []string{"Standard_NV12s_v3"})
	}},
	conformanceCase{Name: "working-sizes", Run: func(t *T) {
		for _, region := range azure.Regions() {
			expectSizes(t, catalogOf(t, region, azure.Settings{}), nil, restrictedSizes)
		}
	}},
)

var _ = register("gpu-mode",
	conformanceCase{Name: "default-nvidia", Run: func(t *T) {
		expectSizes(t, suiteCatalog(t), []string{"Standard_NC16as_T4_v3"}, nil)
	}},
	conformanceCase{Name: "default-non-gpu", Run: func(t *T) {
		expectSizes(t, suiteCatalog(t), []string{"Standard_D2s_v3"}, nil)
	}},
	conformanceCase{Name: "driver-nvidia", Run: func(t *T) {
		expectSizes(t, catalogOf(t, fakeRegion, azure.Settings{GPUMode: azure.GPUModeDriver}), []string{"Standard_NC16as_T4_v3"}, nil)
	}},
	conformanceCase{Name: "driver-non-gpu", Run: func(t *T) {
		expectSizes(t, catalogOf(t, fakeRegion, azure.Settings{GPUMode: azure.GPUModeDriver}), []string{"Standard_D2s_v3"}, nil)
	}},
	conformanceCase{Name: "none-nvidia", Run: func(t *T) {
		expectSizes(t, catalogOf(t, fakeRegion, azure.Settings{GPUMode: azure.GPUModeNone}), []string{"Standard_NC16as_T4_v3"}, nil)
	}},
	conformanceCase{Name: "none-non-gpu", Run: func(t *T) {
		expectSizes(t, catalogOf(t, fakeRegion, azure.Settings{GPUMode: azure.GPUModeNone}), []string{"Standard_D2s_v3"}, nil)
	}},
)

var _ = register("encryption-at-host",
	conformanceCase{Name: "enabled", Run: func(t *T) {
		c := catalogOf(t, fakeRegion, azure.Settings{EncryptionAtHost: true})
		expectSizes(t, c, []string{"Standard_D2s_v3", "Standard_D2_v5"}, []string{"Standard_D2_v2"})
	}},
	conformanceCase{Name: "unset", Run: func(t *T) {
		expectSizes(t, suiteCatalog(t), []string{"Standard_D2_v2", "Standard_D2s_v3", "Standard_D2_v5"}, nil)
	}},
)

// localDNS checks the LocalDNS filter: the 2-vCPU D2s_v3 is offered only
// when LocalDNS is not on, the 4-vCPU D4s_v3 always. Whether LocalDNS is
// on is the node class's resolved state (required, or preferred from
// Kubernetes 1.36), which upstream's case sets itself too.
func localDNS(enabled bool) func(t *T) {
	return func(t *T) {
		c := catalogOf(t, fakeRegion, azure.Settings{LocalDNS: enabled})
		if enabled {
			expectSizes(t, c, []string{"Standard_D4s_v3"}, []string{"Standard_D2s_v3"})
		} else {
			expectSizes(t, c, []string{"Standard_D4s_v3", "Standard_D2s_v3"}, nil)
		}
	}
}

var _ = register("localdns",
	conformanceCase{Name: "required", Run: localDNS(true)},
	conformanceCase{Name: "preferred-1-36", Run: localDNS(true)},
	conformanceCase{Name: "preferred-1-35", Run: localDNS(false)},
	conformanceCase{Name: "disabled", Run: localDNS(false)},
	conformanceCase{Name: "unset", Run: localDNS(false)},
	conformanceCase{Name: "lists-differ", Run: func(t *T) {
		on, off := catalogOf(t, fakeRegion, azure.Settings{LocalDNS: true}), suiteCatalog(t)
		if slices.Equal(on.Names(), off.Names()) {
			t.Errorf("LocalDNS on and off give the same sizes: %v", on.Names())
		}
	}},
)

var _ = register("artifact-streaming",
	conformanceCase{Name: "unset", Run: func(t *T) {
		expectSizes(t, suiteCatalog(t), []string{"Standard_D16plds_v5"}, nil)
	}},
	conformanceCase{Name: "enabled", Run: func(t *T) {
		c := catalogOf(t, fakeRegion, azure.Settings{ArtifactStreaming: true})
		expectSizes(t, c, []string{"Standard_D2s_v3"}, []string{"Standard_D16plds_v5"})
	}},
	conformanceCase{Name: "disabled", Run: func(t *T) {
		// Explicitly disabled is the zero Settings: only "enabled" filters.
		expectSizes(t, catalogOf(t, fakeRegion, azure.Settings{ArtifactStreaming: false}), []string{"Standard_D16plds_v5"}, nil)
	}},
)

// ephemeralMax checks a size's karpenter.azure.com/sku-storage-ephemeralos-maxsize:
// gb, or no such label (DoesNotExist) when gb is 0.
func ephemeralMax(size string, gb int) func(t *T) {
	return func(t *T) {
		it := sizeOf(t, suiteCatalog(t), size)
		r := it.Requirements.Get(azure.LabelSKUEphemeralOSMaxSize)
		if gb == 0 {
			if r.Operator() != corev1.NodeSelectorOpDoesNotExist {
				t.Errorf("%s: %s, want no ephemeral OS disk", size, r)
			}
			return
		}
		if v := it.Labels()[azure.LabelSKUEphemeralOSMaxSize]; v != strconv.Itoa(gb) {
			t.Errorf("%s: ephemeral OS disk max %q GB, want %d", size, v, gb)
		}
	}
}

var _ = register("ephemeral",
	conformanceCase{Name: "max-size-d128ds-v6", Run: ephemeralMax("Standard_D128ds_v6", 7559)},
	conformanceCase{Name: "max-size-d16plds-v5", Run: ephemeralMax("Standard_D16plds_v5", 429)},
	conformanceCase{Name: "max-size-d2as-v6", Run: ephemeralMax("Standard_D2as_v6", 0)},
	conformanceCase{Name: "max-size-nc24ads-a100-v4", Run: ephemeralMax("Standard_NC24ads_A100_v4", 274)},
	conformanceCase{Name: "max-size-d64s-v3", Run: ephemeralMax("Standard_D64s_v3", 1717)},
	conformanceCase{Name: "max-size-d2-v2", Run: ephemeralMax("Standard_D2_v2", 0)},
	conformanceCase{Name: "too-large-not-scheduled", Run: func(t *T) {
		w := world{suiteCatalog(t), nodePool(requirement{Key: azure.LabelSKUEphemeralOSMaxSize, Operator: corev1.NodeSelectorOpGt, Values: []string{"100000"}})}
		w.expectNotScheduled(t, pendingPod("p"))
	}},
	conformanceCase{Name: "fits-scheduled", Run: func(t *T) {
		w := world{catalogOf(t, fakeRegion, azure.Settings{OSDiskSizeGB: 30}),
			nodePool(requirement{Key: azure.LabelSKUEphemeralOSMaxSize, Operator: corev1.NodeSelectorOpGt, Values: []string{"0"}})}
		labels := w.launch(t, pendingPod("p"))[0]
		if n, err := strconv.Atoi(labels[azure.LabelSKUEphemeralOSMaxSize]); err != nil || n < 30 {
			t.Errorf("the node's ephemeral OS disk max is %q, want at least the 30 GB OS disk", labels[azure.LabelSKUEphemeralOSMaxSize])
		}
	}},
)

var _ = register("offerings",
	conformanceCase{Name: "no-spot-without-low-priority", Run: func(t *T) {
		it := sizeOf(t, suiteCatalog(t), "Standard_B20ms")
		var onDemand, spot int
		for _, o := range it.Offerings {
			if !o.Available {
				continue
			}
			switch o.CapacityType {
			case apis.CapacityTypeOnDemand:
				onDemand++
			case apis.CapacityTypeSpot:
				spot++
			}
		}
		if onDemand == 0 || spot != 0 {
			t.Errorf("Standard_B20ms: %d available on-demand and %d spot offerings, want some and none", onDemand, spot)
		}
	}},
)

// maxPods checks every size's pod capacity.
func maxPods(s azure.Settings, want int64) func(t *T) {
	return func(t *T) {
		for _, it := range catalogOf(t, fakeRegion, s) {
			if got := it.Capacity.Get(corev1.ResourcePods); got != want {
				t.Errorf("%s: %d pods, want %d", it.Name, got, want)
			}
		}
	}
}

var _ = register("max-pods",
	conformanceCase{Name: "node-class", Run: func(t *T) {
		maxPods(azure.Settings{MaxPods: 150}, 150)(t)
		maxPods(azure.Settings{MaxPods: 100}, 100)(t)
	}},
	conformanceCase{Name: "node-subnet", Run: maxPods(azure.Settings{NetworkPlugin: azure.NetworkPluginAzure, NetworkPluginMode: azure.NetworkPluginModeNodeSubnet}, 30)},
	conformanceCase{Name: "overlay", Run: maxPods(azure.Settings{NetworkPlugin: azure.NetworkPluginAzure, NetworkPluginMode: azure.NetworkPluginModeOverlay}, 250)},
	conformanceCase{Name: "plugin-none", Run: maxPods(azure.Settings{NetworkPlugin: azure.NetworkPluginNone}, 250)},
	conformanceCase{Name: "kubenet", Run: maxPods(azure.Settings{NetworkPlugin: azure.NetworkPluginKubenet}, 110)},
)

// basicCatalog is the Basic context's catalog: no VM memory overhead.
func basicCatalog(t *T) instancetypes.Catalog {
	return catalogOf(t, fakeRegion, azure.Settings{VMMemoryOverheadPercent: -1})
}

var _ = register("basic",
	conformanceCase{Name: "requirements", Run: func(t *T) {
		for _, it := range basicCatalog(t) {
			for _, key := range []string{apis.LabelArch, apis.LabelOS, apis.LabelInstanceType, azure.LabelSKUName,
				azure.LabelSKUStoragePremiumCapable, azure.LabelSKUAcceleratedNetworking, azure.LabelSKUUltraSSD,
				azure.LabelSKUHyperVGeneration, azure.LabelSKUEphemeralOSMaxSize} {
				if !it.Requirements.Has(key) {
					t.Errorf("%s has no requirement on %s", it.Name, key)
				}
			}
		}
	}},
	conformanceCase{Name: "booleans", Run: func(t *T) {
		for _, it := range basicCatalog(t) {
			for _, key := range []string{azure.LabelSKUStoragePremiumCapable, azure.LabelSKUAcceleratedNetworking, azure.LabelSKUUltraSSD} {
				values := it.Requirements.Get(key).Values()
				if len(values) == 0 || (key != azure.LabelSKUUltraSSD && len(values) != 1) {
					t.Errorf("%s: %s has values %v", it.Name, key, values)
				}
				for _, v := range values {
					if v != "true" && v != "false" {
						t.Errorf("%s: %s = %q", it.Name, key, v)
					}
				}
			}
		}
	}},
	conformanceCase{Name: "ultra-ssd", Run: func(t *T) {
		// The regional offering (zone 0) of a size whose table says
		// UltraSSDAvailable takes true and false; every other offering
		// false. Every size has a regional offering, so a size's values
		// are {true, false} exactly when the table says so.
		// UltraSSDAvailable as the southcentralus table gives it.
		with := []string{"Standard_B20ms", "Standard_D16plds_v5", "Standard_D2_v5", "Standard_D2s_v3", "Standard_NC24ads_A100_v4", "Standard_NC6s_v3"}
		without := []string{"Standard_D128ds_v6", "Standard_D2_v2", "Standard_D2_v3", "Standard_DS2_v2"}
		c := basicCatalog(t)
		for _, name := range append(slices.Clone(with), without...) {
			got := sizeOf(t, c, name).Requirements.Get(azure.LabelSKUUltraSSD).Values()
			want := []string{"false"}
			if slices.Contains(with, name) {
				want = []string{"false", "true"}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: ultra SSD %v, want %v", name, got, want)
			}
		}
	}},
	conformanceCase{Name: "capacity", Run: func(t *T) {
		for _, it := range basicCatalog(t) {
			for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage} {
				if it.Capacity.Get(r) <= 0 {
					t.Errorf("%s has no %s capacity: %s", it.Name, r, it.Capacity)
				}
			}
		}
	}},
	conformanceCase{Name: "skewer-values", Run: func(t *T) {
		c := basicCatalog(t)
		normal, gpu := sizeOf(t, c, "Standard_D2_v2"), sizeOf(t, c, "Standard_NC24ads_A100_v4")
		for _, tc := range []struct {
			it                          *instancetypes.InstanceType
			gen, version, cpu, memoryMi string
			cpus, memory, gpus          int64
		}{
			{normal, "1", "2", "2", "7168", 2, 7 << 30, 0},
			{gpu, "2", "4", "24", "225280", 24, 220 << 30, 1},
		} {
			labels := tc.it.Labels()
			for key, want := range map[string]string{
				azure.LabelSKUName: tc.it.Name, azure.LabelSKUHyperVGeneration: tc.gen, azure.LabelSKUVersion: tc.version,
				azure.LabelSKUCPU: tc.cpu, azure.LabelSKUMemory: tc.memoryMi,
			} {
				if labels[key] != want {
					t.Errorf("%s: %s = %q, want %q", tc.it.Name, key, labels[key], want)
				}
			}
			if got := tc.it.Capacity.Get(corev1.ResourceCPU); got != tc.cpus*1000 {
				t.Errorf("%s: CPU %dm, want %d", tc.it.Name, got, tc.cpus)
			}
			if got := tc.it.Capacity.Get(corev1.ResourceMemory); got != tc.memory {
				t.Errorf("%s: memory %d, want %d", tc.it.Name, got, tc.memory)
			}
			if got := tc.it.Capacity.Get(apis.ResourceNVIDIAGPU); got != tc.gpus {
				t.Errorf("%s: %d nvidia.com/gpu, want %d", tc.it.Name, got, tc.gpus)
			}
		}
	}},
)

// kubeReserved checks AKS's kube-reserved of a machine.
func kubeReserved(vcpus int64, memoryGiB float64, cpu, memory string) func(t *T) {
	return func(t *T) {
		c, m := resource.MustParse(cpu), resource.MustParse(memory)
		want := resources.New(c.MilliValue(), m.Value(), 0)
		if got := azure.KubeReserved(vcpus, memoryGiB); !got.Equal(want) {
			t.Errorf("KubeReserved(%d, %v) = %s, want %s", vcpus, memoryGiB, got, want)
		}
	}
}

var _ = register("kube-reserved",
	conformanceCase{Name: "4-cores-7gib", Run: kubeReserved(4, 7, "140m", "1638Mi")},
	conformanceCase{Name: "2-cores-8gib", Run: kubeReserved(2, 8, "100m", "1843Mi")},
	conformanceCase{Name: "3-cores-64gib", Run: kubeReserved(3, 64, "120m", "5611Mi")},
)
