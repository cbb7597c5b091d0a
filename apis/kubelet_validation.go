package apis

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

const quantityRegex = `(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?`

var (
	// quantityPattern is the CRD pattern for a resource quantity.
	quantityPattern = regexp.MustCompile(`^` + quantityRegex + `$`)
	// evictionPattern is the CRD pattern for an eviction threshold: a
	// percentage up to 100% with two decimals, or a quantity.
	evictionPattern = regexp.MustCompile(`^((\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%||` + quantityRegex + `)$`)

	reservedResources = []string{"cpu", "memory", "ephemeral-storage", "pid"}
	evictionSignals   = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
)

// validateKubelet checks the kubelet settings as the CRD does.
func validateKubelet(e *errs, path string, k *KubeletConfiguration) {
	if k == nil {
		return
	}
	validateMaxPods(e, child(path, "maxPods"), k.MaxPods)
	nonNegative(e, child(path, "podsPerCore"), k.PodsPerCore)
	validateReserved(e, child(path, "systemReserved"), k.SystemReserved)
	validateReserved(e, child(path, "kubeReserved"), k.KubeReserved)
	validateEviction(e, child(path, "evictionHard"), k.EvictionHard)
	validateEviction(e, child(path, "evictionSoft"), k.EvictionSoft)
	grace := child(path, "evictionSoftGracePeriod")
	for _, signal := range sortedKeys(k.EvictionSoftGracePeriod) {
		if !slices.Contains(evictionSignals, signal) {
			e.add(key(grace, signal), "%q is not an eviction signal (use %s)", signal, strings.Join(evictionSignals, ", "))
		} else if _, ok := k.EvictionSoft[signal]; !ok {
			e.add(key(grace, signal), "has no matching evictionSoft threshold; set both or neither")
		}
	}
	for _, signal := range sortedKeys(k.EvictionSoft) {
		if _, ok := k.EvictionSoftGracePeriod[signal]; !ok && slices.Contains(evictionSignals, signal) {
			e.add(key(child(path, "evictionSoft"), signal), "has no matching evictionSoftGracePeriod; soft thresholds need a grace period")
		}
	}
	high, low := k.ImageGCHighThresholdPercent, k.ImageGCLowThresholdPercent
	percent(e, child(path, "imageGCHighThresholdPercent"), high)
	percent(e, child(path, "imageGCLowThresholdPercent"), low)
	if high != nil && low != nil && *high <= *low {
		e.add(child(path, "imageGCHighThresholdPercent"), "%d must be greater than imageGCLowThresholdPercent (%d)", *high, *low)
	}
}

func nonNegative(e *errs, path string, v *int32) {
	if v != nil && *v < 0 {
		e.add(path, "%d is negative", *v)
	}
}

// validateMaxPods checks a whole number is not negative and an expression
// parses.
func validateMaxPods(e *errs, path string, v *intstr.IntOrString) {
	switch {
	case v == nil:
	case v.Type == intstr.String:
		if _, err := ParseKubeletExpression(v.StrVal); err != nil {
			e.add(path, "%v", err)
		}
	case v.IntVal < 0:
		e.add(path, "%d is negative", v.IntVal)
	}
}

func percent(e *errs, path string, v *int32) {
	if v != nil && (*v < 0 || *v > 100) {
		e.add(path, "%d is out of range (0 to 100)", *v)
	}
}

func validateReserved(e *errs, path string, m map[string]string) {
	for _, name := range sortedKeys(m) {
		p, v := key(path, name), m[name]
		switch {
		case !slices.Contains(reservedResources, name):
			e.add(p, "%q cannot be reserved (use %s)", name, strings.Join(reservedResources, ", "))
		case strings.HasPrefix(v, "-"):
			e.add(p, "%q is negative", v)
		case !quantityPattern.MatchString(v):
			// Not a quantity: an expression (NodeClassCEL).
			if _, err := ParseKubeletExpression(v); err != nil {
				e.add(p, "%q is not a quantity (use e.g. \"100m\" or \"1Gi\"), nor an expression: %v", v, err)
			}
		}
	}
}

func validateEviction(e *errs, path string, m map[string]string) {
	for _, signal := range sortedKeys(m) {
		p, v := key(path, signal), m[signal]
		switch {
		case !slices.Contains(evictionSignals, signal):
			e.add(p, "%q is not an eviction signal (use %s)", signal, strings.Join(evictionSignals, ", "))
		case !evictionPattern.MatchString(v):
			e.add(p, "%q is not a quantity or a percentage (use e.g. \"100Mi\" or \"10%%\")", v)
		}
	}
}

// validateBlockDeviceMappings checks the EBS volumes of an EC2NodeClass.
func validateBlockDeviceMappings(e *errs, path string, mappings []*BlockDeviceMapping) {
	if len(mappings) > maxBlockDeviceMappings {
		e.add(path, "%d mappings, at most %d are allowed", len(mappings), maxBlockDeviceMappings)
	}
	var roots []string
	for i, m := range mappings {
		if m == nil {
			continue
		}
		p := index(path, i)
		if m.RootVolume {
			roots = append(roots, fmt.Sprint(i))
		}
		if m.EBS != nil {
			validateEBS(e, child(p, "ebs"), m.EBS)
		}
	}
	if len(roots) > 1 {
		e.add(path, "only one mapping may be the root volume, but mappings %s all set rootVolume", strings.Join(roots, ", "))
	}
}

func validateEBS(e *errs, path string, b *BlockDevice) {
	if b.SnapshotID == nil && b.VolumeSize == nil {
		e.add(path, "set snapshotID or volumeSize")
	}
	if r := b.VolumeInitializationRate; r != nil {
		if b.SnapshotID == nil || *b.SnapshotID == "" {
			e.add(child(path, "volumeInitializationRate"), "needs snapshotID: only volumes made from a snapshot are initialized")
		}
		if *r < 100 || *r > 300 {
			e.add(child(path, "volumeInitializationRate"), "%d is out of range (100 to 300 MiB/s)", *r)
		}
	}
	if q := b.VolumeSize; q != nil && !volumeSizePattern.MatchString(q.String()) {
		e.add(child(path, "volumeSize"), "%s is not allowed: use Gi, G, Ti or T, from 1Gi up to 64T (e.g. \"20Gi\")", q.String())
	}
	if t := b.VolumeType; t != nil && !slices.Contains(volumeTypes, *t) {
		e.add(child(path, "volumeType"), "%q is not an EBS volume type (use %s)", *t, strings.Join(volumeTypes, ", "))
	}
}

func validateMetadataOptions(e *errs, path string, m *MetadataOptions) {
	if m == nil {
		return
	}
	enum(e, child(path, "httpEndpoint"), m.HTTPEndpoint, "enabled", "disabled")
	enum(e, child(path, "httpProtocolIPv6"), m.HTTPProtocolIPv6, "enabled", "disabled")
	enum(e, child(path, "httpTokens"), m.HTTPTokens, "required", "optional")
	if h := m.HTTPPutResponseHopLimit; h != nil && (*h < 1 || *h > 64) {
		e.add(child(path, "httpPutResponseHopLimit"), "%d is out of range (1 to 64)", *h)
	}
}

func enum(e *errs, path string, v *string, allowed ...string) {
	if v != nil && !slices.Contains(allowed, *v) {
		e.add(path, "%q is not allowed (use %s)", *v, strings.Join(allowed, " or "))
	}
}
