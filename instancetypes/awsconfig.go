package instancetypes

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

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
	// shifted are the zones a zonal shift moves away from.
	shifted map[string]bool
	// reservations are the EC2NodeClass's capacity reservations still
	// open at now, and reservationCounts their available counts.
	reservations      []apis.CapacityReservation
	reservationCounts *ReservationAvailability
	// nodeClass and learned give the memory nodes reported.
	nodeClass *apis.EC2NodeClass
	learned   *LearnedMemory

	maxPods, podsPerCore *int32
	// cel is the NodeClassCEL gate; maxPodsExpr, kubeReservedExprs and
	// systemReservedExprs are the kubelet expressions read with it on.
	cel                                    bool
	maxPodsExpr                            *apis.KubeletExpression
	kubeReservedExprs, systemReservedExprs []expressionOverride
	kubeReserved                           []quantityOverride
	systemReserved                         resources.Vector
	evictionMemory                         *evictionSignal
	evictionNodeFS                         *evictionSignal
	blockDevices                           []*apis.BlockDeviceMapping
	raid0                                  bool
	// previewPrices price types the price list lacks (previewPrices).
	previewPrices map[string]float64

	// The launch settings compatibility.go checks types against.
	networkInterfaces    []apis.NetworkInterface // nil when the node class lists none
	nestedVirtualization bool
	nitroEnclaves        bool
	connectionTracking   bool
	placementStrategy    string
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
		placementStrategy: opts.PlacementGroupStrategy,
		reservationCounts: opts.Reservations, learned: opts.LearnedMemory,
		previewPrices: previewPrices(opts), cel: opts.NodeClassCEL,
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
	cfg.nodeClass = nodeClass
	if err := cfg.readNodeClass(nodeClass); err != nil {
		return nil, fmt.Errorf("%w: EC2NodeClass %q: %w", ErrInvalidAWSOptions, nodeClass.Name, err)
	}
	if err := cfg.readStatus(nodeClass.Status, opts.ZonalShifts); err != nil {
		return nil, fmt.Errorf("%w: EC2NodeClass %q: %w", ErrInvalidAWSOptions, nodeClass.Name, err)
	}
	return cfg, nil
}

// readStatus takes what the EC2NodeClass's status resolved: its subnets'
// zones replace the default zones, its zone IDs name the zones of zonal
// shifts, and its capacity reservations still open make reserved
// offerings.
func (c *awsConfig) readStatus(status apis.EC2NodeClassStatus, shifts []string) error {
	zoneOfID := map[string]string{}
	if len(status.Subnets) > 0 {
		c.zones = c.zones[:0:0]
		for i, s := range status.Subnets {
			if s.Zone == "" {
				return fmt.Errorf("status.subnets[%d].zone: missing", i)
			}
			c.zones = append(c.zones, s.Zone)
			if s.ZoneID != "" {
				zoneOfID[s.ZoneID] = s.Zone
			}
		}
		slices.Sort(c.zones)
		c.zones = slices.Compact(c.zones)
	}
	for i, name := range shifts {
		if name == "" {
			return fmt.Errorf("ZonalShifts[%d]: empty", i)
		}
		if c.shifted == nil {
			c.shifted = map[string]bool{}
		}
		if zone, ok := zoneOfID[name]; ok {
			name = zone
		}
		c.shifted[name] = true
	}
	for i, r := range status.CapacityReservations {
		if r.ID == "" || r.AvailabilityZone == "" || r.InstanceType == "" {
			return fmt.Errorf("status.capacityReservations[%d]: id, availabilityZone and instanceType are required", i)
		}
		if r.EndTime != nil && !r.EndTime.After(c.now) {
			continue // expired: the provider lists only open reservations
		}
		c.reservations = append(c.reservations, r)
	}
	return nil
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
	if c.placementStrategy != "" && !slices.Contains(apis.PlacementStrategies, c.placementStrategy) {
		return fmt.Errorf("PlacementGroupStrategy %q is not cluster, partition or spread", c.placementStrategy)
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
	if err := c.readLaunchSettings(nc); err != nil {
		return err
	}
	k := nc.Spec.Kubelet
	if k == nil {
		return nil
	}
	c.podsPerCore = k.PodsPerCore
	if err := c.readMaxPods(k.MaxPods); err != nil {
		return err
	}
	if c.podsPerCore != nil && *c.podsPerCore < 0 {
		return fmt.Errorf("kubelet.podsPerCore: %d is negative", *c.podsPerCore)
	}
	kubeReserved, kubeExprs, err := c.splitExpressions("kubelet.kubeReserved", k.KubeReserved)
	if err != nil {
		return err
	}
	if c.kubeReserved, err = parseOverrides("kubelet.kubeReserved", kubeReserved); err != nil {
		return err
	}
	static, systemExprs, err := c.splitExpressions("kubelet.systemReserved", k.SystemReserved)
	if err != nil {
		return err
	}
	systemReserved, err := parseOverrides("kubelet.systemReserved", static)
	if err != nil {
		return err
	}
	c.kubeReservedExprs, c.systemReservedExprs = kubeExprs, systemExprs
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

// readLaunchSettings takes the settings that rule instance types out
// (compatibility.go), copying the network interfaces.
func (c *awsConfig) readLaunchSettings(nc *apis.EC2NodeClass) error {
	if nc.Spec.NetworkInterfaces != nil {
		c.networkInterfaces = make([]apis.NetworkInterface, 0, len(nc.Spec.NetworkInterfaces))
	}
	for i, ni := range nc.Spec.NetworkInterfaces {
		switch {
		case ni == nil:
			return fmt.Errorf("networkInterfaces[%d]: empty", i)
		case ni.NetworkCardIndex < 0 || ni.DeviceIndex < 0:
			return fmt.Errorf("networkInterfaces[%d]: networkCardIndex %d and deviceIndex %d may not be negative", i, ni.NetworkCardIndex, ni.DeviceIndex)
		}
		c.networkInterfaces = append(c.networkInterfaces, *ni)
	}
	c.nestedVirtualization = nc.NestedVirtualizationEnabled()
	c.nitroEnclaves = nc.NitroEnclavesEnabled()
	c.connectionTracking = nc.Spec.ConnectionTracking != nil
	return nil
}

// expressionOverride is one kubeReserved or systemReserved entry given as
// an expression.
type expressionOverride struct {
	name corev1.ResourceName
	expr *apis.KubeletExpression
}

// readMaxPods takes kubelet maxPods: a whole number, or an expression read
// only with the NodeClassCEL gate (without it the family default stands,
// as upstream).
func (c *awsConfig) readMaxPods(v *intstr.IntOrString) error {
	switch {
	case v == nil:
		return nil
	case v.Type != intstr.String:
		if v.IntVal < 0 {
			return fmt.Errorf("kubelet.maxPods: %d is negative", v.IntVal)
		}
		n := v.IntVal
		c.maxPods = &n
		return nil
	}
	expr, err := apis.ParseKubeletExpression(v.StrVal)
	if err != nil {
		return fmt.Errorf("kubelet.maxPods: %w", err)
	}
	if c.cel {
		c.maxPodsExpr = expr
	}
	return nil
}

// splitExpressions separates a reserved-resource map's quantities from its
// expressions. A value that is neither is an error; expressions are kept
// only with the NodeClassCEL gate (without it they are dropped, and the
// defaults stand, as upstream).
func (c *awsConfig) splitExpressions(field string, m map[string]string) (map[string]string, []expressionOverride, error) {
	var static map[string]string
	var exprs []expressionOverride
	for _, name := range sortedKeys(m) {
		if _, err := resources.ParseQuantity(field+"."+name, m[name]); err == nil {
			if static == nil {
				static = map[string]string{}
			}
			static[name] = m[name]
			continue
		}
		expr, err := apis.ParseKubeletExpression(m[name])
		if err != nil {
			return nil, nil, fmt.Errorf("%s.%s: %q is not a quantity, nor an expression: %w", field, name, m[name], err)
		}
		if c.cel {
			exprs = append(exprs, expressionOverride{name: corev1.ResourceName(name), expr: expr})
		}
	}
	return static, exprs, nil
}

// typeKubelet are the kubelet settings for one instance type, expressions
// evaluated.
type typeKubelet struct {
	maxPods        *int32
	kubeReserved   []quantityOverride
	systemReserved resources.Vector
}

// kubeletFor resolves the kubelet settings for a type, as the AWS
// provider's resolver does: the maxPods expression first, against the
// default pod capacity, failing when it cannot be evaluated or leaves 0 to
// MaxInt32; then the reserved-resource expressions, against the resolved
// pod capacity, each left out (the default stands) when it cannot be
// evaluated or is negative. Results are rounded up to 10 millicores of
// CPU and 16 MiB of memory; ephemeral storage is in GiB, other resources
// plain counts.
func (c *awsConfig) kubeletFor(f EC2Facts) (typeKubelet, error) {
	k := typeKubelet{maxPods: c.maxPods, kubeReserved: c.kubeReserved, systemReserved: c.systemReserved}
	if c.maxPodsExpr == nil && len(c.kubeReservedExprs)+len(c.systemReservedExprs) == 0 {
		return k, nil
	}
	vars := apis.KubeletVars{VCPUs: f.VCPU, MemoryMiB: f.MemoryMiB, DefaultENIs: f.MaxENIs, IPsPerENI: f.IPv4PerENI, MaxPods: c.pods(f, k)}
	if c.maxPodsExpr != nil {
		n, err := c.maxPodsExpr.Eval(vars)
		if err != nil {
			return k, fmt.Errorf("%w: resolving maxPods of %s: %w", ErrInvalidAWSOptions, f.InstanceType, err)
		}
		if n < 0 || n > math.MaxInt32 {
			return k, fmt.Errorf("%w: resolving maxPods of %s: %q gives %d, outside 0 to %d", ErrInvalidAWSOptions, f.InstanceType, c.maxPodsExpr, n, math.MaxInt32)
		}
		maxPods := int32(n)
		k.maxPods = &maxPods
		vars.MaxPods = c.pods(f, k)
	}
	if len(c.kubeReservedExprs) > 0 {
		k.kubeReserved = slices.Clone(k.kubeReserved)
		for _, o := range c.kubeReservedExprs {
			if v, ok := reservedValue(o, vars); ok {
				k.kubeReserved = append(k.kubeReserved, quantityOverride{name: o.name, value: v})
			}
		}
	}
	for _, o := range c.systemReservedExprs {
		if v, ok := reservedValue(o, vars); ok {
			k.systemReserved = k.systemReserved.With(o.name, v)
		}
	}
	return k, nil
}

// reservedValue evaluates a reserved-resource expression into the
// resource's units (millicores, bytes, counts); false when it cannot be
// evaluated, is negative or does not fit.
func reservedValue(o expressionOverride, vars apis.KubeletVars) (int64, bool) {
	n, err := o.expr.Eval(vars)
	if err != nil || n < 0 {
		return 0, false
	}
	switch o.name {
	case corev1.ResourceCPU:
		return roundUp(n, 10)
	case corev1.ResourceMemory:
		n, ok := roundUp(n, 16)
		return n * mib, ok && n <= math.MaxInt64/mib
	case corev1.ResourceEphemeralStorage:
		return n * gib, n <= math.MaxInt64/gib
	}
	return n, true
}

// roundUp rounds n up to a multiple of step; false when that overflows.
func roundUp(n, step int64) (int64, bool) {
	if n%step == 0 {
		return n, true
	}
	if n > math.MaxInt64-step {
		return 0, false
	}
	return (n/step + 1) * step, true
}
