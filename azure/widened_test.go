package azure

import (
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// TestWidenedSizes checks sizes of the wider table (Cluster Autoscaler's
// facts, capabilities derived from the name) in eastus: their labels,
// capacity and offerings.
func TestWidenedSizes(t *testing.T) {
	c := mustCatalog(t, DefaultRegion, Settings{})
	for _, tc := range []struct {
		name                 string
		arch                 string
		cpu, memoryMiB       int64
		family, series, ver  string
		premium, accelerated string
		gpus                 int64
		gpuName              string
		spot                 bool
	}{
		// CA: VCPU 4, MemoryMb 16384, arm64; s: premium; D v5: accelerated.
		{"Standard_D4ps_v5", apis.ArchitectureArm64, 4, 16384, "D", "Dps_v5", "5", "true", "true", 0, "", true},
		{"Standard_D4s_v5", apis.ArchitectureAmd64, 4, 16384, "D", "Ds_v5", "5", "true", "true", 0, "", true},
		{"Standard_E8as_v5", apis.ArchitectureAmd64, 8, 65536, "E", "Eas_v5", "5", "true", "true", 0, "", true},
		{"Standard_F8s_v2", apis.ArchitectureAmd64, 8, 16384, "F", "Fs_v2", "2", "true", "true", 0, "", true},
		// An N-family GPU size: accelerated networking is not derived for it.
		{"Standard_NC40ads_H100_v5", apis.ArchitectureAmd64, 40, 327680, "N", "NCads_v5", "5", "true", "false", 1, "H100", true},
		{"Standard_ND96isr_H100_v5", apis.ArchitectureAmd64, 96, 1945600, "N", "NDisr_v5", "5", "true", "false", 8, "H100", true},
		// B family: no spot; v1: no accelerated networking.
		{"Standard_B4ms", apis.ArchitectureAmd64, 4, 16384, "B", "Bms", "1", "true", "false", 0, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := DerivedFacts(tc.name); len(d) != 8 {
				t.Fatalf("derived facts %v, want the 8 the wider table derives", d)
			}
			it := mustGet(t, c, tc.name)
			labels := it.Labels()
			for key, want := range map[string]string{
				apis.LabelArch:                tc.arch,
				apis.LabelTopologyRegion:      DefaultRegion,
				LabelSKUName:                  tc.name,
				LabelSKUFamily:                tc.family,
				LabelSKUSeries:                tc.series,
				LabelSKUVersion:               tc.ver,
				LabelSKUCPU:                   itoa(tc.cpu),
				LabelSKUMemory:                itoa(tc.memoryMiB),
				LabelAKSCPU:                   itoa(tc.cpu),
				LabelAKSMemory:                itoa(tc.memoryMiB),
				LabelSKUStoragePremiumCapable: tc.premium,
				LabelSKUAcceleratedNetworking: tc.accelerated,
				LabelSKUGPUCount:              itoa(tc.gpus),
				LabelSKUHyperVGeneration:      "2",
				LabelSKUUltraSSD:              "false",
			} {
				if got := labels[key]; got != want {
					t.Errorf("%s = %q, want %q", key, got, want)
				}
			}
			if tc.gpuName != "" {
				if labels[LabelSKUGPUName] != tc.gpuName || labels[LabelSKUGPUManufacturer] != "nvidia" {
					t.Errorf("GPU labels %q %q, want %s nvidia", labels[LabelSKUGPUName], labels[LabelSKUGPUManufacturer], tc.gpuName)
				}
				if got := it.Capacity.Get(apis.ResourceNVIDIAGPU); got != tc.gpus {
					t.Errorf("nvidia.com/gpu %d, want %d", got, tc.gpus)
				}
			} else if _, ok := labels[LabelSKUGPUName]; ok {
				t.Errorf("has a GPU name")
			}
			if _, ok := labels[LabelSKUEphemeralOSMaxSize]; ok {
				t.Errorf("ephemeral OS disk size labelled, but none is known")
			}
			if got, want := it.Capacity.Get(corev1.ResourceCPU), tc.cpu*1000; got != want {
				t.Errorf("cpu %dm, want %dm", got, want)
			}
			memory := tc.memoryMiB / 1024 * gib
			memory -= (memory*75 + 999) / 1000 // the 7.5% VM overhead, rounded up
			if got := it.Capacity.Get(corev1.ResourceMemory); got != memory {
				t.Errorf("memory %d, want %d", got, memory)
			}
			if got, want := it.Overhead.KubeReserved, KubeReserved(tc.cpu, float64(tc.memoryMiB)/1024); !got.Equal(want) {
				t.Errorf("kube-reserved %v, want %v", got, want)
			}
			// Zonal in eastus's three zones and regional, on-demand at the
			// table's price, spot as the family allows.
			price := mustData().regions[DefaultRegion].OnDemand[tc.name]
			if price <= 0 {
				t.Fatalf("no eastus price")
			}
			var zones []string
			for _, o := range it.Offerings {
				if o.CapacityType == apis.CapacityTypeOnDemand {
					zones = append(zones, o.Zone)
					if o.Price != price || !o.Available {
						t.Errorf("on-demand %+v, want %v available", o, price)
					}
				} else if o.Available != tc.spot {
					t.Errorf("spot %+v available %v, want %v", o, o.Available, tc.spot)
				}
			}
			if want := []string{"0", "eastus-1", "eastus-2", "eastus-3"}; !slices.Equal(zones, want) {
				t.Errorf("zones %v, want %v", zones, want)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestWidenedFilters checks that the provider's filters apply to the
// sizes of the wider table as to the fully known ones.
func TestWidenedFilters(t *testing.T) {
	c := mustCatalog(t, DefaultRegion, Settings{})
	data := mustData()
	for _, tc := range []struct{ name, why string }{
		{"Standard_A1_v2", "restricted by AKS, 1 vCPU"},
		{"Standard_F1als_v7", "1 vCPU"},
		{"Standard_B2ats_v2", "1 GiB of memory"},
		{"Standard_DS11-1_v2", "constrained vCPUs"},
		{"Standard_E4-2s_v5", "constrained vCPUs"},
		{"Standard_DC2as_v5", "confidential"},
		{"Standard_EC8as_v5", "confidential"},
		{"Standard_NV4as_v4", "GPU size not in the GPU registry"},
		{"Standard_L8aos_v4", "name outside the naming grammar"},
	} {
		if DerivedFacts(tc.name) == nil {
			t.Errorf("%s is not in the wider table", tc.name)
		}
		if _, priced := data.regions[DefaultRegion].OnDemand[tc.name]; !priced {
			t.Errorf("%s is not priced in eastus, so the case does not test the filter", tc.name)
		}
		if _, ok := c.Get(tc.name); ok {
			t.Errorf("%s is offered; the provider filters it out (%s)", tc.name, tc.why)
		}
	}
	// The GPU sizes of the provider's table are in eastus too.
	a100 := mustGet(t, c, "Standard_NC24ads_A100_v4")
	if l := a100.Labels(); l[LabelSKUGPUName] != "A100" || l[LabelSKUGPUCount] != "1" || l[LabelSKUGPUManufacturer] != "nvidia" || l[LabelSKUFamily] != "N" || l[LabelSKUVersion] != "4" {
		t.Errorf("Standard_NC24ads_A100_v4 labels %v", l)
	}
	for _, tc := range []struct {
		s    Settings
		gone string
	}{
		{Settings{ArtifactStreaming: true}, "Standard_D4ps_v5"},
		{Settings{LocalDNS: true}, "Standard_D2s_v5"},
		// The registry gives NVv3 no Azure Linux driver.
		{Settings{ImageFamily: ImageFamilyAzureLinux}, "Standard_NV12s_v3"},
		// Encryption at host is not derived: only table sizes remain.
		{Settings{EncryptionAtHost: true}, "Standard_D4s_v5"},
	} {
		mustGet(t, c, tc.gone)
		if _, ok := mustCatalog(t, DefaultRegion, tc.s).Get(tc.gone); ok {
			t.Errorf("%+v offers %s", tc.s, tc.gone)
		}
	}
}

// TestWidenedCounts checks how the sources combine: eastus sells every
// priced size of the reference table and of the wider table that the
// filters keep, and no size is in two sources.
func TestWidenedCounts(t *testing.T) {
	d := mustData()
	inRef := map[string]bool{}
	for _, r := range d.tables[referenceRegion] {
		inRef[r.Name] = true
	}
	for _, r := range d.wide {
		if inRef[r.Name] {
			t.Errorf("%s is in the reference table and the wider table", r.Name)
		}
		if !slices.Equal(r.Derived, DerivedFacts(r.Name)) {
			t.Errorf("%s: DerivedFacts differs from the record", r.Name)
		}
	}
	c := mustCatalog(t, DefaultRegion, Settings{})
	var derived int
	for _, it := range c {
		if DerivedFacts(it.Name) != nil {
			derived++
		}
	}
	if len(c) < 800 || derived != len(c)-16 {
		t.Errorf("eastus: %d sizes, %d with derived facts; want over 800, all but the 16 of the provider's table", len(c), derived)
	}
}
