package azure

import (
	"fmt"
	"regexp"
	"strings"
)

// vmSize is a VM size name split as Azure's naming convention reads it:
// family letter, optional sub-family letters, vCPUs, optional constrained
// vCPUs after a dash, additive feature letters, an optional accelerator
// (A100, T4), an optional version, and the _Promo suffix. The Azure
// provider reads the same parts (through the skewer library) for the
// sku-family, sku-series, sku-version and sku-gpu-name labels.
type vmSize struct {
	family, subfamily string
	cpus              string
	constrained       string
	features          string
	accelerator       string
	version           string
}

// series is family, sub-family and features, then "_" and the version
// when there is one: Dps_v5 for D4ps_v5, NCads_v4 for NC24ads_A100_v4.
func (v vmSize) series() string {
	s := v.family + v.subfamily + v.features
	if v.version != "" {
		s += "_" + v.version
	}
	return s
}

// versionNumber is the version without its "v", "1" when the name has
// none, and "" when the version does not start with v (never labelled).
func (v vmSize) versionNumber() string {
	switch {
	case v.version == "":
		return "1"
	case v.version[0] == 'v' || v.version[0] == 'V':
		return v.version[1:]
	}
	return ""
}

// sizePattern is the naming convention's grammar. Between the accelerator
// and the version a few names carry a marker karpsim does not label (a
// confidential-child "_cc_", a memory/IO variant "_2_", "_MI300X_",
// "_H100_").
var sizePattern = regexp.MustCompile(`^` +
	`(?P<family>[A-Z])(?P<sub>[A-Z]{0,2})` +
	`(?P<cpus>[0-9]+)(?:-(?P<constrained>[0-9]+))?` +
	`(?P<features>[abcdeilmtspPr]+|C+|NP)?` +
	`_?(?:(?P<accel>[A-Z][0-9]+)_?)?` +
	`(?:_cc_|_[0-9]+_|_MI300X_|_H100_)?` +
	`(?P<version>[vV][1-9])?` +
	`(?:_Promo)?$`)

// irregularSizes are names the grammar cannot split.
var irregularSizes = map[string]vmSize{
	"M416s_8_v2": {family: "M", cpus: "416", features: "s", version: "v2"},
}

// parseVMSize splits size, the name without "Standard_" (the resource
// SKU's size field).
func parseVMSize(size string) (vmSize, error) {
	if v, ok := irregularSizes[size]; ok {
		return v, nil
	}
	m := sizePattern.FindStringSubmatch(size)
	if m == nil {
		return vmSize{}, fmt.Errorf("VM size %q does not follow Azure's naming convention", size)
	}
	get := func(name string) string { return m[sizePattern.SubexpIndex(name)] }
	return vmSize{
		family:      get("family"),
		subfamily:   get("sub"),
		cpus:        get("cpus"),
		constrained: get("constrained"),
		features:    get("features"),
		accelerator: get("accel"),
		version:     get("version"),
	}, nil
}

// confidential reports whether a size is a confidential VM (DC and EC
// series), which the provider does not launch.
func confidential(size string) bool {
	return strings.HasPrefix(size, "DC") || strings.HasPrefix(size, "EC")
}
