package azure

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/pricing"
	"github.com/karpsim/karpsim/resources"
)

func mustCatalog(t *testing.T, region string, s Settings) instancetypes.Catalog {
	t.Helper()
	c, err := Catalog(region, s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustGet(t *testing.T, c instancetypes.Catalog, name string) *instancetypes.InstanceType {
	t.Helper()
	it, ok := c.Get(name)
	if !ok {
		t.Fatalf("%s is not in the catalog %v", name, c.Names())
	}
	return it
}

// sizeFacts are the numbers the provider's southcentralus resource SKU
// table (pkg/fake/zz_generated.sku.southcentralus.go at v1.14.2) gives a
// size, and what the provider's formulas make of them, worked by hand in
// each case's comment.
type sizeFacts struct {
	name                    string
	arch                    string
	cpuMilli                int64
	memoryBytes             int64
	kubeCPUMilli, kubeMemMi int64
	labels                  map[string]string
	choices                 map[string][]string
	absent                  []string
	gpus                    int64
	zones                   []string
	spot                    bool
	onDemand                float64
}

func TestSizeFacts(t *testing.T) {
	c := mustCatalog(t, "southcentralus", Settings{})
	for _, want := range []sizeFacts{
		{
			// vCPUs 2, MemoryGB 8, x64, HyperVGenerations V1,V2, PremiumIO and
			// AcceleratedNetworkingEnabled True, CachedDiskBytes 53687091200,
			// LowPriorityCapable True, zones 1 2 3, price 0.11.
			// Memory: 8 GiB − ceil(8589934592 × 0.075 = 644245094.4) = 7945689497.
			// kube-reserved CPU: 1 × 6% + 1 × 4% = 0.1 vCPU = 100m.
			// kube-reserved memory: 4 × 25% + 4 × 20% = 1.8 GiB = 1843.2 → 1843 MiB.
			// Ephemeral OS max: 53687091200 / 10^9 = 53.69 → 53 (cache disk).
			name: "Standard_D2s_v3", arch: "amd64", cpuMilli: 2000, memoryBytes: 7945689497,
			kubeCPUMilli: 100, kubeMemMi: 1843,
			labels: map[string]string{
				LabelSKUFamily: "D", LabelSKUSeries: "Ds_v3", LabelSKUVersion: "3", LabelSKUCPU: "2", LabelSKUMemory: "8192",
				LabelAKSCPU: "2", LabelAKSMemory: "8192", LabelSKUAcceleratedNetworking: "true", LabelSKUStoragePremiumCapable: "true",
				LabelSKUEphemeralOSMaxSize: "53", LabelSKUGPUCount: "0", LabelAKSOSSKU: "Ubuntu", LabelSKUName: "Standard_D2s_v3",
			},
			choices: map[string][]string{LabelSKUHyperVGeneration: {"2", "1"}, LabelSKUUltraSSD: {"false", "true"}},
			absent:  []string{LabelSKUGPUManufacturer, LabelSKUGPUName, LabelAKSFIPSEnabled},
			zones:   []string{"0", "southcentralus-1", "southcentralus-2", "southcentralus-3"}, spot: true, onDemand: 0.11,
		},
		{
			// The arm64 size of the table (the table has no D4ps_v5): vCPUs 16,
			// MemoryGB 32, Arm64, V2 only, CachedDiskBytes 429496729600.
			// Memory: 32 GiB − ceil(34359738368 × 0.075 = 2576980377.6) = 31782757990.
			// CPU: 6% + 4% + 2 × 2% + 12 × 1% = 0.26 → 260m.
			// Memory: 1 + 0.8 + 8 × 10% + 16 × 6% = 3.56 GiB = 3645.44 → 3645 MiB.
			name: "Standard_D16plds_v5", arch: "arm64", cpuMilli: 16000, memoryBytes: 31782757990,
			kubeCPUMilli: 260, kubeMemMi: 3645,
			labels: map[string]string{
				LabelSKUFamily: "D", LabelSKUSeries: "Dplds_v5", LabelSKUVersion: "5", LabelSKUMemory: "32768",
				LabelSKUHyperVGeneration: "2", LabelSKUEphemeralOSMaxSize: "429",
			},
			zones: []string{"0", "southcentralus-1", "southcentralus-2", "southcentralus-3"}, spot: true, onDemand: 0.737,
		},
		{
			// NVIDIA T4: vCPUs 16, MemoryGB 110, GPUs 1, in the GPU registry.
			// Memory: 110 GiB − ceil(118111600640 × 0.075 = 8858370048) = 104192 MiB.
			// CPU: 260m as above. Memory: 1 + 0.8 + 0.8 + 94 × 6% = 8.24 GiB
			// = 8437.76 → 8437 MiB.
			name: "Standard_NC16as_T4_v3", arch: "amd64", cpuMilli: 16000, memoryBytes: 104192 << 20,
			kubeCPUMilli: 260, kubeMemMi: 8437, gpus: 1,
			labels: map[string]string{
				LabelSKUFamily: "N", LabelSKUSeries: "NCas_v3", LabelSKUVersion: "3", LabelSKUGPUCount: "1",
				LabelSKUGPUManufacturer: "nvidia", LabelSKUGPUName: "T4", LabelSKUEphemeralOSMaxSize: "154",
			},
			zones: []string{"0", "southcentralus-1", "southcentralus-2", "southcentralus-3"}, spot: true, onDemand: 1.445,
		},
		{
			// A regional GPU size: no zones in the table, so the one zone "0".
			// vCPUs 6, MemoryGB 112. CPU: 6% + 4% + 2 × 2% + 2 × 1% = 0.16 → 160m.
			// Memory: 2.6 + 96 × 6% = 8.36 GiB = 8560.64 → 8560 MiB.
			name: "Standard_NC6s_v3", arch: "amd64", cpuMilli: 6000, memoryBytes: 112<<30 - 9019431322,
			kubeCPUMilli: 160, kubeMemMi: 8560, gpus: 1,
			labels: map[string]string{LabelSKUSeries: "NCs_v3", LabelPlacementScope: "regional", apis.LabelTopologyZone: "0"},
			absent: []string{LabelSKUGPUName},
			zones:  []string{"0"}, spot: true,
		},
		{
			// B-series: vCPUs 20, MemoryGB 80, LowPriorityCapable False (no spot).
			// CPU: 0.14 + 16 × 1% = 0.30 → 300m. Memory: 2.6 + 64 × 6% = 6.44 GiB
			// = 6594.56 → 6594 MiB. Memory capacity: 80 GiB × 0.925 = 74 GiB.
			name: "Standard_B20ms", arch: "amd64", cpuMilli: 20000, memoryBytes: 74 << 30,
			kubeCPUMilli: 300, kubeMemMi: 6594,
			labels: map[string]string{LabelSKUFamily: "B", LabelSKUSeries: "Bms", LabelSKUVersion: "1", LabelSKUEphemeralOSMaxSize: "32"},
			zones:  []string{"0", "southcentralus-1", "southcentralus-2", "southcentralus-3"}, spot: false, onDemand: 0.998,
		},
	} {
		t.Run(want.name, func(t *testing.T) {
			it := mustGet(t, c, want.name)
			if got := it.Requirements.Get(apis.LabelArch).Any(); got != want.arch {
				t.Errorf("arch %s, want %s", got, want.arch)
			}
			wantCap := resources.New(want.cpuMilli, want.memoryBytes, 250).With(corev1.ResourceEphemeralStorage, 128_000_000_000)
			if want.gpus > 0 {
				wantCap = wantCap.With(apis.ResourceNVIDIAGPU, want.gpus)
			}
			if !it.Capacity.Equal(wantCap) {
				t.Errorf("capacity %s, want %s", it.Capacity, wantCap)
			}
			if want := resources.New(want.kubeCPUMilli, want.kubeMemMi<<20, 0); !it.Overhead.KubeReserved.Equal(want) {
				t.Errorf("kube-reserved %s, want %s", it.Overhead.KubeReserved, want)
			}
			if want := resources.New(0, 750<<20, 0); !it.Overhead.EvictionThreshold.Equal(want) || !it.Overhead.SystemReserved.IsZero() {
				t.Errorf("eviction %s, system-reserved %s: want %s and nothing", it.Overhead.EvictionThreshold, it.Overhead.SystemReserved, want)
			}
			labels := it.Labels()
			for k, v := range want.labels {
				if labels[k] != v {
					t.Errorf("label %s = %q, want %q", k, labels[k], v)
				}
			}
			for k, v := range want.choices {
				if got := it.LabelChoices[k]; !slices.Equal(got, v) {
					t.Errorf("label choice %s = %v, want %v", k, got, v)
				}
			}
			for _, k := range want.absent {
				if r := it.Requirements.Get(k); r.Operator() != corev1.NodeSelectorOpDoesNotExist {
					t.Errorf("label %s: %s, want DoesNotExist", k, r)
				}
			}
			if got := it.Requirements.Get(apis.LabelTopologyZone).Values(); !slices.Equal(got, want.zones) {
				t.Errorf("zones %v, want %v", got, want.zones)
			}
			if len(it.Offerings) != 2*len(want.zones) {
				t.Errorf("%d offerings, want on-demand and spot in each of %v", len(it.Offerings), want.zones)
			}
			for _, o := range it.Offerings {
				scope, preference := PlacementScopeZonal, 0
				if o.Zone == RegionalZone {
					scope, preference = PlacementScopeRegional, 1
				}
				if want := (instancetypes.OfferingLabel{Key: LabelPlacementScope, Value: scope}); o.Label != want || o.Preference != preference {
					t.Errorf("%s %s: label %+v preference %d, want %+v and %d", o.Zone, o.CapacityType, o.Label, o.Preference, want, preference)
				}
				switch o.CapacityType {
				case apis.CapacityTypeOnDemand:
					if !o.Available || (want.onDemand != 0 && o.Price != want.onDemand) {
						t.Errorf("%s on-demand: %v at %v, want available at %v", o.Zone, o.Available, o.Price, want.onDemand)
					}
				case apis.CapacityTypeSpot:
					od := mustGet(t, c, want.name).Offerings[0].Price
					if o.Available != want.spot || o.Price != pricing.DefaultSpotModel().Price(want.name, o.Zone, od) {
						t.Errorf("%s spot: available %v at %v, want %v at the spot model's price of %v", o.Zone, o.Available, o.Price, want.spot, od)
					}
				default:
					t.Errorf("offering %+v: capacity type", o)
				}
			}
		})
	}
}

func TestKubeReserved(t *testing.T) {
	for _, tc := range []struct {
		vcpus           int64
		memGiB          float64
		cpuMilli, memMi int64
	}{
		// 1 vCPU: 6% = 60m. 0.75 GiB: 25% = 0.1875 GiB = 192 MiB.
		{1, 0.75, 60, 192},
		// 4 vCPUs: 6 + 4 + 2 × 2 = 14% = 140m. 16 GiB: 1 + 0.8 + 0.8 = 2.6 GiB = 2662.4 → 2662 MiB.
		{4, 16, 140, 2662},
		// 64 vCPUs: 14% + 60 × 1% = 0.74 → 740m. 256 GiB: 2.6 + 112 × 6% + 128 × 2%
		// = 2.6 + 6.72 + 2.56 = 11.88 GiB = 12165.12 → 12165 MiB.
		{64, 256, 740, 12165},
		// 128 vCPUs: 0.14 + 1.24 = 1.38 → 1380m. 512 GiB: 2.6 + 6.72 + 384 × 2% = 17.0 GiB = 17408 MiB.
		{128, 512, 1380, 17408},
	} {
		got := KubeReserved(tc.vcpus, tc.memGiB)
		if want := resources.New(tc.cpuMilli, tc.memMi<<20, 0); !got.Equal(want) {
			t.Errorf("KubeReserved(%d, %v) = %s, want %s", tc.vcpus, tc.memGiB, got, want)
		}
	}
}

func TestMaxPods(t *testing.T) {
	for _, tc := range []struct {
		maxPods      int32
		plugin, mode string
		want         int32
	}{
		{0, "", "", 250}, // azure overlay, the provider's defaults
		{0, NetworkPluginAzure, NetworkPluginModeOverlay, 250},      // overlay
		{0, NetworkPluginAzure, "", 250},                            // the default mode is overlay
		{0, NetworkPluginAzure, NetworkPluginModeNodeSubnet, 30},    // pods in the node subnet
		{0, "", NetworkPluginModeNodeSubnet, 30},                    // the default plugin is azure
		{0, NetworkPluginKubenet, "", 110},                          // kubenet: Kubernetes' default
		{0, NetworkPluginKubenet, NetworkPluginModeNodeSubnet, 110}, // whatever the mode
		{0, NetworkPluginNone, NetworkPluginModeNodeSubnet, 250},    // bring your own CNI
		{0, NetworkPluginNone, "", 250},
		{42, NetworkPluginAzure, NetworkPluginModeNodeSubnet, 42}, // the node class's maxPods wins
		{120, NetworkPluginKubenet, "", 120},
		{10, NetworkPluginNone, NetworkPluginModeOverlay, 10},
	} {
		if got := MaxPods(tc.maxPods, tc.plugin, tc.mode); got != tc.want {
			t.Errorf("MaxPods(%d, %q, %q) = %d, want %d", tc.maxPods, tc.plugin, tc.mode, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s    Settings
		want int64
	}{
		{Settings{}, 250},
		{Settings{NetworkPlugin: NetworkPluginKubenet}, 110},
		{Settings{NetworkPluginMode: NetworkPluginModeNodeSubnet}, 30},
		{Settings{MaxPods: 77}, 77},
	} {
		it := mustGet(t, mustCatalog(t, DefaultRegion, tc.s), "Standard_D2s_v3")
		if got := it.Capacity.Get(corev1.ResourcePods); got != tc.want {
			t.Errorf("%+v: pods %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestFilters(t *testing.T) {
	// The sizes of the provider's table only: widefilters_test.go checks
	// the sizes with derived facts.
	names := func(s Settings) []string {
		return slices.DeleteFunc(mustCatalog(t, "southcentralus", s).Names(), func(n string) bool { return DerivedFacts(n) != nil })
	}
	all := names(Settings{})
	// Out whatever the node class: A0 and B1s (under 2 vCPUs, restricted),
	// M8-2ms (constrained vCPUs), DC8s_v3 (confidential).
	for _, out := range []string{"Standard_A0", "Standard_B1s", "Standard_M8-2ms", "Standard_DC8s_v3"} {
		if slices.Contains(all, out) {
			t.Errorf("%s is offered; the provider filters it out", out)
		}
	}
	if want := 16; len(all) != want {
		t.Errorf("%d sizes (%v), want %d", len(all), all, want)
	}
	for _, tc := range []struct {
		s       Settings
		removed []string
	}{
		// D2_v2 and D2_v3 lack EncryptionAtHostSupported.
		{Settings{EncryptionAtHost: true}, []string{"Standard_D2_v2", "Standard_D2_v3"}},
		// LocalDNS needs 4 vCPUs.
		{Settings{LocalDNS: true}, []string{"Standard_D2_v2", "Standard_D2_v3", "Standard_D2_v5", "Standard_D2as_v6", "Standard_D2s_v3", "Standard_DS2_v2"}},
		// Artifact streaming does not run on arm64.
		{Settings{ArtifactStreaming: true}, []string{"Standard_D16plds_v5"}},
		// Every GPU size of the table has Ubuntu and Azure Linux drivers and
		// is NVIDIA's, so neither image family nor GPU mode removes one.
		{Settings{ImageFamily: ImageFamilyAzureLinux}, nil},
		{Settings{GPUMode: GPUModeNone}, nil},
	} {
		got := names(tc.s)
		var removed []string
		for _, n := range all {
			if !slices.Contains(got, n) {
				removed = append(removed, n)
			}
		}
		if !slices.Equal(removed, tc.removed) {
			t.Errorf("%+v removes %v, want %v", tc.s, removed, tc.removed)
		}
	}
}

func TestGPUDriverFilter(t *testing.T) {
	rec := skuRecord{Name: "Standard_X", VCPUs: 8, MemoryGB: 32, GPUs: 1, GPUManufacturer: "amd", GPUOS: []string{"ubuntu"}}
	for _, tc := range []struct {
		s    Settings
		want bool
	}{
		{Settings{}, false}, // Driver mode: AKS installs no AMD driver
		{Settings{GPUMode: GPUModeNone}, true},
		{Settings{GPUMode: GPUModeNone, ImageFamily: ImageFamilyAzureLinux}, false}, // no Azure Linux driver
	} {
		r, err := tc.s.resolve()
		if err != nil {
			t.Fatal(err)
		}
		if got := allowedBy(rec, r); got != tc.want {
			t.Errorf("%+v: allowed %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestRegions(t *testing.T) {
	regions := Regions()
	if !slices.IsSorted(regions) || !slices.Contains(regions, DefaultRegion) || len(regions) != 57 {
		t.Fatalf("Regions() = %v: want 57 sorted, with %s", regions, DefaultRegion)
	}
	// westcentralus has its own table and no zones: every offering is
	// regional, and NC16as_T4_v3, absent from its table, is not sold.
	wcu := mustCatalog(t, "westcentralus", Settings{})
	if _, ok := wcu.Get("Standard_NC16as_T4_v3"); ok {
		t.Error("westcentralus sells Standard_NC16as_T4_v3; its table lacks it")
	}
	for _, it := range wcu {
		if z := it.Requirements.Get(apis.LabelTopologyZone).Values(); !slices.Equal(z, []string{"0"}) {
			t.Errorf("westcentralus %s: zones %v, want the regional zone only", it.Name, z)
		}
	}
	// eastus takes the reference table's sizes it prices, in its zones, at
	// its prices.
	east := mustCatalog(t, DefaultRegion, Settings{})
	d2 := mustGet(t, east, "Standard_D2s_v3")
	if z := d2.Requirements.Get(apis.LabelTopologyZone).Values(); !slices.Equal(z, []string{"0", "eastus-1", "eastus-2", "eastus-3"}) {
		t.Errorf("eastus zones %v", z)
	}
	if d2.Offerings[0].Price != 0.096 || d2.Labels()[apis.LabelTopologyRegion] != "eastus" {
		t.Errorf("eastus D2s_v3: price %v, labels %v", d2.Offerings[0].Price, d2.Labels())
	}
	if _, err := Catalog("atlantis", Settings{}); err == nil || !strings.Contains(err.Error(), `"atlantis"`) || !strings.Contains(err.Error(), "azure.Regions()") || !strings.Contains(err.Error(), "westeurope") {
		t.Errorf("unknown region: %v", err)
	}
	for _, r := range regions {
		c := mustCatalog(t, r, Settings{})
		if len(c) == 0 {
			t.Errorf("%s: no sizes", r)
		}
	}
}

func TestSettingsValidation(t *testing.T) {
	for _, s := range []Settings{
		{ImageFamily: "Windows2022"},
		{OSDiskSizeGB: 29},
		{OSDiskSizeGB: 2049},
		{MaxPods: 9},
		{MaxPods: 251},
		{NetworkPlugin: "calico"},
		{NetworkPluginMode: "underlay"},
		{GPUMode: "Auto"},
		{FIPSMode: "yes"},
		{VMMemoryOverheadPercent: 1},
	} {
		if _, err := Catalog(DefaultRegion, s); !errors.Is(err, ErrInvalidSettings) {
			t.Errorf("%+v: %v, want ErrInvalidSettings", s, err)
		}
	}
}

func TestSettingsChangeTheModel(t *testing.T) {
	it := mustGet(t, mustCatalog(t, DefaultRegion, Settings{
		OSDiskSizeGB: 64, ImageFamily: ImageFamilyAzureLinux, FIPSMode: FIPSModeFIPS,
		NodeResourceGroup: "MC_rg(x)_cluster_eastus-", VMMemoryOverheadPercent: -1,
	}), "Standard_D2s_v3")
	if got := it.Capacity.Get(corev1.ResourceEphemeralStorage); got != 64_000_000_000 {
		t.Errorf("ephemeral storage %d, want 64 GB", got)
	}
	if got := it.Capacity.Get(corev1.ResourceMemory); got != 8<<30 {
		t.Errorf("memory %d with no VM overhead, want 8 GiB", got)
	}
	labels := it.Labels()
	for k, v := range map[string]string{LabelAKSOSSKU: "AzureLinux", LabelAKSFIPSEnabled: "true", LabelAKSCluster: "MC_rg-x-_cluster_eastus-z"} {
		if labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, labels[k], v)
		}
	}
}

func TestDeterministic(t *testing.T) {
	write := func(c instancetypes.Catalog) []byte {
		var buf bytes.Buffer
		if err := instancetypes.WriteJSON(&buf, c); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	a := write(Default())
	b := write(mustCatalog(t, DefaultRegion, Settings{}))
	if !bytes.Equal(a, b) {
		t.Fatal("Default() and Catalog(DefaultRegion, Settings{}) differ")
	}
	c := Default()
	c[0] = nil
	if Default()[0] == nil {
		t.Fatal("Default() shares its slice")
	}
	if got, err := instancetypes.ReadJSON(bytes.NewReader(a), "azure.json"); err != nil || !bytes.Equal(write(got), a) {
		t.Fatalf("the catalog does not read back: %v", err)
	}
}

func TestParseVMSize(t *testing.T) {
	for size, want := range map[string]struct{ family, series, version, accel, constrained string }{
		"D2s_v3":          {"D", "Ds_v3", "3", "", ""},
		"D4ps_v5":         {"D", "Dps_v5", "5", "", ""},
		"NC24ads_A100_v4": {"N", "NCads_v4", "4", "A100", ""},
		"NC16as_T4_v3":    {"N", "NCas_v3", "3", "T4", ""},
		"B20ms":           {"B", "Bms", "1", "", ""},
		"DS2_v2":          {"D", "DS_v2", "2", "", ""},
		"M8-2ms":          {"M", "Mms", "1", "", "2"},
		"D2_v2_Promo":     {"D", "D_v2", "2", "", ""},
		"M416s_8_v2":      {"M", "Ms_v2", "2", "", ""},
		"ND96isr_H100_v5": {"N", "NDisr_v5", "5", "H100", ""},
	} {
		v, err := parseVMSize(size)
		if err != nil {
			t.Errorf("%s: %v", size, err)
			continue
		}
		got := struct{ family, series, version, accel, constrained string }{v.family, v.series(), v.versionNumber(), v.accelerator, v.constrained}
		if got != want {
			t.Errorf("%s: %+v, want %+v", size, got, want)
		}
	}
	if _, err := parseVMSize("not a size"); err == nil {
		t.Error("a malformed size parsed")
	}
}

func TestWellKnownLabels(t *testing.T) {
	keys := Default().LabelKeys()
	for _, k := range WellKnownLabels() {
		if k == LabelAKSCluster || k == LabelSKUHyperVGeneration {
			continue // set only with a node resource group; not well known
		}
		if !slices.Contains(keys, k) {
			t.Errorf("no size constrains the well-known label %s", k)
		}
	}
}
