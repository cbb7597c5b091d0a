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
	"strings"
	"sync"

	"github.com/karpsim/karpsim/azure/internal/skudata"
)

//go:generate go run ./internal/gen -out data

//go:embed data/skus.jsonl
var skusJSONL []byte

//go:embed data/prices.json.gz
var pricesGzip []byte

//go:embed data/sizes.jsonl.gz
var sizesGzip []byte

// skuRecord is one line of data/skus.jsonl or data/sizes.jsonl.gz: one VM
// size as one region's resource SKU table lists it, or as Cluster
// Autoscaler's table gives it; see data/README.md.
type skuRecord = skudata.SKU

// regionData is one region of data/prices.json.gz.
type regionData = skudata.RegionPrices

// dataset is the embedded data, parsed.
type dataset struct {
	generatedAt string
	regions     map[string]regionData
	regionNames []string
	// tables are the resource SKU tables by region, each sorted by name.
	tables map[string][]skuRecord
	// wide are the sizes of data/sizes.jsonl.gz, in no resource SKU
	// table, sorted by name.
	wide []skuRecord
}

// referenceRegion is the region whose resource SKU table stands for the
// regions without one: the newest table of the source.
const referenceRegion = "southcentralus"

// readRecords parses JSON lines of size records; file names the file in
// errors.
func readRecords(file string, src []byte, each func(skuRecord) error) error {
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r skuRecord
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return fmt.Errorf("%s:%d: %w", file, line, err)
		}
		if err := each(r); err != nil {
			return fmt.Errorf("%s:%d: %s: %w", file, line, r.Name, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// gunzip is the content of a gzipped embedded file.
func gunzip(file string, src []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return body, nil
}

var loadData = sync.OnceValues(func() (*dataset, error) {
	d := &dataset{tables: map[string][]skuRecord{}}
	err := readRecords("data/skus.jsonl", skusJSONL, func(r skuRecord) error {
		if len(r.Derived) > 0 {
			return fmt.Errorf("a resource SKU table record has derived facts")
		}
		d.tables[r.Region] = append(d.tables[r.Region], r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sizes, err := gunzip("data/sizes.jsonl.gz", sizesGzip)
	if err != nil {
		return nil, err
	}
	err = readRecords("data/sizes.jsonl.gz", sizes, func(r skuRecord) error {
		if r.Region != "" || len(r.Derived) == 0 {
			return fmt.Errorf("a derived record has a region or no derived facts")
		}
		d.wide = append(d.wide, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(d.wide, func(i, j int) bool { return d.wide[i].Name < d.wide[j].Name })
	for _, t := range d.tables {
		sort.Slice(t, func(i, j int) bool { return t[i].Name < t[j].Name })
	}
	if _, ok := d.tables[referenceRegion]; !ok {
		return nil, fmt.Errorf("data/skus.jsonl: no table for the reference region %s", referenceRegion)
	}
	body, err := gunzip("data/prices.json.gz", pricesGzip)
	if err != nil {
		return nil, err
	}
	var prices skudata.Prices
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

// DerivedFacts names the capabilities of a VM size that the catalog
// derives from Azure's size naming convention (or a documented default)
// because no resource SKU table of the embedded data describes the size:
// data/README.md lists the rules. It is nil for sizes a table describes
// and for names the data does not hold.
func DerivedFacts(name string) []string {
	w := mustData().wide
	i, ok := slices.BinarySearchFunc(w, name, func(r skuRecord, name string) int { return strings.Compare(r.Name, name) })
	if !ok {
		return nil
	}
	return slices.Clone(w[i].Derived)
}
