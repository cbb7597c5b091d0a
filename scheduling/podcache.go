package scheduling

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// podCache is what the pods of a solve share rather than hold a copy each:
// their requests, one Vector per distinct value, and their compiled node
// requirements, one set per distinct form (pods of one workload state the
// same nodeSelector and node affinity). What it hands out is read, never
// changed.
type podCache struct {
	requests resources.Interner
	compiled map[string]compiledRequirements
	// labels are the label rules of the cluster's cloud (clusterLabels),
	// which decide the selectors a pod may not use; nil for the default.
	labels *apis.LabelRules
	// key and keys are fromPod's scratch space.
	key  []byte
	keys []string
}

// compiledRequirements is what requirements.FromPod returned for a form.
type compiledRequirements struct {
	reqs requirements.Requirements
	err  error
}

// intern returns the pod's requests, shared with the equal ones the cache
// holds; a Vector of the pod's own without a cache.
func (c *podCache) intern(requests resources.Vector) *resources.Vector {
	if c == nil {
		own := requests
		return &own
	}
	return c.requests.Intern(requests)
}

// fromPod is requirements.FromPod, compiled once per form of what it reads
// of a pod (its errors name no pod, so they are shared too). A pod without
// nodeSelector and node affinity has no requirements, and needs no lookup.
func (c *podCache) fromPod(pod *corev1.Pod, prefs requirements.Preferences) (requirements.Requirements, error) {
	a := pod.Spec.Affinity
	if c == nil || len(pod.Spec.NodeSelector) == 0 && (a == nil || a.NodeAffinity == nil) {
		return requirements.FromPod(pod, prefs)
	}
	key := c.formKey(pod, prefs)
	if hit, ok := c.compiled[string(key)]; ok {
		return hit.reqs, hit.err
	}
	reqs, err := requirements.FromPod(pod, prefs)
	if c.compiled == nil {
		c.compiled = map[string]compiledRequirements{}
	}
	c.compiled[string(key)] = compiledRequirements{reqs, err}
	return reqs, err
}

// formKey encodes everything requirements.FromPod reads of the pod under
// prefs, each string prefixed with its length: its nodeSelector, and of
// its node affinity the heaviest preferred term (WithPreferences) and the
// first required term. The key is scratch space, good until the next call.
func (c *podCache) formKey(pod *corev1.Pod, prefs requirements.Preferences) []byte {
	keys := c.keys[:0]
	for k := range pod.Spec.NodeSelector {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	c.keys = keys
	b := strconv.AppendInt(append(c.key[:0], byte('0'+prefs)), int64(len(keys)), 10)
	for _, k := range keys {
		b = appendKeyString(appendKeyString(b, k), pod.Spec.NodeSelector[k])
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		c.key = append(b, '-')
		return c.key
	}
	if prefs == requirements.WithPreferences {
		if term, ok := requirements.HeaviestPreferredTerm(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution); ok {
			b = appendExpressionsKey(append(b, 'p'), term.Preference.MatchExpressions)
		}
	}
	switch r := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; {
	case r == nil || len(r.NodeSelectorTerms) == 0:
		b = append(b, '-')
	case len(r.NodeSelectorTerms[0].MatchFields) > 0:
		b = append(b, 'F')
	default:
		b = appendExpressionsKey(append(b, 'r'), r.NodeSelectorTerms[0].MatchExpressions)
	}
	c.key = b
	return b
}

// appendExpressionsKey appends node selector requirements as they are.
func appendExpressionsKey(b []byte, exprs []corev1.NodeSelectorRequirement) []byte {
	b = strconv.AppendInt(b, int64(len(exprs)), 10)
	for _, e := range exprs {
		b = appendExpressionKey(b, e.Key, string(e.Operator), e.Values)
	}
	return b
}

// labelRules are the cache's label rules, the default cloud's without a
// cache.
func (c *podCache) labelRules() *apis.LabelRules {
	if c == nil || c.labels == nil {
		return apis.AWSLabels
	}
	return c.labels
}

// clusterLabels are the label rules of the cloud the pools launch into:
// those their NodePools' nodeClassRef groups name (apis.LabelRulesFor) and
// their catalogs' types carry (InstanceType.LabelRules) when they all
// agree, the default cloud's otherwise (no pool, or several clouds: one
// provider runs in a cluster).
func clusterLabels(pools []Pool) *apis.LabelRules {
	var rules *apis.LabelRules
	agree := func(r *apis.LabelRules) bool {
		if rules == nil {
			rules = r
		}
		return r == rules
	}
	for _, p := range pools {
		if ref := p.NodePool.Spec.Template.Spec.NodeClassRef; ref != nil && ref.Group != "" && !agree(apis.LabelRulesFor(ref.Group)) {
			return apis.AWSLabels
		}
		for _, it := range p.InstanceTypes {
			if !agree(it.LabelRules()) {
				return apis.AWSLabels
			}
		}
	}
	if rules == nil {
		return apis.AWSLabels
	}
	return rules
}

// podReads are the pods the solves of one Compiler read, kept by pointer
// for the solves after: a search solving one cluster many times (each
// packing, narrowing and edit set) reads and compiles each pod once, not
// once per solve. A solve changes nothing of what it reads from here, or
// works on copies (see solver.readShared). Only solves without volumes and
// default spread constraints use them: those read a pod differently from
// solve to solve (volumes.forPod, DefaultSpread.withDefaults).
type podReads struct {
	// caches are the shared requests and compiled requirements, per
	// cloud's label rules.
	caches map[*apis.LabelRules]*podCache
	infos  map[podReadKey]*podInfo
	// orders are the pods the solves queued, in Karpenter's order
	// (comparePods), by the pods they were sorted from: the solves of
	// one search queue the same pods again and again.
	orders map[orderKey][]podOrder
}

// orderKey is a list of pods by its first pod and length.
type orderKey struct {
	first *podInfo
	n     int
}

type podOrder struct {
	pods, sorted []*podInfo
}

// sorted sorts the pods (which it may reorder in place) as comparePods
// orders them, stably, or returns the order found for the same pods
// before. Pods are the same if they are the same podInfos: a solve that
// copies its pods' infos (readShared) sorts them afresh.
func (r *podReads) sorted(pods []*podInfo) []*podInfo {
	if r == nil || len(pods) == 0 || !shareWork {
		slices.SortStableFunc(pods, comparePods)
		return pods
	}
	key := orderKey{pods[0], len(pods)}
	for _, o := range r.orders[key] {
		if slices.Equal(o.pods, pods) {
			return append(pods[:0], o.sorted...)
		}
	}
	unsorted := slices.Clone(pods)
	slices.SortStableFunc(pods, comparePods)
	if r.orders == nil {
		r.orders = map[orderKey][]podOrder{}
	}
	r.orders[key] = append(r.orders[key], podOrder{pods: unsorted, sorted: slices.Clone(pods)})
	return pods
}

// podReadKey is what a podInfo read depends on besides the pod: the
// preferences read and the cluster's label rules.
type podReadKey struct {
	pod    *corev1.Pod
	prefs  requirements.Preferences
	labels *apis.LabelRules
}

// cache is the podCache shared by the solves under the label rules.
func (r *podReads) cache(labels *apis.LabelRules) *podCache {
	if c, ok := r.caches[labels]; ok {
		return c
	}
	if r.caches == nil {
		r.caches, r.infos = map[*apis.LabelRules]*podCache{}, map[podReadKey]*podInfo{}
	}
	c := &podCache{labels: labels}
	r.caches[labels] = c
	return c
}
