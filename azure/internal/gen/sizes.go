package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// caSize is one entry of Cluster Autoscaler's table of Azure VM sizes:
// the facts it gives (name, SKU family, vCPUs, memory in MiB, GPUs,
// architecture).
type caSize struct {
	name, family string
	vcpus, mib   int64
	gpus         int64
	arch         string
}

var (
	caOpen  = regexp.MustCompile(`^\t"(Standard_[^"]+)": \{$`)
	caField = regexp.MustCompile(`^\t\t(InstanceType|SkuFamily|VCPU|MemoryMb|GPU|Architecture):\s+(.+),$`)
	caClose = regexp.MustCompile(`^\t\},$`)
)

// parseCASizes reads azure_instance_types.go of kubernetes/autoscaler: a
// Go map literal, one field per line.
func parseCASizes(src []byte) (map[string]caSize, error) {
	out := map[string]caSize{}
	var cur *caSize
	var seen map[string]bool
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		switch {
		case caOpen.MatchString(text):
			if cur != nil {
				return nil, fmt.Errorf("line %d: %s opens inside %s", line, text, cur.name)
			}
			cur, seen = &caSize{name: caOpen.FindStringSubmatch(text)[1]}, map[string]bool{}
		case cur != nil && caField.MatchString(text):
			m := caField.FindStringSubmatch(text)
			field, value := m[1], m[2]
			seen[field] = true
			switch field {
			case "InstanceType", "SkuFamily", "Architecture":
				s, err := strconv.Unquote(value)
				if err != nil {
					return nil, fmt.Errorf("line %d: %s %s: %w", line, cur.name, field, err)
				}
				switch field {
				case "InstanceType":
					if s != cur.name {
						return nil, fmt.Errorf("line %d: %s has InstanceType %q", line, cur.name, s)
					}
				case "SkuFamily":
					cur.family = s
				case "Architecture":
					if s != "amd64" && s != "arm64" {
						return nil, fmt.Errorf("line %d: %s: architecture %q", line, cur.name, s)
					}
					cur.arch = s
				}
			default:
				n, err := strconv.ParseInt(value, 10, 64)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("line %d: %s %s: %q is not a count", line, cur.name, field, value)
				}
				switch field {
				case "VCPU":
					cur.vcpus = n
				case "MemoryMb":
					cur.mib = n
				case "GPU":
					cur.gpus = n
				}
			}
		case cur != nil && caClose.MatchString(text):
			if len(seen) != 6 {
				return nil, fmt.Errorf("line %d: %s lacks fields (has %d of 6)", line, cur.name, len(seen))
			}
			if _, dup := out[cur.name]; dup {
				return nil, fmt.Errorf("line %d: %s listed twice", line, cur.name)
			}
			out[cur.name] = *cur
			cur = nil
		case cur != nil:
			return nil, fmt.Errorf("line %d: %s: unexpected %q", line, cur.name, text)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("%s is not closed", cur.name)
	}
	if len(out) == 0 {
		return nil, errors.New("no VM size found")
	}
	return out, nil
}

// nameParts is what derive reads of a size name by Azure's naming
// convention: family letter(s), additive feature letters, and version.
var nameParts = regexp.MustCompile(`^Standard_([A-Z]+)[0-9]+(?:-[0-9]+)?([a-zA-Z]*?)(?:_(?:[A-Z][A-Za-z0-9]*|[0-9]+|cc))*(?:_(v[0-9]+))?(?:_Promo)?$`)

// Facts a wide record derives, by the names package azure reads.
const (
	factHyperV      = "hyperVGenerations"
	factPremiumIO   = "premiumIO"
	factAccelNet    = "acceleratedNetworkingEnabled"
	factLowPriority = "lowPriorityCapable"
	factEncryption  = "encryptionAtHostSupported"
	factEphemeralOS = "ephemeralOSDiskSupported"
	factUltraSSD    = "ultraSSDAvailable"
	factZones       = "zones"
)

// derive makes a size record from Cluster Autoscaler's facts, filling
// the capabilities that table lacks from Azure's documented size naming
// convention where it documents them, else with a conservative default,
// and lists every filled capability in Derived (see data/README.md):
//
//   - premiumIO: the feature letter s (premium storage capable).
//   - hyperVGenerations: V2 alone for Arm64 sizes (letter p; Arm64 VMs
//     boot generation 2 only), V1 alone for the A family (Av2 series:
//     generation 1), else V2 alone (generation 2 is what AKS boots; not
//     claiming V1 keeps a NodePool asking for generation 1 off sizes that
//     may lack it).
//   - acceleratedNetworkingEnabled: true for 2 or more vCPUs in the
//     general purpose, compute, memory and storage families D, E, F, L, M
//     of version 2 or later, and B of version 2 or later (the documented
//     supported series); false elsewhere.
//   - lowPriorityCapable (spot): false for the B family and _Promo sizes,
//     which Azure Spot does not offer; true otherwise.
//   - encryptionAtHostSupported, ephemeralOSDiskSupported,
//     ultraSSDAvailable: false (per-size and per-region; no cache or
//     resource disk sizes are known).
//   - zones: zonal (the record's zones are empty but not nil: package
//     azure offers it in all of a region's zones).
func derive(c caSize) (*sku, error) {
	m := nameParts.FindStringSubmatch(c.name)
	if m == nil {
		return nil, fmt.Errorf("%s does not follow the naming convention", c.name)
	}
	family, features, version := m[1], m[2], 1
	if m[3] != "" {
		v, err := strconv.Atoi(m[3][1:])
		if err != nil {
			return nil, fmt.Errorf("%s: version %q", c.name, m[3])
		}
		version = v
	}
	arch := "x64"
	if c.arch == "arm64" {
		arch = "Arm64"
	}
	if (c.arch == "arm64") != strings.Contains(features, "p") {
		return nil, fmt.Errorf("%s: architecture %s disagrees with the feature letters %q", c.name, c.arch, features)
	}
	hyperV := "V2"
	if family == "A" && arch == "x64" {
		hyperV = "V1"
	}
	first := family[:1]
	accel := c.vcpus >= 2 && version >= 2 && (strings.Contains("DEFLMB", first) && len(family) == 1)
	spot := first != "B" && !strings.HasSuffix(c.name, "_Promo")
	return &sku{
		Name:                  c.name,
		Size:                  strings.TrimPrefix(c.name, "Standard_"),
		Family:                c.family,
		VCPUs:                 c.vcpus,
		MemoryGB:              float64(c.mib) / 1024,
		Architecture:          arch,
		HyperVGenerations:     hyperV,
		PremiumIO:             strings.Contains(features, "s"),
		AcceleratedNetworking: accel,
		LowPriorityCapable:    spot,
		GPUs:                  c.gpus,
		Zones:                 []string{},
		Derived:               slices.Clone(derivedFacts),
	}, nil
}

// derivedFacts are the capabilities derive fills, in the order of the
// record's fields.
var derivedFacts = []string{factHyperV, factPremiumIO, factAccelNet, factLowPriority, factEncryption, factEphemeralOS, factUltraSSD, factZones}

// caPath is the table's path in kubernetes/autoscaler.
const caPath = "cluster-autoscaler/cloudprovider/azure/azure_instance_types.go"

// wideSizes are the records derived from Cluster Autoscaler's table for
// the sizes some region's price table prices and no resource SKU table
// lists, by name; and the names of such sizes whose name the naming
// convention does not split, sorted.
func wideSizes(table map[string]caSize, skus map[string]*sku, prices map[string]map[string]float64) (map[string]*sku, []string, error) {
	inTables := map[string]bool{}
	for _, s := range skus {
		inTables[s.Name] = true
	}
	priced := map[string]bool{}
	for _, p := range prices {
		for name := range p {
			priced[name] = true
		}
	}
	out := map[string]*sku{}
	var skipped []string
	for name, c := range table {
		if inTables[name] || !priced[name] {
			continue
		}
		s, err := derive(c)
		if err != nil {
			if nameParts.MatchString(name) {
				return nil, nil, err
			}
			skipped = append(skipped, name)
			continue
		}
		out[name] = s
	}
	slices.Sort(skipped)
	return out, skipped, nil
}
