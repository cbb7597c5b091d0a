package scheduling

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// podInfo is what the checks need of a pod, computed once per pod and again
// when relaxation changes it. A solve holds one per pod, so it keeps what
// pods of one workload have alike shared rather than copied (requests,
// topology), and what few pods have (volumes, DaemonSet terms) apart.
type podInfo struct {
	// pod is the pod being placed: the original, or a relaxed copy.
	pod *corev1.Pod
	key string // namespace/name
	// requests are shared with the pods that ask for the same: read, never
	// changed.
	requests *resources.Vector
	reqs     requirements.Requirements // required terms plus the heaviest preference
	// strict are the required terms only: the domains the pod allows for
	// topology. Only set for pods with topology constraints.
	strict requirements.Requirements
	// topo is what topology asks of the pod, shared with the pods like it;
	// nil when topology does not concern it.
	topo *podTopology
	// more holds what few pods have; nil for most.
	more *podMore
}

// podMore is what a podInfo holds for the few pods that attach persistent
// volumes, ask for host ports or run as DaemonSets.
type podMore struct {
	// invalid, when set, says why the pod can never be placed.
	invalid error
	// hostPorts are the host ports the pod's containers ask for.
	hostPorts []hostPort
	// relaxations counts the preference relaxations applied so far.
	relaxations int
	// volumes are the persistent volumes the pod attaches.
	volumes []volumeUse
	// volumeReqs are the alternatives of requirements of those volumes that
	// were added to the pod's required node affinity: they constrain where
	// it goes, but not which nodes its spread constraints count (Karpenter
	// issue 2777).
	volumeReqs [][]corev1.NodeSelectorRequirement
	// daemonTerms are, for a DaemonSet pod with several required
	// node-affinity terms, the requirements of each (with its nodeSelector),
	// in order: Karpenter tries them in turn when deciding where the
	// DaemonSet runs. Nil otherwise; see daemonReqs.
	daemonTerms []requirements.Requirements
}

// volumes are the persistent volumes the pod attaches.
func (info *podInfo) volumes() []volumeUse {
	if info.more == nil {
		return nil
	}
	return info.more.volumes
}

// invalid, when not nil, says why the pod can never be placed.
func (info *podInfo) invalid() error {
	if info.more == nil {
		return nil
	}
	return info.more.invalid
}

// setInvalid records why the pod can never be placed, or that it can be
// (nil), and returns err.
func (info *podInfo) setInvalid(err error) error {
	if err == nil && info.more == nil {
		return nil
	}
	if info.more == nil {
		info.more = &podMore{}
	}
	info.more.invalid = err
	return err
}

// relaxations counts the preference relaxations applied so far.
func (info *podInfo) relaxations() int {
	if info.more == nil {
		return 0
	}
	return info.more.relaxations
}

// hostPorts are the host ports the pod asks for.
func (info *podInfo) hostPorts() []hostPort {
	if info.more == nil {
		return nil
	}
	return info.more.hostPorts
}

// setHostPorts records the host ports the pod asks for.
func (info *podInfo) setHostPorts(ports []hostPort) {
	if len(ports) == 0 {
		return
	}
	if info.more == nil {
		info.more = &podMore{}
	}
	info.more.hostPorts = ports
}

// volumeReqs are the alternatives of requirements the pod's volumes added
// to its node affinity.
func (info *podInfo) volumeReqs() [][]corev1.NodeSelectorRequirement {
	if info.more == nil {
		return nil
	}
	return info.more.volumeReqs
}

// setVolumes records the pod's volumes and the requirements they added.
func (info *podInfo) setVolumes(uses []volumeUse, reqs [][]corev1.NodeSelectorRequirement) {
	if len(uses) == 0 && len(reqs) == 0 {
		return
	}
	if info.more == nil {
		info.more = &podMore{}
	}
	info.more.volumes, info.more.volumeReqs = uses, reqs
}

// daemonReqs are the alternative requirements of a DaemonSet pod: one per
// required node-affinity term, or its only requirements.
func (info *podInfo) daemonReqs() []requirements.Requirements {
	if info.more != nil && len(info.more.daemonTerms) > 0 {
		return info.more.daemonTerms
	}
	return []requirements.Requirements{info.reqs}
}

// ErrDRAIgnored is why a pod that claims devices through ResourceClaims is
// unschedulable: Karpenter v1.14 refuses such pods unless it runs with
// --ignore-dra-requests=false (its default is true). Package dra translates
// the claims of pods for a run that models DRA; scheduling never sees a
// claim then.
var ErrDRAIgnored = errors.New("the pod claims devices through ResourceClaims, and Karpenter ignores DRA requests by default (IGNORE_DRA_REQUESTS=true); karpsim models DRA with --dra (a scenario's dra: true)")

// AnnotationDeferred marks a pod the caller knows cannot be placed yet,
// such as one whose ResourceClaim does not exist (dra.Deferred): Solve
// reports it unschedulable with the annotation's value as the reason and
// places it nowhere, as Karpenter leaves such a pod pending.
const AnnotationDeferred = "karpsim.dev/deferred"

// newPodInfo reads a pod. Problems that make it unplaceable are recorded in
// invalid rather than returned: the pod is reported unschedulable with them.
func newPodInfo(pod *corev1.Pod, prefs requirements.Preferences) *podInfo {
	return readPod(pod, apis.PodKey(pod), prefs, nil)
}

// readPod is newPodInfo for a pod whose key is known, such as a relaxed
// copy, which has its original's, sharing its requests and requirements
// with the pods the cache has seen (nil: none).
func readPod(pod *corev1.Pod, key string, prefs requirements.Preferences, cache *podCache) *podInfo {
	info := &podInfo{}
	info.read(pod, key, prefs, cache)
	return info
}

// read sets info to what readPod returns, for a solve that allocates its
// pods' infos together.
func (info *podInfo) read(pod *corev1.Pod, key string, prefs requirements.Preferences, cache *podCache) {
	*info = podInfo{pod: pod, key: key}
	info.setHostPorts(podHostPorts(pod))
	requests, err := resources.PodRequests(pod)
	info.requests = cache.intern(requests)
	if info.setInvalid(err) != nil {
		return
	}
	if reason := pod.Annotations[AnnotationDeferred]; reason != "" {
		info.setInvalid(errors.New(reason))
		return
	}
	if apis.ClaimsDevices(pod) {
		info.setInvalid(ErrDRAIgnored)
		return
	}
	if info.setInvalid(validatePodLabels(pod, cache.labelRules())) != nil {
		return
	}
	if info.reqs, err = cache.fromPod(pod, prefs); info.setInvalid(err) != nil {
		return
	}
	// The domains the pod allows, for topology: read for every pod with
	// a spread constraint or a pod (anti-)affinity, even one that has no
	// term that counts, as inverse anti-affinity may select it.
	if a := pod.Spec.Affinity; hasTopology(pod, prefs) || a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		if prefs == requirements.StrictOnly {
			info.strict = info.reqs
		} else {
			info.strict, err = cache.fromPod(pod, requirements.StrictOnly)
			info.setInvalid(err)
		}
	}
}

// validatePodLabels refuses selectors on restricted labels up front, as
// Karpenter does: kubernetes.io/hostname, and keys in the karpenter.sh and
// the cloud provider's domains that are not well-known (rules). Like Karpenter it
// checks the nodeSelector and the required terms only: a preferred term on
// such a key is relaxed away like any preference that fits nowhere.
func validatePodLabels(pod *corev1.Pod, rules *apis.LabelRules) error {
	isRestrictedKey := func(key string) bool { return rules.IsRestrictedSelectorLabel(normalizedKey(key)) }
	// The first restricted key in name order is named; most pods have none,
	// found without gathering the keys.
	var keys []string
	if !selectorKeys(pod, requirements.StrictOnly, isRestrictedKey) {
		return nil
	}
	selectorKeys(pod, requirements.StrictOnly, func(key string) bool {
		keys = append(keys, key)
		return false
	})
	slices.Sort(keys)
	for _, key := range keys {
		if isRestrictedKey(key) {
			return fmt.Errorf("selects on restricted label %q, which Karpenter does not set", normalizedKey(key))
		}
	}
	return nil
}

// selectorKeys calls f with each key the pod's nodeSelector and node
// affinity (its preferred terms only WithPreferences) select on, until f
// returns true; it reports whether one did.
func selectorKeys(pod *corev1.Pod, prefs requirements.Preferences, f func(string) bool) bool {
	for key := range pod.Spec.NodeSelector {
		if f(key) {
			return true
		}
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		return false
	}
	if r := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		for _, term := range r.NodeSelectorTerms {
			for _, e := range term.MatchExpressions {
				if f(e.Key) {
					return true
				}
			}
		}
	}
	if prefs != requirements.WithPreferences {
		return false
	}
	for _, term := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		for _, e := range term.Preference.MatchExpressions {
			if f(e.Key) {
				return true
			}
		}
	}
	return false
}

func normalizedKey(key string) string { return apis.NormalizeLabel(key) }

// comparePods is Karpenter's queue order, first-fit decreasing: larger cpu
// requests first, then larger memory, then older pods, then by UID, and
// last by namespace/name so the order is total.
func comparePods(a, b *podInfo) int {
	if c := cmp.Compare(b.requests.CPU(), a.requests.CPU()); c != 0 {
		return c
	}
	if c := cmp.Compare(b.requests.Memory(), a.requests.Memory()); c != 0 {
		return c
	}
	if c := a.pod.CreationTimestamp.Time.Compare(b.pod.CreationTimestamp.Time); c != 0 {
		return c
	}
	if c := cmp.Compare(a.pod.UID, b.pod.UID); c != 0 {
		return c
	}
	return cmp.Compare(a.key, b.key)
}

// hasTopology reports whether the pod states constraints on other pods'
// placement that count: spread constraints or pod (anti-)affinity terms,
// ScheduleAnyway constraints and preferred terms only WithPreferences.
func hasTopology(pod *corev1.Pod, prefs requirements.Preferences) bool {
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if counts(c, prefs) {
			return true
		}
	}
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	preferred := prefs == requirements.WithPreferences
	if pa := a.PodAffinity; pa != nil && (len(pa.RequiredDuringSchedulingIgnoredDuringExecution) > 0 || preferred && len(pa.PreferredDuringSchedulingIgnoredDuringExecution) > 0) {
		return true
	}
	paa := a.PodAntiAffinity
	return paa != nil && (len(paa.RequiredDuringSchedulingIgnoredDuringExecution) > 0 || preferred && len(paa.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
}

// counts reports whether the spread constraint binds the pod: a
// ScheduleAnyway one is a preference.
func counts(c corev1.TopologySpreadConstraint, prefs requirements.Preferences) bool {
	return prefs == requirements.WithPreferences || c.WhenUnsatisfiable != corev1.ScheduleAnyway
}
