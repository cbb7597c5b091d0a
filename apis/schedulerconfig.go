package apis

import (
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
)

// KindKubeSchedulerConfiguration and SchedulerConfigV1 name kube-scheduler's
// component configuration, of which karpsim reads one part: the
// PodTopologySpread plugin's default constraints.
const (
	KindKubeSchedulerConfiguration = "KubeSchedulerConfiguration"
	SchedulerConfigV1              = "kubescheduler.config.k8s.io/v1"
	// DefaultSchedulerName is the profile pods use when they name none.
	DefaultSchedulerName = corev1.DefaultSchedulerName
	// PodTopologySpreadPlugin is the plugin whose args hold the defaults.
	PodTopologySpreadPlugin = "PodTopologySpread"
)

// Defaulting types of the PodTopologySpread plugin: System uses
// kube-scheduler's built-in defaults, List the constraints given.
const (
	DefaultingSystem = "System"
	DefaultingList   = "List"
)

// KubeSchedulerConfiguration is the part of kube-scheduler's configuration
// file karpsim reads. Other fields are kept as raw JSON so that a real
// configuration file reads without warnings about them.
type KubeSchedulerConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	Profiles        []SchedulerProfile `json:"profiles,omitempty"`
	// Everything else kube-scheduler's configuration may hold is accepted
	// and ignored: karpsim does not model it.
	ClientConnection   any    `json:"clientConnection,omitempty"`
	LeaderElection     any    `json:"leaderElection,omitempty"`
	Parallelism        *int32 `json:"parallelism,omitempty"`
	PercentageOfNodes  *int32 `json:"percentageOfNodesToScore,omitempty"`
	PodInitialBackoff  *int64 `json:"podInitialBackoffSeconds,omitempty"`
	PodMaxBackoff      *int64 `json:"podMaxBackoffSeconds,omitempty"`
	Extenders          any    `json:"extenders,omitempty"`
	DelayCacheUntilAct *bool  `json:"delayCacheUntilActive,omitempty"`
	EnableProfiling    *bool  `json:"enableProfiling,omitempty"`
	EnableContention   *bool  `json:"enableContentionProfiling,omitempty"`
}

// SchedulerProfile is one of kube-scheduler's profiles.
type SchedulerProfile struct {
	SchedulerName            string         `json:"schedulerName,omitempty"`
	PercentageOfNodesToScore *int32         `json:"percentageOfNodesToScore,omitempty"`
	Plugins                  any            `json:"plugins,omitempty"`
	PluginConfig             []PluginConfig `json:"pluginConfig,omitempty"`
}

// PluginConfig is the args of one plugin; karpsim reads PodTopologySpread's
// and ignores the others'.
type PluginConfig struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// PodTopologySpreadArgs are the PodTopologySpread plugin's args.
type PodTopologySpreadArgs struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	// DefaultConstraints apply to pods that have no spread constraint of
	// their own, each with a selector deduced from the pod's Services and
	// controller (they may not state one).
	DefaultConstraints []corev1.TopologySpreadConstraint `json:"defaultConstraints,omitempty"`
	// DefaultingType is System or List; kube-scheduler defaults it to List
	// when DefaultConstraints are given and to System otherwise.
	DefaultingType string `json:"defaultingType,omitempty"`
}

// SystemDefaultConstraints returns kube-scheduler's built-in default
// constraints (defaultingType System): spread over hostnames with maxSkew 3
// and over zones with maxSkew 5, both ScheduleAnyway.
func SystemDefaultConstraints() []corev1.TopologySpreadConstraint {
	return []corev1.TopologySpreadConstraint{
		{TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 3},
		{TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 5},
	}
}

// profile returns the default scheduler's profile and its index, or -1.
func (in *KubeSchedulerConfiguration) profile() (SchedulerProfile, int) {
	for i, p := range in.Profiles {
		if p.SchedulerName == "" || p.SchedulerName == DefaultSchedulerName {
			return p, i
		}
	}
	return SchedulerProfile{}, -1
}

// spreadArgs returns the PodTopologySpread args of the default profile,
// with the path to them, or nil; err says why they do not decode.
func (in *KubeSchedulerConfiguration) spreadArgs() (args *PodTopologySpreadArgs, path string, err error) {
	p, i := in.profile()
	if i < 0 {
		return nil, "", nil
	}
	for j, pc := range p.PluginConfig {
		if pc.Name != PodTopologySpreadPlugin || len(pc.Args) == 0 {
			continue
		}
		path = index(index("profiles", i)+".pluginConfig", j) + ".args"
		args = &PodTopologySpreadArgs{}
		strict, err := sigsjson.UnmarshalStrict(pc.Args, args, sigsjson.DisallowUnknownFields)
		if err == nil && len(strict) > 0 {
			err = strict[0]
		}
		if err != nil {
			return nil, path, err
		}
		return args, path, nil
	}
	return nil, "", nil
}

// DefaultConstraints returns the default spread constraints the default
// scheduler profile applies: the listed ones (List), kube-scheduler's
// built-in ones (System, and when the profile configures no PodTopologySpread
// args, since System is then the default), or none when the profile is
// missing. Call Validate first.
func (in *KubeSchedulerConfiguration) DefaultConstraints() []corev1.TopologySpreadConstraint {
	if _, i := in.profile(); i < 0 && len(in.Profiles) > 0 {
		return nil
	}
	args, _, err := in.spreadArgs()
	if err != nil {
		return nil
	}
	if args == nil || defaultingType(args) == DefaultingSystem {
		return SystemDefaultConstraints()
	}
	out := make([]corev1.TopologySpreadConstraint, len(args.DefaultConstraints))
	for i := range args.DefaultConstraints {
		args.DefaultConstraints[i].DeepCopyInto(&out[i])
	}
	return out
}

func defaultingType(args *PodTopologySpreadArgs) string {
	if args.DefaultingType != "" {
		return args.DefaultingType
	}
	if len(args.DefaultConstraints) > 0 {
		return DefaultingList
	}
	return DefaultingSystem
}

// SetDefaults does nothing: DefaultConstraints applies kube-scheduler's
// defaulting when it reads the args.
func (in *KubeSchedulerConfiguration) SetDefaults() {}

// Validate checks the PodTopologySpread args of the default profile as
// kube-scheduler validates them: a known defaulting type, no constraints
// with System, and constraints with a positive maxSkew, a valid topology
// key, a known whenUnsatisfiable, no labelSelector or matchLabelKeys (the
// selector is deduced per pod) and no two on one key and action.
func (in *KubeSchedulerConfiguration) Validate() error {
	e := &errs{}
	args, path, err := in.spreadArgs()
	if err != nil {
		e.add(path, "%s", strings.TrimPrefix(err.Error(), "json: "))
		return e.list.asError()
	}
	if args == nil {
		return nil
	}
	switch dt := args.DefaultingType; dt {
	case "", DefaultingList:
	case DefaultingSystem:
		if len(args.DefaultConstraints) > 0 {
			e.add(child(path, "defaultConstraints"), "must be empty with defaultingType System, which uses kube-scheduler's built-in constraints")
		}
	default:
		e.add(child(path, "defaultingType"), "%q is not supported (use %s or %s)", dt, DefaultingSystem, DefaultingList)
	}
	seen := map[string]bool{}
	for i, c := range args.DefaultConstraints {
		p := index(child(path, "defaultConstraints"), i)
		if c.MaxSkew <= 0 {
			e.add(child(p, "maxSkew"), "%d: must be greater than 0", c.MaxSkew)
		}
		if c.TopologyKey == "" {
			e.add(child(p, "topologyKey"), "required")
		} else if problems := content.IsLabelKey(c.TopologyKey); len(problems) > 0 {
			e.add(child(p, "topologyKey"), "%q is not a valid label key: %s", c.TopologyKey, strings.Join(problems, "; "))
		}
		switch c.WhenUnsatisfiable {
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		default:
			e.add(child(p, "whenUnsatisfiable"), "%q is not supported (use DoNotSchedule or ScheduleAnyway)", c.WhenUnsatisfiable)
		}
		if c.LabelSelector != nil {
			e.add(child(p, "labelSelector"), "must not be set: kube-scheduler deduces each pod's selector from its Services and controller")
		}
		if len(c.MatchLabelKeys) > 0 {
			e.add(child(p, "matchLabelKeys"), "must not be set on default constraints")
		}
		if c.MinDomains != nil && *c.MinDomains <= 0 {
			e.add(child(p, "minDomains"), "%d: must be greater than 0", *c.MinDomains)
		}
		key := c.TopologyKey + "/" + string(c.WhenUnsatisfiable)
		if seen[key] {
			e.add(p, "a second constraint on topologyKey %q with whenUnsatisfiable %s", c.TopologyKey, c.WhenUnsatisfiable)
		}
		seen[key] = true
	}
	return e.list.asError()
}
