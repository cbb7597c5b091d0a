package apis

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

var (
	// vnetSubnetIDPattern is the CRD's pattern for spec.vnetSubnetID: an
	// Azure resource ID of a subnet, matched without regard to case.
	vnetSubnetIDPattern = regexp.MustCompile(`(?i)^/subscriptions/[^/]+/resourceGroups/[a-zA-Z0-9_\-().]{0,89}[a-zA-Z0-9_\-()]/providers/Microsoft\.Network/virtualNetworks/[^/]+/subnets/[^/]+$`)
	// aksQuantityPattern is the CRD's pattern for containerLogMaxSize and
	// swapFileSize: digits and a binary or decimal suffix.
	aksQuantityPattern = regexp.MustCompile(`^\d+(E|P|T|G|M|K|Ei|Pi|Ti|Gi|Mi|Ki)$`)
	dnsZonePattern     = regexp.MustCompile(`^(\.|[A-Za-z0-9]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?)$`)
	dnsDurationPattern = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)
	portRangePattern   = regexp.MustCompile(`^\d+ \d+$`)
)

// SetDefaults fills in what the AKSNodeClass CRD defaults: the image family
// (Ubuntu) and OS disk size (128 GB); in a kubelet block, the CPU manager
// and topology manager policies (none), CFS quota (on, 100ms period) and
// container log rotation (50Mi, 5 files); in a gpu block, the mode
// (Driver).
func (in *AKSNodeClass) SetDefaults() {
	s := &in.Spec
	setDefault(&s.ImageFamily, DefaultImageFamily)
	setDefault(&s.OSDiskSizeGB, DefaultOSDiskSizeGB)
	if k := s.Kubelet; k != nil {
		setDefault(&k.CPUManagerPolicy, "none")
		setDefault(&k.CPUCFSQuota, true)
		if k.CPUCFSQuotaPeriod.Duration == 0 {
			k.CPUCFSQuotaPeriod.Duration = 100 * time.Millisecond
		}
		setDefault(&k.TopologyManagerPolicy, "none")
		setDefault(&k.ContainerLogMaxSize, "50Mi")
		setDefault(&k.ContainerLogMaxFiles, 5)
	}
	if g := s.GPU; g != nil {
		setDefault(&g.Mode, "Driver")
	}
}

// Validate checks the AKSNodeClass against the karpenter.azure.com CRD's
// schema and CEL rules. It returns nil or a FieldErrors with every problem
// found. Call SetDefaults first, as the API server defaults before it
// validates.
func (in *AKSNodeClass) Validate() error {
	e := &errs{}
	validateName(e, in.Name)
	s := &in.Spec
	if id := s.VNETSubnetID; id != nil && !vnetSubnetIDPattern.MatchString(*id) {
		e.add("spec.vnetSubnetID", "%q is not a subnet's resource ID (expected /subscriptions/SUB/resourceGroups/RG/providers/Microsoft.Network/virtualNetworks/VNET/subnets/SUBNET)", *id)
	}
	validateBetween(e, "spec.osDiskSizeGB", s.OSDiskSizeGB, 30, 2048)
	validateBetween(e, "spec.maxPods", s.MaxPods, 10, 250)
	validateEnum(e, "spec.imageFamily", s.ImageFamily, ImageFamilies...)
	validateEnum(e, "spec.fipsMode", s.FIPSMode, "FIPS", "Disabled")
	if s.FIPSMode != nil && *s.FIPSMode == "FIPS" {
		if f := in.ImageFamilyOrDefault(); f == ImageFamilyUbuntu2204 || f == ImageFamilyUbuntu2404 {
			e.add("spec.fipsMode", "FIPS is not supported with image family %s (use Ubuntu or AzureLinux)", f)
		}
	}
	validateAzureTags(e, "spec.tags", s.Tags)
	validateAKSKubelet(e, "spec.kubelet", s.Kubelet)
	if g := s.GPU; g != nil {
		validateEnum(e, "spec.gpu.mode", g.Mode, "Driver", "None")
	}
	validateLocalDNS(e, "spec.localDNS", s.LocalDNS)
	validateLinuxOSConfig(e, "spec.linuxOSConfig", s.LinuxOSConfig)
	if c := s.LinuxOSConfig; c != nil && c.SwapFileSize != nil {
		if k := s.Kubelet; k == nil || k.FailSwapOn == nil || *k.FailSwapOn {
			e.add("spec.kubelet.failSwapOn", "must be set to false when spec.linuxOSConfig.swapFileSize is set")
		}
	}
	for i, img := range in.Status.Images {
		if img.ID == "" {
			e.add(child(index("status.images", i), "id"), "required: the image's ID")
		}
	}
	return e.list.asError()
}

func validateBetween[T int32 | int64](e *errs, path string, v *T, lo, hi T) {
	if v != nil && (*v < lo || *v > hi) {
		e.add(path, "%d is out of range: %d to %d", *v, lo, hi)
	}
}

func validateMin[T int32 | int64](e *errs, path string, v *T, lo T) {
	if v != nil && *v < lo {
		e.add(path, "%d is less than the minimum, %d", *v, lo)
	}
}

func validateEnum(e *errs, path string, v *string, allowed ...string) {
	if v != nil && !slices.Contains(allowed, *v) {
		e.add(path, "%q is not allowed (use %s)", *v, strings.Join(allowed, ", "))
	}
}

// validateAzureTags follows the CRD's rules for tags: keys under 512
// characters without < > % & ? or \, values under 256.
func validateAzureTags(e *errs, path string, tags map[string]string) {
	for _, k := range sortedKeys(tags) {
		p := key(path, k)
		switch {
		case len(k) > 512:
			e.add(p, "the key is %d characters, more than 512", len(k))
		case strings.ContainsAny(k, `<>%&?`):
			e.add(p, "the key may not contain '<', '>', '%%', '&' or '?'")
		case strings.Contains(k, `\`):
			e.add(p, `the key may not contain '\'`)
		}
		if v := tags[k]; len(v) > 256 {
			e.add(p, "the value is %d characters, more than 256", len(v))
		}
	}
}

func validateAKSKubelet(e *errs, path string, k *AKSKubeletConfiguration) {
	if k == nil {
		return
	}
	validateEnum(e, child(path, "cpuManagerPolicy"), k.CPUManagerPolicy, "none", "static")
	validateEnum(e, child(path, "topologyManagerPolicy"), k.TopologyManagerPolicy, "restricted", "best-effort", "none", "single-numa-node")
	validateBetween(e, child(path, "imageGCHighThresholdPercent"), k.ImageGCHighThresholdPercent, 0, 100)
	validateBetween(e, child(path, "imageGCLowThresholdPercent"), k.ImageGCLowThresholdPercent, 0, 100)
	if hi, lo := k.ImageGCHighThresholdPercent, k.ImageGCLowThresholdPercent; hi != nil && lo != nil && *hi <= *lo {
		e.add(child(path, "imageGCHighThresholdPercent"), "%d must be greater than imageGCLowThresholdPercent (%d)", *hi, *lo)
	}
	if v := k.ContainerLogMaxSize; v != nil && !aksQuantityPattern.MatchString(*v) {
		e.add(child(path, "containerLogMaxSize"), "%q is not a size such as 50Mi or 256Ki", *v)
	}
	validateMin(e, child(path, "containerLogMaxFiles"), k.ContainerLogMaxFiles, 2)
}

func validateLocalDNS(e *errs, path string, d *AKSLocalDNS) {
	if d == nil {
		return
	}
	if d.Mode == "" {
		e.add(child(path, "mode"), "required: Preferred, Required or Disabled")
	} else {
		validateEnum(e, child(path, "mode"), &d.Mode, "Preferred", "Required", "Disabled")
	}
	for _, list := range []struct {
		name      string
		overrides []AKSLocalDNSZoneOverride
	}{{"vnetDNSOverrides", d.VnetDNSOverrides}, {"kubeDNSOverrides", d.KubeDNSOverrides}} {
		p := child(path, list.name)
		if len(list.overrides) > 100 {
			e.add(p, "%d overrides, at most 100 are allowed", len(list.overrides))
		}
		zones := map[string]bool{}
		for i, o := range list.overrides {
			validateZoneOverride(e, index(p, i), o)
			if zones[o.Zone] {
				e.add(child(index(p, i), "zone"), "%q is listed twice", o.Zone)
			}
			zones[o.Zone] = true
			if list.name == "vnetDNSOverrides" && o.ForwardDestination == "ClusterCoreDNS" {
				switch {
				case o.Zone == ".":
					e.add(index(p, i), "the root zone '.' cannot be forwarded to ClusterCoreDNS")
				case !strings.HasSuffix(o.Zone, "cluster.local"):
					e.add(index(p, i), "external domains cannot be forwarded to ClusterCoreDNS")
				}
			}
		}
		if !zones["."] || !zones["cluster.local"] {
			e.add(p, "must hold the zones '.' and 'cluster.local'")
		}
	}
}

func validateZoneOverride(e *errs, p string, o AKSLocalDNSZoneOverride) {
	if o.Zone == "" || len(o.Zone) > 254 || !dnsZonePattern.MatchString(o.Zone) {
		e.add(child(p, "zone"), "%q is not a DNS zone such as '.', 'cluster.local' or 'example.com'", o.Zone)
	}
	for _, f := range []struct {
		name, value string
		allowed     []string
	}{
		{"queryLogging", o.QueryLogging, []string{"Error", "Log"}},
		{"protocol", o.Protocol, []string{"PreferUDP", "ForceTCP"}},
		{"forwardDestination", o.ForwardDestination, []string{"ClusterCoreDNS", "VnetDNS"}},
		{"forwardPolicy", o.ForwardPolicy, []string{"Sequential", "RoundRobin", "Random"}},
		{"serveStale", o.ServeStale, []string{"Verify", "Immediate", "Disable"}},
	} {
		if f.value == "" {
			e.add(child(p, f.name), "required: %s", strings.Join(f.allowed, ", "))
			continue
		}
		validateEnum(e, child(p, f.name), &f.value, f.allowed...)
	}
	if o.MaxConcurrent == nil {
		e.add(child(p, "maxConcurrent"), "required")
	}
	validateMin(e, child(p, "maxConcurrent"), o.MaxConcurrent, 0)
	for _, d := range []struct {
		name  string
		value NillableDuration
	}{{"cacheDuration", o.CacheDuration}, {"serveStaleDuration", o.ServeStaleDuration}} {
		if !d.value.IsSet() {
			e.add(child(p, d.name), "required, e.g. 1h")
		} else if s := d.value.String(); !dnsDurationPattern.MatchString(s) {
			e.add(child(p, d.name), "%q is not a duration in whole hours, minutes or seconds", s)
		}
	}
	if strings.HasSuffix(o.Zone, "cluster.local") && o.ForwardDestination == "VnetDNS" {
		e.add(child(p, "forwardDestination"), "'cluster.local' cannot be forwarded to VnetDNS")
	}
	if o.ServeStale == "Verify" && o.Protocol == "ForceTCP" {
		e.add(child(p, "serveStale"), "Verify cannot be used with protocol ForceTCP")
	}
}

// sysctlBounds are the CRD's bounds of the integer sysctls, by JSON name.
var sysctlBounds = map[string][2]int32{
	"fsAioMaxNr": {65536, 6553500}, "fsFileMax": {8192, 12000500}, "fsInotifyMaxUserWatches": {781250, 2097152},
	"fsNrOpen": {8192, 20000500}, "kernelThreadsMax": {20, 513785}, "netCoreNetdevMaxBacklog": {1000, 3240000},
	"netCoreOptmemMax": {20480, 4194304}, "netCoreRmemDefault": {212992, 134217728}, "netCoreRmemMax": {212992, 134217728},
	"netCoreSomaxconn": {4096, 3240000}, "netCoreWmemDefault": {212992, 134217728}, "netCoreWmemMax": {212992, 134217728},
	"netIPv4NeighDefaultGcThresh1": {128, 80000}, "netIPv4NeighDefaultGcThresh2": {512, 90000},
	"netIPv4NeighDefaultGcThresh3": {1024, 100000}, "netIPv4TCPFinTimeout": {5, 120}, "netIPv4TCPKeepaliveProbes": {1, 15},
	"netIPv4TCPKeepaliveTime": {30, 432000}, "netIPv4TCPMaxSynBacklog": {128, 3240000}, "netIPv4TCPMaxTwBuckets": {8000, 1440000},
	"netIPv4TCPKeepaliveIntvl": {10, 90}, "netNetfilterNfConntrackBuckets": {65536, 524288},
	"netNetfilterNfConntrackMax": {131072, 2097152}, "vmMaxMapCount": {65530, 262144}, "vmSwappiness": {0, 100},
	"vmVfsCachePressure": {0, 100},
}

func validateLinuxOSConfig(e *errs, path string, c *AKSLinuxOSConfig) {
	if c == nil {
		return
	}
	if v := c.SwapFileSize; v != nil && !aksQuantityPattern.MatchString(*v) {
		e.add(child(path, "swapFileSize"), "%q is not a size such as 1500Mi or 2Gi", *v)
	}
	validateEnum(e, child(path, "transparentHugePageDefrag"), c.TransparentHugePageDefrag, "always", "defer", "defer+madvise", "madvise", "never")
	validateEnum(e, child(path, "transparentHugePageEnabled"), c.TransparentHugePageEnabled, "always", "madvise", "never")
	s := c.Sysctls
	if s == nil {
		return
	}
	p := child(path, "sysctls")
	values := s.ints()
	for _, name := range sortedKeys(sysctlBounds) {
		b := sysctlBounds[name]
		validateBetween(e, child(p, name), values[name], b[0], b[1])
	}
	for _, pair := range [][2]string{{"netCoreRmemDefault", "netCoreRmemMax"}, {"netCoreWmemDefault", "netCoreWmemMax"},
		{"netIPv4NeighDefaultGcThresh1", "netIPv4NeighDefaultGcThresh2"}, {"netIPv4NeighDefaultGcThresh2", "netIPv4NeighDefaultGcThresh3"}} {
		if a, b := values[pair[0]], values[pair[1]]; a != nil && b != nil && *a > *b {
			e.add(child(p, pair[0]), "%d must be at most %s (%d)", *a, pair[1], *b)
		}
	}
	if r := s.NetIPv4IPLocalPortRange; r != nil {
		rp := child(p, "netIPv4IPLocalPortRange")
		if !portRangePattern.MatchString(*r) {
			e.add(rp, "%q is not two port numbers, \"first last\"", *r)
			return
		}
		first, last, _ := strings.Cut(*r, " ")
		f, errF := strconv.Atoi(first)
		l, errL := strconv.Atoi(last)
		switch {
		case errF != nil || f < 1024 || f > 60999:
			e.add(rp, "the first port must be in [1024, 60999]")
		case errL != nil || l < 32768 || l > 65535:
			e.add(rp, "the last port must be in [32768, 65535]")
		case f > l:
			e.add(rp, "the first port must be at most the last")
		}
	}
}

// ints are the integer sysctls by JSON name.
func (s *AKSSysctlConfig) ints() map[string]*int32 {
	return map[string]*int32{
		"fsAioMaxNr": s.FsAioMaxNr, "fsFileMax": s.FsFileMax, "fsInotifyMaxUserWatches": s.FsInotifyMaxUserWatches,
		"fsNrOpen": s.FsNrOpen, "kernelThreadsMax": s.KernelThreadsMax, "netCoreNetdevMaxBacklog": s.NetCoreNetdevMaxBacklog,
		"netCoreOptmemMax": s.NetCoreOptmemMax, "netCoreRmemDefault": s.NetCoreRmemDefault, "netCoreRmemMax": s.NetCoreRmemMax,
		"netCoreSomaxconn": s.NetCoreSomaxconn, "netCoreWmemDefault": s.NetCoreWmemDefault, "netCoreWmemMax": s.NetCoreWmemMax,
		"netIPv4NeighDefaultGcThresh1": s.NetIPv4NeighDefaultGcThresh1, "netIPv4NeighDefaultGcThresh2": s.NetIPv4NeighDefaultGcThresh2,
		"netIPv4NeighDefaultGcThresh3": s.NetIPv4NeighDefaultGcThresh3, "netIPv4TCPFinTimeout": s.NetIPv4TCPFinTimeout,
		"netIPv4TCPKeepaliveProbes": s.NetIPv4TCPKeepaliveProbes, "netIPv4TCPKeepaliveTime": s.NetIPv4TCPKeepaliveTime,
		"netIPv4TCPMaxSynBacklog": s.NetIPv4TCPMaxSynBacklog, "netIPv4TCPMaxTwBuckets": s.NetIPv4TCPMaxTwBuckets,
		"netIPv4TCPKeepaliveIntvl": s.NetIPv4TCPKeepaliveIntvl, "netNetfilterNfConntrackBuckets": s.NetNetfilterNfConntrackBuckets,
		"netNetfilterNfConntrackMax": s.NetNetfilterNfConntrackMax, "vmMaxMapCount": s.VMMaxMapCount, "vmSwappiness": s.VMSwappiness,
		"vmVfsCachePressure": s.VMVfsCachePressure,
	}
}
