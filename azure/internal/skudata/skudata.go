// Package skudata is the format of package azure's embedded data files,
// which its generator (azure/internal/gen) writes and package azure reads:
// one type for both sides.
package skudata

// SKU is one line of skus.jsonl: one size in one region's resource SKU
// table, with the capabilities package azure reads as the resource SKU API
// reports them there (some, such as LowPriorityCapable and
// UltraSSDAvailable, differ between regions).
type SKU struct {
	Region string `json:"region,omitempty"`
	Name   string `json:"name"`
	Size   string `json:"size"`
	Family string `json:"family"`
	VCPUs  int64  `json:"vCPUs"`
	// MemoryGB is the MemoryGB capability, which is in GiB.
	MemoryGB              float64 `json:"memoryGB"`
	Architecture          string  `json:"cpuArchitectureType"`
	HyperVGenerations     string  `json:"hyperVGenerations,omitempty"`
	PremiumIO             bool    `json:"premiumIO"`
	AcceleratedNetworking bool    `json:"acceleratedNetworkingEnabled"`
	LowPriorityCapable    bool    `json:"lowPriorityCapable"`
	EncryptionAtHost      bool    `json:"encryptionAtHostSupported"`
	EphemeralOSDisk       bool    `json:"ephemeralOSDiskSupported"`
	EphemeralPlacements   string  `json:"supportedEphemeralOSDiskPlacements,omitempty"`
	CachedDiskBytes       int64   `json:"cachedDiskBytes,omitempty"`
	// MaxResourceVolumeMB is in MiB, as the API's is.
	MaxResourceVolumeMB int64 `json:"maxResourceVolumeMB,omitempty"`
	NvmeDiskSizeInMiB   int64 `json:"nvmeDiskSizeInMiB,omitempty"`
	GPUs                int64 `json:"gpus,omitempty"`
	UltraSSDAvailable   bool  `json:"ultraSSDAvailable"`
	// Zones are the logical zones of the size in the region, less those a
	// zone restriction removes; empty for a regional (non-zonal) size.
	Zones []string `json:"zones"`
	// Restricted is true when a location restriction keeps the size from
	// the region (not available for the subscription); the provider drops
	// it. RestrictedZones are the zones a zone restriction removes.
	Restricted      bool     `json:"restricted,omitempty"`
	RestrictedZones []string `json:"restrictedZones,omitempty"`
	// Known is true for sizes in known_skus.yaml.
	Known bool `json:"known"`
	// GPUManufacturer and GPUOS are the size's entry in the GPU registry.
	GPUManufacturer string   `json:"gpuManufacturer,omitempty"`
	GPUOS           []string `json:"gpuOS,omitempty"`
	// Derived names the capabilities derived from the size's name rather
	// than read from a resource SKU table (sizes.jsonl.gz only).
	Derived []string `json:"derived,omitempty"`
}

// Prices is prices.json.gz: the regions of the price table with their
// logical zones (from the region list; absent when it does not list the
// region) and their on-demand prices.
type Prices struct {
	GeneratedAt string                  `json:"generatedAt"`
	Regions     map[string]RegionPrices `json:"regions"`
}

// RegionPrices is one region of Prices.
type RegionPrices struct {
	Zones    []string           `json:"zones,omitempty"`
	Listed   bool               `json:"listed"`
	OnDemand map[string]float64 `json:"onDemand"`
}
