package azure

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/pricing"
	"github.com/karpsim/karpsim/resources"
)

// DefaultRegion is the region used when none is given.
const DefaultRegion = "eastus"

// Image families of the AKSNodeClass (spec.imageFamily).
const (
	ImageFamilyUbuntu     = "Ubuntu"
	ImageFamilyUbuntu2204 = "Ubuntu2204"
	ImageFamilyUbuntu2404 = "Ubuntu2404"
	ImageFamilyAzureLinux = "AzureLinux"
)

// Network plugins and modes (the provider's --network-plugin and
// --network-plugin-mode).
const (
	NetworkPluginAzure   = "azure"
	NetworkPluginKubenet = "kubenet"
	NetworkPluginNone    = "none"

	NetworkPluginModeOverlay = "overlay"
	// NetworkPluginModeNodeSubnet is the provider's empty mode: pods take
	// addresses of the node's subnet. Settings spell it "none", since
	// their empty string is the default (overlay).
	NetworkPluginModeNodeSubnet = "none"
)

// GPU modes of the AKSNodeClass (spec.gpu.mode).
const (
	GPUModeDriver = "Driver"
	GPUModeNone   = "None"
)

// FIPSModeFIPS is the AKSNodeClass spec.fipsMode that asks for FIPS images.
const FIPSModeFIPS = "FIPS"

// Defaults the provider applies.
const (
	// DefaultOSDiskSizeGB is the AKSNodeClass's osDiskSizeGB default.
	DefaultOSDiskSizeGB = 128
	// DefaultVMMemoryOverheadPercent is the provider's
	// --vm-memory-overhead-percent default.
	DefaultVMMemoryOverheadPercent = 0.075
	// MissingPrice is the price the provider gives an offering it has no
	// price for, and every offering of a size not in its list of known
	// sizes: dear enough that such sizes are chosen last, yet launchable.
	MissingPrice = 999.0
)

// Settings are the node class fields the catalog depends on; zero values
// mean the provider's defaults.
type Settings struct {
	ImageFamily       string // "Ubuntu", "Ubuntu2204", "Ubuntu2404", "AzureLinux"; "" means the provider default (Ubuntu)
	OSDiskSizeGB      int32  // 0: provider default (128); else 30 to 2048, as the CRD allows
	MaxPods           int32  // 0: default for the network plugin; else 10 to 250, as the CRD allows
	NetworkPlugin     string // "azure" (default) or "kubenet" or "none"
	NetworkPluginMode string // "overlay" (default) or "none" (the provider's empty mode: node subnet)

	// EncryptionAtHost is spec.security.encryptionAtHost: only sizes that
	// support encryption at host are offered.
	EncryptionAtHost bool
	// GPUMode is spec.gpu.mode: "" or "Driver" (default) offers only the
	// GPU sizes whose driver AKS installs (NVIDIA's); "None" offers all
	// supported GPU sizes.
	GPUMode string
	// ArtifactStreaming is spec.artifactStreaming explicitly enabled:
	// arm64 sizes, which cannot stream, are not offered.
	ArtifactStreaming bool
	// LocalDNS is the node class's resolved LocalDNS state (enabled): only
	// sizes with at least 4 vCPUs are offered.
	LocalDNS bool
	// FIPSMode is spec.fipsMode: "FIPS" labels nodes
	// kubernetes.azure.com/fips_enabled=true; "" or "Disabled" does not.
	FIPSMode string
	// NodeResourceGroup is the cluster's node resource group (the
	// provider's --node-resource-group), which labels every node
	// kubernetes.azure.com/cluster; "" leaves the label out.
	NodeResourceGroup string
	// VMMemoryOverheadPercent is the fraction of memory the hypervisor
	// keeps (--vm-memory-overhead-percent): 0 means the default 0.075, a
	// negative value means none; it must be below 1.
	VMMemoryOverheadPercent float64
}

// ErrInvalidSettings is wrapped by the errors Catalog returns for settings
// it cannot use.
var ErrInvalidSettings = errors.New("invalid Azure settings")

// resolved are Settings with the defaults applied.
type resolved struct {
	imageFamily, gpuMode string
	osDiskGB, maxPods    int64
	memoryOverhead       float64
	Settings
}

func (s Settings) resolve() (resolved, error) {
	r := resolved{Settings: s, imageFamily: s.ImageFamily, gpuMode: s.GPUMode, osDiskGB: int64(s.OSDiskSizeGB), memoryOverhead: s.VMMemoryOverheadPercent}
	bad := func(field, format string, args ...any) (resolved, error) {
		return resolved{}, fmt.Errorf("%w: %s: %s", ErrInvalidSettings, field, fmt.Sprintf(format, args...))
	}
	switch s.ImageFamily {
	case "":
		r.imageFamily = ImageFamilyUbuntu
	case ImageFamilyUbuntu, ImageFamilyUbuntu2204, ImageFamilyUbuntu2404, ImageFamilyAzureLinux:
	default:
		return bad("imageFamily", "%q is not one of Ubuntu, Ubuntu2204, Ubuntu2404, AzureLinux", s.ImageFamily)
	}
	switch {
	case s.OSDiskSizeGB == 0:
		r.osDiskGB = DefaultOSDiskSizeGB
	case s.OSDiskSizeGB < 30 || s.OSDiskSizeGB > 2048:
		return bad("osDiskSizeGB", "%d is outside 30 to 2048", s.OSDiskSizeGB)
	}
	if s.MaxPods != 0 && (s.MaxPods < 10 || s.MaxPods > 250) {
		return bad("maxPods", "%d is outside 10 to 250", s.MaxPods)
	}
	switch s.NetworkPlugin {
	case "", NetworkPluginAzure, NetworkPluginKubenet, NetworkPluginNone:
	default:
		return bad("networkPlugin", "%q is not one of azure, kubenet, none", s.NetworkPlugin)
	}
	switch s.NetworkPluginMode {
	case "", NetworkPluginModeOverlay, NetworkPluginModeNodeSubnet:
	default:
		return bad("networkPluginMode", "%q is not one of overlay, none", s.NetworkPluginMode)
	}
	r.maxPods = int64(MaxPods(s.MaxPods, s.NetworkPlugin, s.NetworkPluginMode))
	switch s.GPUMode {
	case "":
		r.gpuMode = GPUModeDriver
	case GPUModeDriver, GPUModeNone:
	default:
		return bad("gpuMode", "%q is not one of Driver, None", s.GPUMode)
	}
	switch s.FIPSMode {
	case "", FIPSModeFIPS, "Disabled":
	default:
		return bad("fipsMode", "%q is not one of FIPS, Disabled", s.FIPSMode)
	}
	switch m := s.VMMemoryOverheadPercent; {
	case math.IsNaN(m) || m >= 1:
		return bad("vmMemoryOverheadPercent", "%v is not below 1", m)
	case m == 0:
		r.memoryOverhead = DefaultVMMemoryOverheadPercent
	case m < 0:
		r.memoryOverhead = 0
	}
	return r, nil
}

// MaxPods is the pod capacity of a node: maxPods when set (not 0), else
// the default of the network plugin and mode as the provider resolves it:
// 250 for plugin "none" and for azure with the overlay mode, 30 for azure
// with pods in the node subnet, 110 otherwise (kubenet). An empty plugin
// is azure and an empty mode overlay, the provider's defaults.
func MaxPods(maxPods int32, plugin, mode string) int32 {
	if maxPods != 0 {
		return maxPods
	}
	if plugin == "" {
		plugin = NetworkPluginAzure
	}
	if mode == "" {
		mode = NetworkPluginModeOverlay
	}
	switch {
	case plugin == NetworkPluginNone:
		return 250
	case plugin == NetworkPluginAzure && mode == NetworkPluginModeOverlay:
		return 250
	case plugin == NetworkPluginAzure && mode == NetworkPluginModeNodeSubnet:
		return 30
	}
	return 110
}

// restrictedSizes are sizes the provider never offers: the low-performance
// sizes AKS does not allow in node pools, and two sizes it lists as
// problematic.
var restrictedSizes = []string{
	"Basic_A0", "Basic_A1", "Basic_A2", "Basic_A3", "Basic_A4",
	"Standard_A0", "Standard_A1", "Standard_A1_v2", "Standard_B1ms", "Standard_B1s",
	"Standard_E64i_v3", "Standard_E64is_v3",
	"Standard_F1", "Standard_F1s",
}

// Catalog returns the VM sizes sold in region, modelled as Karpenter's
// Azure provider models them for a node class with these settings.
//
// Each size's facts come from the best source that has it: the region's
// own resource SKU table when the embedded data has one (southcentralus,
// westcentralus: all its sizes, priced or not, with their zones); else
// the reference table (southcentralus), for a size the region's price
// table prices, in all of the region's zones if it is zonal in the
// reference region, else regional; else the wider table of sizes whose
// capabilities are partly derived from their names (DerivedFacts), for a
// size the region's price table prices, in all of the region's zones.
// Sizes are then filtered
// as the provider does (filter): fewer than 2 vCPUs or 3.5 GiB, restricted,
// confidential, constrained-vCPU and unregistered GPU sizes, and those the
// settings rule out. Each size is offered on-demand and as spot in each of
// its zones, named <region>-<n>, and in the regional zone "0" (placement
// scope regional), as the provider makes offerings. Spot offerings are
// available only for sizes the table says are LowPriorityCapable.
// On-demand prices are the embedded table's, spot prices
// pricing.DefaultSpotModel's per zone (the provider starts with spot =
// on-demand until it fetches spot prices); a size without a price, or not
// in the provider's known sizes, costs MissingPrice.
//
// Unknown regions are an error naming the valid ones (Regions).
func Catalog(region string, s Settings) (instancetypes.Catalog, error) {
	r, err := s.resolve()
	if err != nil {
		return nil, err
	}
	d := mustData()
	prices, ok := d.regions[region]
	if !ok {
		return nil, fmt.Errorf("azure: unknown region %q: the embedded prices cover %d regions (azure.Regions(), or `karpsim instance-types --cloud azure --region R`): %s",
			region, len(d.regionNames), strings.Join(d.regionNames, ", "))
	}
	spot := pricing.DefaultSpotModel()
	var types []*instancetypes.InstanceType
	for _, c := range d.candidates(region) {
		rec := c.rec
		price, priced := prices.OnDemand[rec.Name]
		if !c.own && !priced {
			continue
		}
		if !priced || !rec.Known {
			price = MissingPrice
		}
		zones := rec.Zones
		if !c.own && (len(zones) > 0 || len(rec.Derived) > 0) {
			zones = prices.Zones
		}
		sz, err := parseVMSize(rec.Size)
		if err != nil || rec.Restricted || !supported(rec, sz) || !allowedBy(rec, r) {
			continue
		}
		it, err := r.instanceType(region, rec, sz, zones, price, spot)
		if err != nil {
			return nil, fmt.Errorf("azure: %s in %s: %w", rec.Name, region, err)
		}
		types = append(types, it)
	}
	return instancetypes.NewCatalog(types...)
}

// candidate is a size record that may be sold in a region; own says it
// comes from the region's own resource SKU table (and so is sold there
// with its zones, priced or not).
type candidate struct {
	rec skuRecord
	own bool
}

// candidates are the records of a region's sizes, by name, each from the
// best source that has it: the region's own resource SKU table, the
// reference region's table, then the sizes with derived facts.
func (d *dataset) candidates(region string) []candidate {
	var out []candidate
	seen := map[string]bool{}
	add := func(records []skuRecord, own bool) {
		for _, rec := range records {
			if !seen[rec.Name] {
				seen[rec.Name] = true
				out = append(out, candidate{rec: rec, own: own})
			}
		}
	}
	add(d.tables[region], true)
	add(d.tables[referenceRegion], false)
	add(d.wide, false)
	return out
}

var defaultCatalog = sync.OnceValues(func() (instancetypes.Catalog, error) {
	return Catalog(DefaultRegion, Settings{})
})

// Default is Catalog(DefaultRegion, Settings{}). It is built once; each
// call returns a new slice, but the instance types are shared by every
// caller and must not be modified.
func Default() instancetypes.Catalog {
	c, err := defaultCatalog()
	if err != nil {
		// Embedded data and default settings; the package's tests build it.
		panic(fmt.Sprintf("azure: default catalog: %v", err))
	}
	return slices.Clone(c)
}

// supported reports whether the provider lists a size at all, whatever
// the node class: at least 2 vCPUs and 3.5 GiB, not restricted, a GPU
// size only if the GPU registry lists it, no constrained vCPUs, and not
// confidential.
func supported(rec skuRecord, sz vmSize) bool {
	return rec.VCPUs >= 2 && rec.MemoryGB >= 3.5 &&
		!slices.Contains(restrictedSizes, rec.Name) &&
		(rec.GPUs <= 0 || rec.GPUManufacturer != "") &&
		sz.constrained == "" &&
		!confidential(rec.Size)
}

// allowedBy reports whether the node class's settings allow the size: a
// GPU size needs a driver for the image family's OS (and, in Driver mode,
// one AKS installs: NVIDIA's); encryption at host, LocalDNS and artifact
// streaming each need what they need of the size.
func allowedBy(rec skuRecord, r resolved) bool {
	gpu := rec.GPUManufacturer != ""
	if gpu {
		switch r.imageFamily {
		case ImageFamilyAzureLinux:
			if !slices.Contains(rec.GPUOS, "azurelinux") && !slices.Contains(rec.GPUOS, "azurelinux3") {
				return false
			}
		default:
			if !slices.Contains(rec.GPUOS, "ubuntu") {
				return false
			}
		}
		if r.gpuMode == GPUModeDriver && rec.GPUManufacturer != "nvidia" {
			return false
		}
	}
	switch {
	case r.EncryptionAtHost && !rec.EncryptionAtHost:
		return false
	case r.LocalDNS && (rec.VCPUs < 4 || memoryMiB(rec) < 244):
		return false
	case r.ArtifactStreaming && architecture(rec) == apis.ArchitectureArm64:
		return false
	}
	return true
}

// architecture is the Kubernetes name of the size's CPU architecture.
func architecture(rec skuRecord) string {
	switch rec.Architecture {
	case "x64":
		return apis.ArchitectureAmd64
	case "Arm64":
		return apis.ArchitectureArm64
	}
	return rec.Architecture
}

// memoryMiB is the size's memory in MiB, truncated (MemoryGB is in GiB).
func memoryMiB(rec skuRecord) int64 {
	return int64(rec.MemoryGB * 1024)
}

const (
	mib = 1 << 20
	gib = 1 << 30
)

// instanceType builds one size's instance type.
func (r resolved) instanceType(region string, rec skuRecord, sz vmSize, zones []string, price float64, spot pricing.SpotModel) (*instancetypes.InstanceType, error) {
	labels, absent, choices := r.labels(region, rec, sz)
	// The provider does not state the Windows build of its Linux nodes:
	// Karpenter leaves the well-known label undefined. The cluster label
	// it states from the node resource group, left undefined when the
	// settings do not give one.
	undefined := []string{apis.LabelWindowsBuild}
	if _, ok := labels[LabelAKSCluster]; !ok {
		undefined = append(undefined, LabelAKSCluster)
	}
	return instancetypes.NewInstanceType(instancetypes.Spec{
		Name:            rec.Name,
		Labels:          labels,
		AbsentLabels:    absent,
		UndefinedLabels: undefined,
		LabelChoices:    choices,
		// The Azure provider registers its own well-known labels: a size
		// states those it lacks as DoesNotExist and leaves AWS's undefined.
		LabelRules: apis.AzureLabels,
		Capacity:   r.capacity(rec),
		Overhead: instancetypes.Overhead{
			KubeReserved:      KubeReserved(rec.VCPUs, rec.MemoryGB),
			EvictionThreshold: resources.New(0, EvictionMemory, 0),
		},
		Offerings: offerings(region, rec, zones, price, spot),
	})
}

// capacity is the node's capacity: the vCPUs; the memory in whole GiB
// less the VM overhead (rounded up to a byte); the OS disk as ephemeral
// storage (decimal GB); the pods; and the GPUs of the registry's NVIDIA or
// AMD sizes.
func (r resolved) capacity(rec skuRecord) resources.Vector {
	memory := int64(rec.MemoryGB) * gib
	memory -= int64(math.Ceil(float64(memory) * r.memoryOverhead))
	v := resources.New(rec.VCPUs*1000, memory, r.maxPods).
		With(corev1.ResourceEphemeralStorage, r.osDiskGB*1_000_000_000)
	switch rec.GPUManufacturer {
	case "nvidia":
		v = v.With(apis.ResourceNVIDIAGPU, rec.GPUs)
	case "amd":
		v = v.With(apis.ResourceAMDGPU, rec.GPUs)
	}
	return v
}

// EvictionMemory is the hard eviction threshold of memory.available AKS
// sets, 750 MiB; there is none for storage.
const EvictionMemory = 750 * mib

// bracket is one band of a progressive reservation: rate of what lies
// between the previous band's bound and upTo.
type bracket struct{ upTo, rate float64 }

// cpuBrackets reserve 6% of the first vCPU, 4% of the second, 2% of the
// third and fourth, and 1% of the rest; memoryBrackets 25% of the first 4
// GiB, 20% of the next 4, 10% of the next 8, 6% up to 128 GiB and 2% of
// the rest: AKS's kube-reserved.
var (
	cpuBrackets    = []bracket{{1, 0.06}, {2, 0.04}, {4, 0.02}, {math.MaxFloat64, 0.01}}
	memoryBrackets = []bracket{{4, 0.25}, {8, 0.20}, {16, 0.10}, {128, 0.06}, {math.MaxFloat64, 0.02}}
)

// reserve sums each band's rate times the part of amount in it, band by
// band from the first (float64, in that order, so that truncating the sum
// agrees with the provider's).
func reserve(brackets []bracket, amount float64) float64 {
	var total, from float64
	for _, b := range brackets {
		if from > amount {
			break
		}
		total += (min(b.upTo, amount) - from) * b.rate
		from = b.upTo
	}
	return total
}

// KubeReserved is AKS's kube-reserved for a size of vcpus vCPUs and
// memoryGiB GiB of memory: the CPU brackets' sum in whole millicores and
// the memory brackets' sum in whole MiB, each truncated. Examples (by the
// brackets): 2 vCPUs reserve 60+40 = 100m; 4 vCPUs 60+40+2×20 = 140m; 8
// GiB reserves 1 + 0.8 = 1.8 GiB = 1843 MiB.
func KubeReserved(vcpus int64, memoryGiB float64) resources.Vector {
	cpuMilli := int64(1000 * reserve(cpuBrackets, float64(vcpus)))
	memMiB := int64(1024 * reserve(memoryBrackets, memoryGiB))
	return resources.New(cpuMilli, memMiB*mib, 0)
}

// offerings are on-demand and spot in each zone (<region>-<n>) and in the
// regional zone "0", each with its placement scope (zonal, or regional in
// zone "0") as its label, and zonal ones preferred at equal prices, as the
// provider ranks offerings: price, then spot before on-demand, then zonal
// before regional.
func offerings(region string, rec skuRecord, zones []string, price float64, spot pricing.SpotModel) []instancetypes.Offering {
	names := make([]string, 0, len(zones)+1)
	for _, z := range zones {
		names = append(names, region+"-"+z)
	}
	names = append(names, RegionalZone)
	out := make([]instancetypes.Offering, 0, 2*len(names))
	for _, zone := range names {
		spotPrice := price
		if price != MissingPrice {
			spotPrice = spot.Price(rec.Name, zone, price)
		}
		scope, preference := instancetypes.OfferingLabel{Key: LabelPlacementScope, Value: PlacementScopeZonal}, 0
		if zone == RegionalZone {
			scope, preference = instancetypes.OfferingLabel{Key: LabelPlacementScope, Value: PlacementScopeRegional}, 1
		}
		out = append(out,
			instancetypes.Offering{Zone: zone, CapacityType: apis.CapacityTypeOnDemand, Price: price, Available: true, Label: scope, Preference: preference},
			instancetypes.Offering{Zone: zone, CapacityType: apis.CapacityTypeSpot, Price: spotPrice, Available: rec.LowPriorityCapable, Label: scope, Preference: preference},
		)
	}
	return out
}

// RegionalZone is the zone label of a regional (non-zonal) VM.
const RegionalZone = "0"

// Placement scopes: the karpenter.azure.com/placement-scope of a VM in a
// zone, or of one placed regionally (zone "0").
const (
	PlacementScopeZonal    = "zonal"
	PlacementScopeRegional = "regional"
)

// Labels the Azure provider sets.
const (
	Group     = "karpenter.azure.com"
	AKSDomain = "kubernetes.azure.com"

	LabelSKUName                  = Group + "/sku-name"
	LabelSKUFamily                = Group + "/sku-family"
	LabelSKUSeries                = Group + "/sku-series"
	LabelSKUVersion               = Group + "/sku-version"
	LabelSKUCPU                   = Group + "/sku-cpu"
	LabelSKUMemory                = Group + "/sku-memory"
	LabelSKUAcceleratedNetworking = Group + "/sku-networking-accelerated"
	LabelSKUStoragePremiumCapable = Group + "/sku-storage-premium-capable"
	LabelSKUEphemeralOSMaxSize    = Group + "/sku-storage-ephemeralos-maxsize"
	LabelSKUUltraSSD              = Group + "/sku-storage-ultra-ssd"
	LabelSKUGPUName               = Group + "/sku-gpu-name"
	LabelSKUGPUManufacturer       = Group + "/sku-gpu-manufacturer"
	LabelSKUGPUCount              = Group + "/sku-gpu-count"
	LabelSKUHyperVGeneration      = Group + "/sku-hyperv-generation"
	LabelPlacementScope           = Group + "/placement-scope"

	LabelAKSCPU              = AKSDomain + "/sku-cpu"
	LabelAKSMemory           = AKSDomain + "/sku-memory"
	LabelAKSCluster          = AKSDomain + "/cluster"
	LabelAKSMode             = AKSDomain + "/mode"
	LabelAKSScaleSetPriority = AKSDomain + "/scalesetpriority"
	LabelAKSPriority         = AKSDomain + "/priority"
	LabelAKSOSSKU            = AKSDomain + "/os-sku"
	LabelAKSFIPSEnabled      = AKSDomain + "/fips_enabled"
)

// WellKnownLabels are the labels the Azure provider registers as well
// known, sorted: the NodePool requirements Karpenter may satisfy with them.
func WellKnownLabels() []string {
	out := []string{
		LabelSKUName, LabelSKUFamily, LabelSKUSeries, LabelSKUVersion,
		LabelSKUCPU, LabelSKUMemory, LabelAKSCPU, LabelAKSMemory,
		LabelSKUAcceleratedNetworking, LabelSKUStoragePremiumCapable, LabelSKUEphemeralOSMaxSize, LabelSKUUltraSSD,
		LabelSKUGPUName, LabelSKUGPUManufacturer, LabelSKUGPUCount, LabelPlacementScope,
		LabelAKSCluster, LabelAKSMode, LabelAKSScaleSetPriority, LabelAKSPriority, LabelAKSOSSKU, LabelAKSFIPSEnabled,
	}
	slices.Sort(out)
	return out
}

// labels are the size's labels, the labels it lacks, and those a launch
// chooses among several values (the first one the NodeClaim allows):
// node mode (user, then system), priority (regular, then spot), ultra SSD where the
// regional offering has it (false, then true) and the Hyper-V generation
// of a size with both (2, then 1).
func (r resolved) labels(region string, rec skuRecord, sz vmSize) (map[string]string, []string, map[string][]string) {
	cpu, memory := strconv.FormatInt(rec.VCPUs, 10), strconv.FormatInt(memoryMiB(rec), 10)
	labels := map[string]string{
		apis.LabelArch:                architecture(rec),
		apis.LabelOS:                  string(corev1.Linux),
		apis.LabelTopologyRegion:      region,
		LabelSKUName:                  rec.Name,
		LabelSKUFamily:                sz.family,
		LabelSKUSeries:                sz.series(),
		LabelSKUCPU:                   cpu,
		LabelSKUMemory:                memory,
		LabelAKSCPU:                   cpu,
		LabelAKSMemory:                memory,
		LabelSKUAcceleratedNetworking: strconv.FormatBool(rec.AcceleratedNetworking),
		LabelSKUStoragePremiumCapable: strconv.FormatBool(rec.PremiumIO),
		LabelAKSOSSKU:                 osSKU(r.imageFamily),
	}
	var absent []string
	choices := map[string][]string{
		LabelAKSMode:             {"user", "system"},
		LabelAKSScaleSetPriority: {"regular", "spot"},
		LabelAKSPriority:         {"regular", "spot"},
	}
	if rec.UltraSSDAvailable {
		choices[LabelSKUUltraSSD] = []string{"false", "true"}
	} else {
		labels[LabelSKUUltraSSD] = "false"
	}
	gpus := int64(0)
	if rec.GPUManufacturer != "" {
		gpus = rec.GPUs
	}
	labels[LabelSKUGPUCount] = strconv.FormatInt(gpus, 10)
	if rec.GPUManufacturer == "nvidia" || rec.GPUManufacturer == "amd" {
		labels[LabelSKUGPUManufacturer] = rec.GPUManufacturer
		if sz.accelerator != "" {
			labels[LabelSKUGPUName] = sz.accelerator
		} else {
			absent = append(absent, LabelSKUGPUName)
		}
	} else {
		absent = append(absent, LabelSKUGPUManufacturer, LabelSKUGPUName)
	}
	if v := sz.versionNumber(); v != "" {
		labels[LabelSKUVersion] = v
	} else {
		absent = append(absent, LabelSKUVersion)
	}
	if size, _ := ephemeralOSDisk(rec); size > 0 {
		labels[LabelSKUEphemeralOSMaxSize] = strconv.FormatInt(size, 10)
	} else {
		absent = append(absent, LabelSKUEphemeralOSMaxSize)
	}
	var gens []string
	if strings.Contains(strings.ToUpper(rec.HyperVGenerations), "V2") {
		gens = append(gens, "2")
	}
	if strings.Contains(strings.ToUpper(rec.HyperVGenerations), "V1") {
		gens = append(gens, "1")
	}
	switch len(gens) {
	case 0:
		absent = append(absent, LabelSKUHyperVGeneration)
	case 1:
		labels[LabelSKUHyperVGeneration] = gens[0]
	default:
		choices[LabelSKUHyperVGeneration] = gens
	}
	if r.FIPSMode == FIPSModeFIPS {
		labels[LabelAKSFIPSEnabled] = "true"
	} else {
		absent = append(absent, LabelAKSFIPSEnabled)
	}
	if r.NodeResourceGroup != "" {
		labels[LabelAKSCluster] = clusterLabel(r.NodeResourceGroup)
	}
	slices.Sort(absent)
	return labels, absent, choices
}

// osSKU is the kubernetes.azure.com/os-sku of an image family.
func osSKU(imageFamily string) string {
	if imageFamily == ImageFamilyAzureLinux {
		return "AzureLinux"
	}
	return "Ubuntu"
}

// clusterLabel makes a node resource group name a label value as AKS
// does: parentheses become dashes, at most 63 characters, and a trailing
// dash, underscore or dot gets a "z" (replacing the last character when
// the name is 63 long).
func clusterLabel(group string) string {
	s := strings.NewReplacer("(", "-", ")", "-").Replace(group)
	s = s[:min(len(s), 63)]
	if strings.HasSuffix(s, "-") || strings.HasSuffix(s, "_") || strings.HasSuffix(s, ".") {
		if len(s) > 62 {
			return s[:len(s)-1] + "z"
		}
		return s + "z"
	}
	return s
}

// Ephemeral OS disk placements.
const (
	PlacementNVMe         = "NvmeDisk"
	PlacementCacheDisk    = "CacheDisk"
	PlacementResourceDisk = "ResourceDisk"
)

// ephemeralOSDisk is the largest ephemeral OS disk the size takes, in
// decimal GB (truncated), and where it goes: the NVMe disks when the size
// supports that placement, else the cache disk, else the resource (temp)
// disk; 0 and "" when the size supports no ephemeral OS disk. The
// provider puts the OS disk there when the node class's osDiskSizeGB fits.
func ephemeralOSDisk(rec skuRecord) (int64, string) {
	if !rec.EphemeralOSDisk {
		return 0, ""
	}
	if rec.NvmeDiskSizeInMiB > 0 && slices.Contains(strings.Split(rec.EphemeralPlacements, ","), PlacementNVMe) {
		return rec.NvmeDiskSizeInMiB * mib / 1_000_000_000, PlacementNVMe
	}
	if rec.CachedDiskBytes > 0 {
		return rec.CachedDiskBytes / 1_000_000_000, PlacementCacheDisk
	}
	if rec.MaxResourceVolumeMB > 0 {
		return rec.MaxResourceVolumeMB * mib / 1_000_000_000, PlacementResourceDisk
	}
	return 0, ""
}
