package azure

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
)

//go:generate go run ./internal/gen -out data

//go:embed data/skus.jsonl
var skusJSONL []byte

//go:embed data/prices.json.gz
var pricesGzip []byte

// skuRecord is one line of data/skus.jsonl: one VM size as one region's
// resource SKU table lists it. Field meanings are the resource SKU API's
// capabilities; see data/README.md.
type skuRecord struct {
	Region                string   `json:"region"`
	Name                  string   `json:"name"`
	Size                  string   `json:"size"`
	Family                string   `json:"family"`
	VCPUs                 int64    `json:"vCPUs"`
	MemoryGB              float64  `json:"memoryGB"`
	Architecture          string   `json:"cpuArchitectureType"`
	HyperVGenerations     string   `json:"hyperVGenerations"`
	PremiumIO             bool     `json:"premiumIO"`
	AcceleratedNetworking bool     `json:"acceleratedNetworkingEnabled"`
	LowPriorityCapable    bool     `json:"lowPriorityCapable"`
	EncryptionAtHost      bool     `json:"encryptionAtHostSupported"`
	EphemeralOSDisk       bool     `json:"ephemeralOSDiskSupported"`
	EphemeralPlacements   string   `json:"supportedEphemeralOSDiskPlacements"`
	CachedDiskBytes       int64    `json:"cachedDiskBytes"`
	MaxResourceVolumeMB   int64    `json:"maxResourceVolumeMB"`
	NvmeDiskSizeInMiB     int64    `json:"nvmeDiskSizeInMiB"`
	GPUs                  int64    `json:"gpus"`
	UltraSSDAvailable     bool     `json:"ultraSSDAvailable"`
	Zones                 []string `json:"zones"`
	Restricted            bool     `json:"restricted"`
	RestrictedZones       []string `json:"restrictedZones"`
	Known                 bool     `json:"known"`
	GPUManufacturer       string   `json:"gpuManufacturer"`
	GPUOS                 []string `json:"gpuOS"`
}

// regionData is one region of data/prices.json.gz.
type regionData struct {
	// Zones are the region's logical zones ("1", "2", "3"); none for a
	// region without availability zones.
	Zones []string `json:"zones"`
	// Listed says the region list gives the region (and so its zones).
	Listed   bool               `json:"listed"`
	OnDemand map[string]float64 `json:"onDemand"`
}

// dataset is the embedded data, parsed.
type dataset struct {
	generatedAt string
	regions     map[string]regionData
	regionNames []string
	// tables are the resource SKU tables by region, each sorted by name.
	tables map[string][]skuRecord
}

// referenceRegion is the region whose resource SKU table stands for the
// regions without one: the newest table of the source.
const referenceRegion = "southcentralus"

var loadData = sync.OnceValues(func() (*dataset, error) {
	d := &dataset{tables: map[string][]skuRecord{}}
	sc := bufio.NewScanner(bytes.NewReader(skusJSONL))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r skuRecord
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("data/skus.jsonl:%d: %w", line, err)
		}
		d.tables[r.Region] = append(d.tables[r.Region], r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("data/skus.jsonl: %w", err)
	}
	for _, t := range d.tables {
		sort.Slice(t, func(i, j int) bool { return t[i].Name < t[j].Name })
	}
	if _, ok := d.tables[referenceRegion]; !ok {
		return nil, fmt.Errorf("data/skus.jsonl: no table for the reference region %s", referenceRegion)
	}
	zr, err := gzip.NewReader(bytes.NewReader(pricesGzip))
	if err != nil {
		return nil, fmt.Errorf("data/prices.json.gz: %w", err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("data/prices.json.gz: %w", err)
	}
	var prices struct {
		GeneratedAt string                `json:"generatedAt"`
		Regions     map[string]regionData `json:"regions"`
	}
	if err := json.Unmarshal(body, &prices); err != nil {
		return nil, fmt.Errorf("data/prices.json.gz: %w", err)
	}
	d.generatedAt, d.regions = prices.GeneratedAt, prices.Regions
	for name := range d.regions {
		d.regionNames = append(d.regionNames, name)
	}
	slices.Sort(d.regionNames)
	if _, ok := d.regions[DefaultRegion]; !ok {
		return nil, fmt.Errorf("data/prices.json.gz: no prices for the default region %s", DefaultRegion)
	}
	return d, nil
})

// mustData returns the embedded data; the package's tests parse it, so a
// failure is a build defect.
func mustData() *dataset {
	d, err := loadData()
	if err != nil {
		panic(fmt.Sprintf("azure: embedded data: %v", err))
	}
	return d
}

// Regions lists the regions the embedded price table covers, sorted.
func Regions() []string {
	return slices.Clone(mustData().regionNames)
}

// PricesAsOf is when the embedded on-demand prices were fetched (RFC 3339),
// as the source table says.
func PricesAsOf() string {
	return mustData().generatedAt
}
