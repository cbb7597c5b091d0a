package instancetypes

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/pricing"
	"github.com/karpsim/karpsim/resources"
)

// awsConfig is AWSOptions validated and resolved once: defaults applied,
// kubelet quantities parsed.
type awsConfig struct {
	region           string
	zones            []string
	family           amiFamily
	prices           pricing.Source
	unavailable      *pricing.UnavailableOfferings
	now              time.Time
	vmMemoryOverhead float64
	reservedENIs     int64

	maxPods, podsPerCore *int32
	kubeReserved         []quantityOverride
	systemReserved       resources.Vector
	evictionMemory       *evictionSignal
	evictionNodeFS       *evictionSignal
	blockDevices         []*apis.BlockDeviceMapping
	raid0                bool
	// previewPrices price types the price list lacks (previewPrices).
	previewPrices map[string]float64
}

// quantityOverride is one kubelet kubeReserved entry.
type quantityOverride struct {
	name  corev1.ResourceName
	value int64
}

// evictionSignal is one kubelet evictionHard threshold: a percentage of the
// resource's capacity, or an amount.
type evictionSignal struct {
	percent float64
	isPct   bool
	value   int64
}

// Kubelet eviction signals that reserve capacity.
const (
	signalMemoryAvailable = "memory.available"
	signalNodeFSAvailable = "nodefs.available"
)

func newAWSConfig(facts []EC2Facts, opts AWSOptions) (*awsConfig, error) {
	cfg := &awsConfig{
		region: opts.Region, prices: opts.Prices, unavailable: opts.Unavailable, now: opts.Now,
		vmMemoryOverhead: opts.VMMemoryOverheadPercent, reservedENIs: int64(opts.ReservedENIs),
		previewPrices: previewPrices(opts),
	}
	if cfg.region == "" {
		cfg.region = DefaultRegion
	}
	cfg.zones = slices.Clone(opts.Zones)
	if len(cfg.zones) == 0 {
		cfg.zones = []string{cfg.region + "a", cfg.region + "b", cfg.region + "c"}
	}
	slices.Sort(cfg.zones)
	if err := cfg.resolveScalars(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidAWSOptions, err)
	}
	if cfg.prices == nil {
		cfg.prices = onDemandTable(facts)
	}
	nodeClass := opts.NodeClass
	if nodeClass == nil {
		nodeClass = &apis.EC2NodeClass{Spec: apis.EC2NodeClassSpec{AMISelectorTerms: []apis.AMISelectorTerm{{Alias: "al2023@latest"}}}}
	}
	if err := cfg.readNodeClass(nodeClass); err != nil {
		return nil, fmt.Errorf("%w: EC2NodeClass %q: %w", ErrInvalidAWSOptions, nodeClass.Name, err)
	}
	return cfg, nil
}

// resolveScalars applies the defaults of the numeric options and checks them.
func (c *awsConfig) resolveScalars() error {
	switch {
	case c.vmMemoryOverhead == 0:
		c.vmMemoryOverhead = DefaultVMMemoryOverheadPercent
	case c.vmMemoryOverhead < 0:
		c.vmMemoryOverhead = 0
	case !(c.vmMemoryOverhead < 1):
		return fmt.Errorf("VMMemoryOverheadPercent %v is not below 1", c.vmMemoryOverhead)
	}
	if c.reservedENIs < 0 {
		return fmt.Errorf("ReservedENIs %d is negative", c.reservedENIs)
	}
	for i, zone := range c.zones {
		if zone == "" || (i > 0 && zone == c.zones[i-1]) {
			return fmt.Errorf("zone %q of Zones %v is empty or repeated", zone, c.zones)
		}
	}
	return nil
}

// readNodeClass takes what shapes instance types from the EC2NodeClass.
func (c *awsConfig) readNodeClass(nc *apis.EC2NodeClass) error {
	family, err := lookupAMIFamily(nc.AMIFamily())
	if err != nil {
		return err
	}
	c.family = family
	c.blockDevices = nc.Spec.BlockDeviceMappings
	c.raid0 = nc.Spec.InstanceStorePolicy != nil && *nc.Spec.InstanceStorePolicy == apis.InstanceStorePolicyRAID0
	k := nc.Spec.Kubelet
	if k == nil {
		return nil
	}
	c.maxPods, c.podsPerCore = k.MaxPods, k.PodsPerCore
	if c.maxPods != nil && *c.maxPods < 0 {
		return fmt.Errorf("kubelet.maxPods: %d is negative", *c.maxPods)
	}
	if c.podsPerCore != nil && *c.podsPerCore < 0 {
		return fmt.Errorf("kubelet.podsPerCore: %d is negative", *c.podsPerCore)
	}
	if c.kubeReserved, err = parseOverrides("kubelet.kubeReserved", k.KubeReserved); err != nil {
		return err
	}
	systemReserved, err := parseOverrides("kubelet.systemReserved", k.SystemReserved)
	if err != nil {
		return err
	}
	for _, o := range systemReserved {
		c.systemReserved = c.systemReserved.With(o.name, o.value)
	}
	if c.evictionMemory, err = parseSignal("kubelet.evictionHard", k.EvictionHard, signalMemoryAvailable); err != nil {
		return err
	}
	c.evictionNodeFS, err = parseSignal("kubelet.evictionHard", k.EvictionHard, signalNodeFSAvailable)
	return err
}

// parseOverrides parses a resource map of the kubelet settings, sorted by
// resource name so that applying it is deterministic.
func parseOverrides(field string, m map[string]string) ([]quantityOverride, error) {
	out := make([]quantityOverride, 0, len(m))
	for _, name := range sortedKeys(m) {
		q, err := resources.ParseQuantity(field+"."+name, m[name])
		if err != nil {
			return nil, err
		}
		value := q.Value()
		if corev1.ResourceName(name) == corev1.ResourceCPU {
			value = q.MilliValue()
		}
		if value < 0 {
			return nil, fmt.Errorf("%s.%s: %q is negative", field, name, m[name])
		}
		out = append(out, quantityOverride{name: corev1.ResourceName(name), value: value})
	}
	return out, nil
}

// parseSignal parses one eviction threshold, nil when it is not set.
func parseSignal(field string, m map[string]string, signal string) (*evictionSignal, error) {
	text, ok := m[signal]
	if !ok {
		return nil, nil
	}
	field += "." + signal
	if number, isPct := strings.CutSuffix(text, "%"); isPct {
		p, err := strconv.ParseFloat(number, 64)
		if err != nil || !(p >= 0 && p <= 100) {
			return nil, fmt.Errorf("%s: %q is not a percentage from 0%% to 100%%", field, text)
		}
		// Kubelet reads 100% as "no threshold".
		if p == 100 {
			p = 0
		}
		return &evictionSignal{percent: p, isPct: true}, nil
	}
	q, err := resources.ParseQuantity(field, text)
	if err != nil {
		return nil, err
	}
	if q.Value() < 0 {
		return nil, fmt.Errorf("%s: %q is negative", field, text)
	}
	return &evictionSignal{value: q.Value()}, nil
}

// amount is the threshold for a resource of the given capacity in bytes:
// a percentage is rounded up, computed in floating point as Karpenter does.
func (s evictionSignal) amount(capacity int64) int64 {
	if s.isPct {
		return int64(math.Ceil(float64(capacity) / 100 * s.percent))
	}
	return s.value
}
