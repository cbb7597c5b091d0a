// Command gen writes the embedded data of package azure from a git mirror
// of Azure/karpenter-provider-azure: the resource SKU tables of its fake
// Azure API (pkg/fake/zz_generated.sku.*.go), its list of known VM sizes
// (pkg/providers/instancetype/known_skus.yaml), its registry of supported
// GPU sizes (pkg/utils/supported-gpus.yaml), its region list with logical
// zones (pkg/fake/locations.json) and its on-demand price table
// (pkg/providers/pricing/zz_generated.pricing.go). It reads the files with
// `git show REV:PATH`, so the mirror may be bare.
//
// Usage, from the module root:
//
//	go run ./azure/internal/gen -mirror /work/.mirror/Azure+karpenter-provider-azure/repo -rev v1.14.2
//
// The output is deterministic: the same mirror and revision give the same
// bytes.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/karpsim/karpsim/azure/internal/skudata"
)

func main() {
	mirror := flag.String("mirror", "/work/.mirror/Azure+karpenter-provider-azure/repo", "bare git `DIR` of Azure/karpenter-provider-azure")
	rev := flag.String("rev", "v1.14.2", "git `REV` to read")
	caMirror := flag.String("ca-mirror", "/work/.mirror/kubernetes+autoscaler/repo", "bare git `DIR` of kubernetes/autoscaler")
	caRev := flag.String("ca-rev", "55c37cd5eb550756c5ccc5a89e9068d77797e575", "git `REV` of kubernetes/autoscaler to read")
	out := flag.String("out", "azure/data", "output `DIR`")
	flag.Parse()
	if err := run(*mirror, *rev, *caMirror, *caRev, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// sku is a line of the data files (skudata.SKU).
type sku = skudata.SKU

func run(mirror, rev, caMirror, caRev, out string) error {
	show := func(path string) ([]byte, error) { return gitShow(mirror, rev, path) }
	commit, err := exec.Command("git", "-C", mirror, "rev-parse", rev+"^{commit}").Output()
	if err != nil {
		return fmt.Errorf("git rev-parse %s: %w", rev, err)
	}
	list, err := exec.Command("git", "-C", mirror, "ls-tree", "--name-only", rev, "pkg/fake/").Output()
	if err != nil {
		return fmt.Errorf("git ls-tree %s pkg/fake/: %w", rev, err)
	}
	skus := map[string]*sku{}
	var skuFiles []string
	for _, path := range strings.Fields(string(list)) {
		region, ok := strings.CutPrefix(filepath.Base(path), "zz_generated.sku.")
		if !ok {
			continue
		}
		region = strings.TrimSuffix(region, ".go")
		src, err := show(path)
		if err != nil {
			return err
		}
		if err := parseSKUTable(src, region, skus); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		skuFiles = append(skuFiles, path)
	}
	if len(skus) == 0 {
		return errors.New("no resource SKU table found under pkg/fake/")
	}
	known, err := show("pkg/providers/instancetype/known_skus.yaml")
	if err != nil {
		return err
	}
	knownNames := parseKnown(known)
	gpus, err := show("pkg/utils/supported-gpus.yaml")
	if err != nil {
		return err
	}
	registry := parseGPURegistry(gpus)
	caSrc, err := gitShow(caMirror, caRev, caPath)
	if err != nil {
		return err
	}
	caTable, err := parseCASizes(caSrc)
	if err != nil {
		return fmt.Errorf("kubernetes/autoscaler %s: %w", caPath, err)
	}
	pricesSrc, err := show("pkg/providers/pricing/zz_generated.pricing.go")
	if err != nil {
		return err
	}
	prices, generatedAt, err := parsePrices(pricesSrc)
	if err != nil {
		return fmt.Errorf("pkg/providers/pricing/zz_generated.pricing.go: %w", err)
	}
	wide, skipped, err := wideSizes(caTable, skus, prices)
	if err != nil {
		return fmt.Errorf("kubernetes/autoscaler %s: %w", caPath, err)
	}
	for _, s := range append(slices.Collect(maps.Values(skus)), slices.Collect(maps.Values(wide))...) {
		s.Known = knownNames[s.Name]
		if g, ok := registry[strings.TrimSuffix(strings.ToLower(s.Name), "_promo")]; ok {
			s.GPUManufacturer, s.GPUOS = g.manufacturer, g.os
		}
	}
	locations, err := show("pkg/fake/locations.json")
	if err != nil {
		return err
	}
	regionZones, err := parseLocations(locations)
	if err != nil {
		return fmt.Errorf("pkg/fake/locations.json: %w", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeSKUs(filepath.Join(out, "skus.jsonl"), skus); err != nil {
		return err
	}
	if err := writeGzipLines(filepath.Join(out, "sizes.jsonl.gz"), wide); err != nil {
		return err
	}
	if err := writePrices(filepath.Join(out, "prices.json.gz"), prices, regionZones, generatedAt); err != nil {
		return err
	}
	caCommit, err := exec.Command("git", "-C", caMirror, "log", "-1", "--format=%H %cI", caRev).Output()
	if err != nil {
		return fmt.Errorf("git log %s: %w", caRev, err)
	}
	fmt.Printf("source %s (%s)\nSKU tables: %s\nsize records: %d, priced regions: %d\n", rev, strings.TrimSpace(string(commit)), strings.Join(skuFiles, ", "), len(skus), len(prices))
	fmt.Printf("kubernetes/autoscaler %s (%s): %d sizes; %d priced sizes in no SKU table written with derived facts; %d priced sizes skipped (name outside the convention): %s\n",
		caPath, strings.TrimSpace(string(caCommit)), len(caTable), len(wide), len(skipped), strings.Join(skipped, " "))
	return nil
}

// gitShow is `git show REV:PATH` in the git directory mirror.
func gitShow(mirror, rev, path string) ([]byte, error) {
	cmd := exec.Command("git", "-C", mirror, "show", rev+":"+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git show %s:%s: %w: %s", rev, path, err, strings.TrimSpace(stderr.String()))
	}
	return b, nil
}

var (
	skuNameLine  = regexp.MustCompile(`^\t\t\tName:\s+lo\.ToPtr\("([^"]+)"\),$`)
	fieldLine    = regexp.MustCompile(`^\t\t\t(Size|Family|ResourceType):\s+lo\.ToPtr\("([^"]*)"\),$`)
	capability   = regexp.MustCompile(`^\s*\{Name: lo\.ToPtr\("([^"]+)"\), Value: lo\.ToPtr\("([^"]*)"\)\},$`)
	locationLine = regexp.MustCompile(`LocationInfo: .*Location: lo\.ToPtr\("([^"]+)"\), Zones: &\[\]string\{(\}\}\},)?$`)
	zoneLine     = regexp.MustCompile(`^\s*"([0-9]+)",$`)
	restriction  = regexp.MustCompile(`Restrictions: &\[\]compute\.ResourceSkuRestrictions\{(.*)`)
	restrictType = regexp.MustCompile(`Type:\s+compute\.ResourceSkuRestrictionsType\("([A-Za-z]+)"\),$`)
	quoted       = regexp.MustCompile(`^\s*"([^"]+)",$`)
)

// parseSKUTable reads one generated resource SKU table: a Go file with one
// composite literal per SKU, one field per line.
func parseSKUTable(src []byte, region string, skus map[string]*sku) error {
	var cur *sku
	var caps map[string]string
	inZones, inRestrictions := false, false
	var restrictionType string
	finish := func() error {
		if cur == nil {
			return nil
		}
		s, err := fromCapabilities(cur, caps)
		if err != nil {
			return fmt.Errorf("%s: %w", cur.Name, err)
		}
		key := region + "/" + s.Name
		if _, ok := skus[key]; ok {
			return fmt.Errorf("%s: listed twice", s.Name)
		}
		skus[key] = s
		cur = nil
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if m := skuNameLine.FindStringSubmatch(text); m != nil {
			if err := finish(); err != nil {
				return err
			}
			cur = &sku{Region: region, Name: m[1]}
			caps = map[string]string{}
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case inRestrictions:
			switch {
			case text == "\t\t\t},":
				inRestrictions = false
			case restrictType.MatchString(text):
				restrictionType = restrictType.FindStringSubmatch(text)[1]
				if restrictionType == "Location" {
					cur.Restricted = true
				} else if restrictionType != "Zone" {
					return fmt.Errorf("line %d: %s: restriction type %q is not read", line, cur.Name, restrictionType)
				}
			case restrictionType == "Zone" && quoted.MatchString(text) && zoneLine.MatchString(text):
				cur.RestrictedZones = append(cur.RestrictedZones, zoneLine.FindStringSubmatch(text)[1])
			}
		case inZones:
			if m := zoneLine.FindStringSubmatch(text); m != nil {
				cur.Zones = append(cur.Zones, m[1])
			} else {
				inZones = false
				cur.Zones = slices.DeleteFunc(cur.Zones, func(z string) bool {
					return slices.Contains(cur.RestrictedZones, z)
				})
				slices.Sort(cur.Zones)
			}
		case fieldLine.MatchString(text):
			m := fieldLine.FindStringSubmatch(text)
			switch m[1] {
			case "Size":
				cur.Size = m[2]
			case "Family":
				cur.Family = m[2]
			case "ResourceType":
				if m[2] != "virtualMachines" {
					return fmt.Errorf("line %d: %s: resource type %q", line, cur.Name, m[2])
				}
			}
		case capability.MatchString(text):
			m := capability.FindStringSubmatch(text)
			caps[m[1]] = m[2]
		case restriction.MatchString(text):
			if rest := restriction.FindStringSubmatch(text)[1]; rest != "}," {
				inRestrictions, restrictionType = true, ""
			}
		case locationLine.MatchString(text):
			m := locationLine.FindStringSubmatch(text)
			if m[1] != region {
				return fmt.Errorf("line %d: %s: location %q in the table of %q", line, cur.Name, m[1], region)
			}
			cur.Zones = []string{}
			inZones = m[2] == ""
		case strings.Contains(text, "ZoneDetails"):
			return fmt.Errorf("line %d: %s: zone details are not read", line, cur.Name)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return finish()
}

// fromCapabilities fills the capabilities of s from the API's name/value
// pairs.
func fromCapabilities(s *sku, caps map[string]string) (*sku, error) {
	var err error
	integer := func(name string, required bool) int64 {
		v, ok := caps[name]
		if !ok {
			if required && err == nil {
				err = fmt.Errorf("capability %s: missing", name)
			}
			return 0
		}
		n, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil && err == nil {
			err = fmt.Errorf("capability %s: %w", name, perr)
		}
		return n
	}
	flag := func(name string) bool { return strings.EqualFold(caps[name], "True") }
	s.VCPUs = integer("vCPUs", true)
	if v, ok := caps["MemoryGB"]; !ok {
		return nil, errors.New("capability MemoryGB: missing")
	} else if s.MemoryGB, err = strconv.ParseFloat(v, 64); err != nil {
		return nil, fmt.Errorf("capability MemoryGB: %w", err)
	}
	s.Architecture = caps["CpuArchitectureType"]
	if s.Architecture == "" {
		return nil, errors.New("capability CpuArchitectureType: missing")
	}
	s.HyperVGenerations = caps["HyperVGenerations"]
	s.PremiumIO = flag("PremiumIO")
	s.AcceleratedNetworking = flag("AcceleratedNetworkingEnabled")
	s.LowPriorityCapable = flag("LowPriorityCapable")
	s.EncryptionAtHost = flag("EncryptionAtHostSupported")
	s.EphemeralOSDisk = flag("EphemeralOSDiskSupported")
	s.EphemeralPlacements = caps["SupportedEphemeralOSDiskPlacements"]
	s.CachedDiskBytes = integer("CachedDiskBytes", false)
	s.MaxResourceVolumeMB = integer("MaxResourceVolumeMB", false)
	s.NvmeDiskSizeInMiB = integer("NvmeDiskSizeInMiB", false)
	s.GPUs = integer("GPUs", false)
	s.UltraSSDAvailable = flag("UltraSSDAvailable")
	if s.Size == "" || s.Family == "" {
		return nil, errors.New("size or family: missing")
	}
	return s, err
}

var knownName = regexp.MustCompile(`^- name: (\S+)$`)

func parseKnown(src []byte) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(string(src), "\n") {
		if m := knownName.FindStringSubmatch(line); m != nil {
			out[m[1]] = true
		}
	}
	return out
}

type gpuEntry struct {
	manufacturer string
	os           []string
}

var (
	gpuName = regexp.MustCompile(`^(standard_\S+):\s*$`)
	gpuMake = regexp.MustCompile(`^\s+gpu:\s*(\S+)\s*$`)
	gpuOS   = regexp.MustCompile(`^\s+os:\s*\[(.*)\]\s*$`)
)

// parseGPURegistry reads supported-gpus.yaml: size (lower case) → maker
// and the operating systems with a driver.
func parseGPURegistry(src []byte) map[string]gpuEntry {
	out := map[string]gpuEntry{}
	var cur string
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case gpuName.MatchString(line):
			cur = gpuName.FindStringSubmatch(line)[1]
			out[cur] = gpuEntry{}
		case cur != "" && gpuMake.MatchString(line):
			e := out[cur]
			e.manufacturer = gpuMake.FindStringSubmatch(line)[1]
			out[cur] = e
		case cur != "" && gpuOS.MatchString(line):
			e := out[cur]
			for _, os := range strings.Split(gpuOS.FindStringSubmatch(line)[1], ",") {
				e.os = append(e.os, strings.Trim(strings.TrimSpace(os), `"`))
			}
			out[cur] = e
		}
	}
	return out
}

// parseLocations reads the region list: region → its logical zones,
// sorted; none for a region without availability zones.
func parseLocations(src []byte) (map[string][]string, error) {
	var locations []struct {
		Name     string `json:"name"`
		Mappings []struct {
			LogicalZone string `json:"logicalZone"`
		} `json:"availabilityZoneMappings"`
	}
	if err := json.Unmarshal(src, &locations); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, l := range locations {
		zones := []string{}
		for _, m := range l.Mappings {
			zones = append(zones, m.LogicalZone)
		}
		slices.Sort(zones)
		out[l.Name] = zones
	}
	return out, nil
}

var (
	priceRegion    = regexp.MustCompile(`^\s*initialOnDemandPrices\["([a-z0-9]+)"\] = map\[string\]float64\{$`)
	priceEntry     = regexp.MustCompile(`^\s*"([^"]+)":\s+([0-9.]+),$`)
	priceGenerated = regexp.MustCompile(`^// generated at (\S+)$`)
)

// parsePrices reads the on-demand price table: region → size → USD per
// hour, keeping the VM sizes (names starting Standard_).
func parsePrices(src []byte) (map[string]map[string]float64, string, error) {
	out := map[string]map[string]float64{}
	var region, generatedAt string
	for i, line := range strings.Split(string(src), "\n") {
		if m := priceGenerated.FindStringSubmatch(line); m != nil {
			generatedAt = m[1]
		}
		if m := priceRegion.FindStringSubmatch(line); m != nil {
			region = m[1]
			out[region] = map[string]float64{}
			continue
		}
		m := priceEntry.FindStringSubmatch(line)
		if m == nil || region == "" || !strings.HasPrefix(m[1], "Standard_") {
			continue
		}
		price, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return nil, "", fmt.Errorf("line %d: %w", i+1, err)
		}
		out[region][m[1]] = price
	}
	if len(out) == 0 {
		return nil, "", errors.New("no region found")
	}
	return out, generatedAt, nil
}

func writeSKUs(path string, skus map[string]*sku) error {
	b, err := jsonLines(skus)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// jsonLines is one JSON line per record, by key.
func jsonLines(skus map[string]*sku) ([]byte, error) {
	names := slices.Sorted(maps.Keys(skus))
	var buf bytes.Buffer
	for _, name := range names {
		b, err := json.Marshal(skus[name])
		if err != nil {
			return nil, err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// writeGzipLines writes the records as gzipped JSON lines (the gzip
// header carries no name or time, so the bytes are stable).
func writeGzipLines(path string, skus map[string]*sku) error {
	body, err := jsonLines(skus)
	if err != nil {
		return err
	}
	return writeGzip(path, body)
}

func writeGzip(path string, body []byte) error {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(body); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// priceFile and regionPrice are data/prices.json.gz (skudata.Prices).
type (
	priceFile   = skudata.Prices
	regionPrice = skudata.RegionPrices
)

func writePrices(path string, prices map[string]map[string]float64, zones map[string][]string, generatedAt string) error {
	f := priceFile{GeneratedAt: generatedAt, Regions: map[string]regionPrice{}}
	for region, p := range prices {
		z, listed := zones[region]
		f.Regions[region] = regionPrice{Zones: z, Listed: listed, OnDemand: p}
	}
	// encoding/json writes map keys sorted, so the bytes are stable.
	body, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return writeGzip(path, body)
}
