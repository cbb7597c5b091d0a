package clusterautoscaler

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
)

// Cluster Autoscaler's defaults (its flags of the same names), and the
// model's own launch delay.
const (
	DefaultScanInterval                  = 10 * time.Second
	DefaultScaleDownUtilizationThreshold = 0.5
	DefaultScaleDownUnneededTime         = 10 * time.Minute
	DefaultScaleDownDelayAfterAdd        = 10 * time.Minute
	DefaultScaleDownDelayAfterFailure    = 3 * time.Minute
	DefaultMaxNodeProvisionTime          = 15 * time.Minute
	DefaultInitialBackoff                = 5 * time.Minute
	DefaultMaxBackoff                    = 30 * time.Minute
	// DefaultBackoffReset is --node-group-backoff-reset-timeout: a group
	// that has not failed for this long starts its backoff anew.
	DefaultBackoffReset            = 3 * time.Hour
	DefaultMaxScaleDownParallelism = 10
	DefaultMaxDrainParallelism     = 1
	DefaultNonEmptyCandidatesCount = 30
	DefaultExpander                = ExpanderLeastWaste
	DefaultMaxNodesPerScaleUp      = 1000
	DefaultMemoryDifferenceRatio   = 0.015
	DefaultMaxFreeDifferenceRatio  = 0.05
	DefaultGroupMax                = 1000
	DefaultGroupName               = "default"
	DefaultGroupInstanceType       = "m5.xlarge"
	DefaultLaunchDelay             = 150 * time.Second
)

// Names CA and EKS give things, and the model's own bounds.
const (
	defaultBackoffMultiplier      = 2
	maxPriorityConfigEntries      = 1000
	labelEKSCapacityType          = "eks.amazonaws.com/capacityType"
	labelEKSNodeGroup             = "eks.amazonaws.com/nodegroup"
	annotationSafeToEvict         = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	namespaceKubeSystem           = "kube-system"
	eksCapacityTypeOnDemand       = "ON_DEMAND"
	eksCapacityTypeSpot           = "SPOT"
	defaultTemplateHostnamePrefix = "template-"
	defaultUpcomingHostnamePrefix = "upcoming-"
)

// The expanders, as --expander names them.
const (
	ExpanderRandom     = "random"
	ExpanderMostPods   = "most-pods"
	ExpanderLeastWaste = "least-waste"
	ExpanderPrice      = "price"
	ExpanderPriority   = "priority"
)

// Spec is the Cluster Autoscaler a run models: the node groups it scales
// and the flags that change its decisions. Its YAML form is the scenario's
// clusterAutoscaler section. A zero duration or number takes CA's default
// (listed in the package constants); the zero Spec is CA with its defaults
// over DefaultNodeGroups.
type Spec struct {
	// Expander is --expander: random, most-pods, least-waste, price or
	// priority, or several separated by commas, each narrowing the options
	// the one before left; ties left at the end are broken at random
	// (seeded). Default least-waste, CA's default.
	Expander string `json:"expander,omitempty"`
	// Priorities is the priority expander's configuration (CA's
	// cluster-autoscaler-priority-expander ConfigMap): priority → regular
	// expressions matched against whole node group names; higher wins.
	Priorities map[int][]string `json:"priorities,omitempty"`
	// NodeGroups are the Auto Scaling Groups; none means
	// DefaultNodeGroups.
	NodeGroups []NodeGroup `json:"nodeGroups,omitempty"`

	ScanInterval metav1.Duration `json:"scanInterval,omitzero"`
	// ScaleDownDisabled is --scale-down-enabled=false.
	ScaleDownDisabled bool `json:"scaleDownDisabled,omitempty"`
	// ScaleDownUtilizationThreshold: a node whose requested cpu and memory
	// are both below this share of its allocatable may be removed; nil
	// means 0.5.
	ScaleDownUtilizationThreshold *float64        `json:"scaleDownUtilizationThreshold,omitempty"`
	ScaleDownUnneededTime         metav1.Duration `json:"scaleDownUnneededTime,omitzero"`
	ScaleDownDelayAfterAdd        metav1.Duration `json:"scaleDownDelayAfterAdd,omitzero"`
	// ScaleDownDelayAfterDelete defaults to 0: the next scan may delete
	// again.
	ScaleDownDelayAfterDelete  metav1.Duration `json:"scaleDownDelayAfterDelete,omitzero"`
	ScaleDownDelayAfterFailure metav1.Duration `json:"scaleDownDelayAfterFailure,omitzero"`
	MaxNodeProvisionTime       metav1.Duration `json:"maxNodeProvisionTime,omitzero"`
	// MaxNodesTotal is --max-nodes-total; 0 means no limit.
	MaxNodesTotal int `json:"maxNodesTotal,omitempty"`
	// BalanceSimilarNodeGroups is --balance-similar-node-groups.
	BalanceSimilarNodeGroups bool `json:"balanceSimilarNodeGroups,omitempty"`
	MaxScaleDownParallelism  int  `json:"maxScaleDownParallelism,omitempty"`
	MaxDrainParallelism      int  `json:"maxDrainParallelism,omitempty"`
	// SkipNodesWithSystemPods and SkipNodesWithLocalStorage are CA's
	// flags of those names; nil means true, CA's default.
	SkipNodesWithSystemPods   *bool           `json:"skipNodesWithSystemPods,omitempty"`
	SkipNodesWithLocalStorage *bool           `json:"skipNodesWithLocalStorage,omitempty"`
	InitialNodeGroupBackoff   metav1.Duration `json:"initialNodeGroupBackoff,omitzero"`
	MaxNodeGroupBackoff       metav1.Duration `json:"maxNodeGroupBackoff,omitzero"`
	// LaunchDelay is the model's, not a CA flag: how long an Auto Scaling
	// Group takes from CA raising its desired capacity to the instance
	// running (the scaling activity and EC2's launch); registration and
	// initialization follow as for any instance of the cloud. Default
	// 2m30s, which with the cloud's ~50 s of boot and CA's scan puts a
	// scale-up's pods on a node 3–4 minutes after they became pending.
	LaunchDelay metav1.Duration `json:"launchDelay,omitzero"`
}

// NodeGroup is one Auto Scaling Group as users define it.
type NodeGroup struct {
	Name string `json:"name"`
	// InstanceTypes are the group's types: a mixed-instances group lists
	// several, and CA builds its template from the first, as its AWS
	// provider does.
	InstanceTypes []string `json:"instanceTypes"`
	// CapacityType is on-demand (default) or spot.
	CapacityType string `json:"capacityType,omitempty"`
	// Zones default to every zone the catalog offers; the template node is
	// in the first.
	Zones  []string          `json:"zones,omitempty"`
	Min    int               `json:"min"`
	Max    int               `json:"max"`
	Labels map[string]string `json:"labels,omitempty"`
	Taints []corev1.Taint    `json:"taints,omitempty"`
}

// DefaultNodeGroups is what stands in for a spec without node groups: one
// on-demand m5.xlarge group over the given zones, min 0, max 1000, the
// common EKS managed node group.
func DefaultNodeGroups(zones []string) []NodeGroup {
	return []NodeGroup{{Name: DefaultGroupName, InstanceTypes: []string{DefaultGroupInstanceType},
		CapacityType: apis.CapacityTypeOnDemand, Zones: slices.Clone(zones), Min: 0, Max: DefaultGroupMax}}
}

// ErrInvalidSpec is wrapped by every error about a Spec's content.
var ErrInvalidSpec = errors.New("invalid clusterAutoscaler spec")

// settings is a Spec with every default applied, validated once.
type settings struct {
	expanders                                            []string
	priorities                                           []priorityRule
	scanInterval, unneededTime, delayAfterAdd            time.Duration
	delayAfterDelete, delayAfterFailure, provisionTime   time.Duration
	initialBackoff, maxBackoff, launchDelay              time.Duration
	threshold                                            float64
	scaleDown, balance, skipSystemPods, skipLocalStorage bool
	maxNodesTotal, maxParallel, maxDrain                 int
}

type priorityRule struct {
	priority int
	re       *regexp.Regexp
}

func durationOr(d metav1.Duration, def time.Duration) time.Duration {
	if d.Duration > 0 {
		return d.Duration
	}
	return def
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// resolve applies the defaults and checks the flags.
func (sp *Spec) resolve() (settings, error) {
	st := settings{
		scanInterval:      durationOr(sp.ScanInterval, DefaultScanInterval),
		unneededTime:      durationOr(sp.ScaleDownUnneededTime, DefaultScaleDownUnneededTime),
		delayAfterAdd:     durationOr(sp.ScaleDownDelayAfterAdd, DefaultScaleDownDelayAfterAdd),
		delayAfterDelete:  sp.ScaleDownDelayAfterDelete.Duration,
		delayAfterFailure: durationOr(sp.ScaleDownDelayAfterFailure, DefaultScaleDownDelayAfterFailure),
		provisionTime:     durationOr(sp.MaxNodeProvisionTime, DefaultMaxNodeProvisionTime),
		initialBackoff:    durationOr(sp.InitialNodeGroupBackoff, DefaultInitialBackoff),
		maxBackoff:        durationOr(sp.MaxNodeGroupBackoff, DefaultMaxBackoff),
		launchDelay:       durationOr(sp.LaunchDelay, DefaultLaunchDelay),
		threshold:         DefaultScaleDownUtilizationThreshold,
		scaleDown:         !sp.ScaleDownDisabled,
		balance:           sp.BalanceSimilarNodeGroups,
		skipSystemPods:    boolOr(sp.SkipNodesWithSystemPods, true),
		skipLocalStorage:  boolOr(sp.SkipNodesWithLocalStorage, true),
		maxNodesTotal:     sp.MaxNodesTotal,
		maxParallel:       sp.MaxScaleDownParallelism,
		maxDrain:          sp.MaxDrainParallelism,
	}
	var errs []error
	if sp.ScaleDownUtilizationThreshold != nil {
		st.threshold = *sp.ScaleDownUtilizationThreshold
		if st.threshold < 0 || st.threshold > 1 {
			errs = append(errs, fmt.Errorf("scaleDownUtilizationThreshold %v is not in [0, 1]", st.threshold))
		}
	}
	if st.maxParallel <= 0 {
		st.maxParallel = DefaultMaxScaleDownParallelism
	}
	if st.maxDrain <= 0 {
		st.maxDrain = DefaultMaxDrainParallelism
	}
	if st.maxNodesTotal < 0 {
		errs = append(errs, fmt.Errorf("maxNodesTotal %d is negative", st.maxNodesTotal))
	}
	if st.delayAfterDelete < 0 {
		errs = append(errs, fmt.Errorf("scaleDownDelayAfterDelete %v is negative", st.delayAfterDelete))
	}
	expander := sp.Expander
	if expander == "" {
		expander = DefaultExpander
	}
	for _, name := range strings.Split(expander, ",") {
		name = strings.TrimSpace(name)
		switch name {
		case ExpanderRandom, ExpanderMostPods, ExpanderLeastWaste, ExpanderPrice, ExpanderPriority:
			st.expanders = append(st.expanders, name)
		default:
			errs = append(errs, fmt.Errorf("expander %q is not one of random, most-pods, least-waste, price, priority", name))
		}
	}
	if slices.Contains(st.expanders, ExpanderPriority) && len(sp.Priorities) == 0 {
		errs = append(errs, errors.New("the priority expander needs priorities"))
	}
	for _, p := range slices.Sorted(mapKeys(sp.Priorities)) {
		for _, expr := range sp.Priorities[p] {
			re, err := regexp.Compile("^(?:" + expr + ")$")
			if err != nil {
				errs = append(errs, fmt.Errorf("priorities[%d]: %w", p, err))
				continue
			}
			st.priorities = append(st.priorities, priorityRule{priority: p, re: re})
		}
	}
	if len(st.priorities) > maxPriorityConfigEntries {
		errs = append(errs, fmt.Errorf("priorities: %d expressions, more than %d", len(st.priorities), maxPriorityConfigEntries))
	}
	if err := manifests.JoinProblems(errs...); err != nil {
		return settings{}, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	return st, nil
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Zones are the zones a catalog offers its types in, sorted.
func Zones(catalog instancetypes.Catalog) []string {
	seen := map[string]bool{}
	for _, it := range catalog {
		for _, o := range it.Offerings {
			seen[o.Zone] = true
		}
	}
	return slices.Sorted(mapKeys(seen))
}

// Validate checks the spec as far as it can without a catalog: the flags,
// the expanders and their priorities, and each node group's name, sizes
// and capacity type. New checks the instance types and zones too.
func (sp *Spec) Validate() error {
	if _, err := sp.resolve(); err != nil {
		return err
	}
	return checkGroups(sp.NodeGroups, nil, nil)
}

// checkGroups validates the node groups, and against the catalog when
// there is one.
func checkGroups(groups []NodeGroup, catalog instancetypes.Catalog, zones []string) error {
	var errs []error
	seen := map[string]bool{}
	for i, g := range groups {
		where := fmt.Sprintf("nodeGroups[%d]", i)
		if g.Name != "" {
			where += " (" + g.Name + ")"
		}
		switch {
		case g.Name == "":
			errs = append(errs, fmt.Errorf("%s: name is required", where))
		case seen[g.Name]:
			errs = append(errs, fmt.Errorf("%s: a second node group of that name", where))
		}
		seen[g.Name] = true
		if len(g.InstanceTypes) == 0 {
			errs = append(errs, fmt.Errorf("%s: instanceTypes is empty", where))
		}
		for _, t := range g.InstanceTypes {
			if _, ok := catalog.Get(t); !ok && catalog != nil {
				errs = append(errs, fmt.Errorf("%s: instance type %s is not in the catalog", where, t))
			}
		}
		switch g.CapacityType {
		case "", apis.CapacityTypeOnDemand, apis.CapacityTypeSpot:
		default:
			errs = append(errs, fmt.Errorf("%s: capacityType %q is neither on-demand nor spot", where, g.CapacityType))
		}
		for _, z := range g.Zones {
			if !slices.Contains(zones, z) && catalog != nil {
				errs = append(errs, fmt.Errorf("%s: zone %s is not one the catalog offers (%s)", where, z, strings.Join(zones, ", ")))
			}
		}
		if g.Min < 0 || g.Max < 1 || g.Min > g.Max {
			errs = append(errs, fmt.Errorf("%s: min %d and max %d need 0 ≤ min ≤ max and max ≥ 1", where, g.Min, g.Max))
		}
	}
	if err := manifests.JoinProblems(errs...); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	return nil
}
