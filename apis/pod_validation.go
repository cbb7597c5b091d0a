package apis

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The API server's rules for the parts of a pod spec karpsim reads: where
// it may be placed (nodeSelector, affinity, tolerations, spread
// constraints, scheduling gates, host ports) and what it asks for
// (resources). Each function names the validation of k8s.io/kubernetes
// pkg/apis/core/validation it mirrors; docs/limits.md's "Limits on input"
// lists them all. A pod the API server would refuse never reaches a
// decision: its manifest is refused, naming the field.

// ValidatePodSpec checks a pod spec as the API server's ValidatePodSpec
// checks the fields karpsim reads. path is the spec's own field: "spec" for
// a Pod, "spec.template.spec" for a workload's template.
func ValidatePodSpec(spec *corev1.PodSpec, path string) FieldErrors {
	e := &errs{}
	validateNodeSelector(e, path, spec.NodeSelector)
	if a := spec.Affinity; a != nil {
		validateAffinity(e, child(path, "affinity"), a)
	}
	validateTolerations(e, path, spec.Tolerations)
	validateSpreadConstraints(e, path, spec.TopologySpreadConstraints)
	validateSchedulingGates(e, path, spec.SchedulingGates)
	for i := range spec.InitContainers {
		validateContainer(e, path, "initContainers", i, &spec.InitContainers[i])
	}
	for i := range spec.Containers {
		validateContainer(e, path, "containers", i, &spec.Containers[i])
	}
	if r := spec.Resources; r != nil {
		validatePodResources(e, child(path, "resources"), r)
	}
	for _, name := range sortedKeys(spec.Overhead) {
		validateQuantity(e, key(child(path, "overhead"), name), corev1.ResourceName(name), spec.Overhead[corev1.ResourceName(name)])
	}
	return e.list
}

// maxShown is how much of a refused string a message quotes: a value of
// 100,000 characters is named by its start and its length.
const maxShown = 80

// shown quotes s for a message, cut to maxShown bytes (at a rune boundary)
// with its length said when it is longer. Zero-width and right-to-left
// characters are printed as escapes.
func shown(s string) string {
	if len(s) <= maxShown {
		return strconv.Quote(s)
	}
	cut := maxShown
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// DisplayName is an object's name or namespace as messages print it: as it
// is when it is plain printable ASCII of a name's length, else quoted with
// invisible and right-to-left characters escaped, and cut when it is long,
// so that a hostile name can neither hide in nor reorder a message.
func DisplayName(s string) string {
	if len(s) > 253 {
		return shown(s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' || s[i] == '"' {
			return shown(s)
		}
	}
	return s
}

// validateKey checks a label key, a taint or toleration key, a topology key
// or a resource name: a qualified name (IsQualifiedName), as the API
// server's ValidateLabelName does. what names it in the message.
func validateKey(e *errs, path, what, k string) {
	if problems := content.IsLabelKey(k); len(problems) > 0 {
		e.add(path, "%s is not a valid %s: %s", shown(k), what, strings.Join(problems, "; "))
	}
}

// validateValue checks a label value (IsValidLabelValue), as ValidateLabels
// does for each value.
func validateValue(e *errs, path, what, v string) {
	if problems := content.IsLabelValue(v); len(problems) > 0 {
		e.add(path, "%s is not a valid %s: %s", shown(v), what, strings.Join(problems, "; "))
	}
}

// validateNodeSelector mirrors ValidatePodSpec's ValidateLabels on
// spec.nodeSelector: each key a qualified name, each value a label value.
func validateNodeSelector(e *errs, specPath string, selector map[string]string) {
	valid := true
	for k, v := range selector {
		if len(content.IsLabelKey(k)) > 0 || len(content.IsLabelValue(v)) > 0 {
			valid = false
			break
		}
	}
	if valid {
		return
	}
	path := child(specPath, "nodeSelector")
	for _, k := range sortedKeys(selector) {
		validateKey(e, key(path, shown(k)), "label key", k)
		validateValue(e, key(path, shown(k)), "label value", selector[k])
	}
}

// validateAffinity mirrors validateAffinity: node affinity terms, and
// pod (anti-)affinity terms.
func validateAffinity(e *errs, path string, a *corev1.Affinity) {
	if na := a.NodeAffinity; na != nil {
		p := child(path, "nodeAffinity")
		if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			validateNodeSelectorTerms(e, child(child(p, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms"), r.NodeSelectorTerms)
		}
		for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tp := index(child(p, "preferredDuringSchedulingIgnoredDuringExecution"), i)
			validateWeight(e, child(tp, "weight"), term.Weight)
			validateNodeSelectorTerm(e, child(tp, "preference"), term.Preference)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		validatePodAffinityTerms(e, child(path, "podAffinity"), pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		validatePodAffinityTerms(e, child(path, "podAntiAffinity"), pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
}

// validateWeight mirrors the API server's rule for preferred terms: a
// weight from 1 to 100.
func validateWeight(e *errs, path string, w int32) {
	if w < 1 || w > 100 {
		e.add(path, "%d is out of range (1 to 100)", w)
	}
}

// validateNodeSelectorTerms mirrors ValidateNodeSelector: at least one
// term.
func validateNodeSelectorTerms(e *errs, path string, terms []corev1.NodeSelectorTerm) {
	if len(terms) == 0 {
		e.add(path, "required: at least one node selector term")
	}
	for i, term := range terms {
		validateNodeSelectorTerm(e, index(path, i), term)
	}
}

// validateNodeSelectorTerm mirrors ValidateNodeSelectorTerm: each
// expression by ValidateNodeSelectorRequirement, each field expression by
// validateNodeFieldSelectorRequirement.
func validateNodeSelectorTerm(e *errs, path string, term corev1.NodeSelectorTerm) {
	for i, req := range term.MatchExpressions {
		p := index(child(path, "matchExpressions"), i)
		switch req.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(req.Values) == 0 {
				e.add(child(p, "values"), "required when the operator is In or NotIn")
			}
		case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
			if len(req.Values) > 0 {
				e.add(child(p, "values"), "must be empty when the operator is Exists or DoesNotExist")
			}
		case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
			if len(req.Values) != 1 {
				e.add(child(p, "values"), "operator %s takes exactly one value, got %d", req.Operator, len(req.Values))
			}
		default:
			e.add(child(p, "operator"), "%s is not a node selector operator (use In, NotIn, Exists, DoesNotExist, Gt or Lt)", shown(string(req.Operator)))
		}
		validateKey(e, child(p, "key"), "label key", req.Key)
	}
	for i, req := range term.MatchFields {
		p := index(child(path, "matchFields"), i)
		if req.Key != "metadata.name" {
			e.add(child(p, "key"), "%s is not a supported field (only metadata.name)", shown(req.Key))
		}
		if req.Operator != corev1.NodeSelectorOpIn && req.Operator != corev1.NodeSelectorOpNotIn {
			e.add(child(p, "operator"), "%s is not supported for a field (use In or NotIn)", shown(string(req.Operator)))
		}
		if len(req.Values) != 1 {
			e.add(child(p, "values"), "a field selector takes exactly one value, got %d", len(req.Values))
		}
	}
}

// validatePodAffinityTerms mirrors validatePodAffinity and
// validatePodAntiAffinity: each required term, and each preferred term
// with its weight.
func validatePodAffinityTerms(e *errs, path string, required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm) {
	for i, term := range required {
		validatePodAffinityTerm(e, index(child(path, "requiredDuringSchedulingIgnoredDuringExecution"), i), term)
	}
	for i, term := range preferred {
		p := index(child(path, "preferredDuringSchedulingIgnoredDuringExecution"), i)
		validateWeight(e, child(p, "weight"), term.Weight)
		validatePodAffinityTerm(e, child(p, "podAffinityTerm"), term.PodAffinityTerm)
	}
}

// validatePodAffinityTerm mirrors validatePodAffinityTerm: the selectors'
// syntax, namespaces as DNS labels, a topology key that is a qualified
// name, and match/mismatch label keys.
func validatePodAffinityTerm(e *errs, path string, term corev1.PodAffinityTerm) {
	validateLabelSelector(e, child(path, "labelSelector"), term.LabelSelector)
	validateLabelSelector(e, child(path, "namespaceSelector"), term.NamespaceSelector)
	for i, ns := range term.Namespaces {
		if problems := apimachineryvalidation.ValidateNamespaceName(ns, false); len(problems) > 0 {
			e.add(index(child(path, "namespaces"), i), "%s is not a namespace name: %s", shown(ns), strings.Join(problems, "; "))
		}
	}
	if term.TopologyKey == "" {
		e.add(child(path, "topologyKey"), "required: a node label key such as topology.kubernetes.io/zone")
	} else {
		validateKey(e, child(path, "topologyKey"), "topology key", term.TopologyKey)
	}
	validateMatchLabelKeys(e, path, "matchLabelKeys", term.MatchLabelKeys, term.LabelSelector)
	validateMatchLabelKeys(e, path, "mismatchLabelKeys", term.MismatchLabelKeys, term.LabelSelector)
	for i, k := range term.MatchLabelKeys {
		for _, m := range term.MismatchLabelKeys {
			if k == m {
				e.add(index(child(path, "matchLabelKeys"), i), "%s is also in mismatchLabelKeys", shown(k))
			}
		}
	}
}

// validateMatchLabelKeys mirrors validateMatchLabelKeysAndMismatchLabelKeys:
// qualified names that the label selector does not name already, and none
// without a label selector.
func validateMatchLabelKeys(e *errs, path, name string, keys []string, selector *metav1.LabelSelector) {
	if len(keys) == 0 {
		return
	}
	p := child(path, name)
	if selector == nil {
		e.add(p, "must be empty when labelSelector is not set")
		return
	}
	for i, k := range keys {
		validateKey(e, index(p, i), "label key", k)
		_, inLabels := selector.MatchLabels[k]
		inExpressions := false
		for _, r := range selector.MatchExpressions {
			inExpressions = inExpressions || r.Key == k
		}
		if inLabels || inExpressions {
			e.add(index(p, i), "%s is already in labelSelector: a key may be in one of them only", shown(k))
		}
	}
}

// validateLabelSelector checks a label selector's syntax with apimachinery's
// metav1validation.ValidateLabelSelector, the API server's own.
func validateLabelSelector(e *errs, path string, selector *metav1.LabelSelector) {
	if selector == nil {
		return
	}
	addFieldErrors(e, path, metav1validation.ValidateLabelSelector(selector, metav1validation.LabelSelectorValidationOptions{}, nil))
}

// ValidateLabelSelector checks a label selector's syntax as the API server
// does (metav1validation.ValidateLabelSelector), for a selector at path.
func ValidateLabelSelector(path string, selector *metav1.LabelSelector) FieldErrors {
	e := &errs{}
	validateLabelSelector(e, path, selector)
	return e.list
}

// addFieldErrors adds apimachinery's field errors, their paths below path.
func addFieldErrors(e *errs, path string, list field.ErrorList) {
	for _, fe := range list {
		p := path
		if fe.Field != "<nil>" && fe.Field != "" {
			p = path + "." + fe.Field
		}
		msg := fe.Detail
		if fe.Type == field.ErrorTypeInvalid || fe.Type == field.ErrorTypeNotSupported {
			msg = shown(valueText(fe.BadValue)) + ": " + fe.Detail
		}
		if msg == "" {
			msg = fe.Type.String()
		}
		e.add(p, "%s", msg)
	}
}

func valueText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case metav1.LabelSelectorOperator:
		return string(v)
	}
	return ""
}

var tolerationEffects = []corev1.TaintEffect{"", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}

// validateTolerations mirrors ValidateTolerations: a key that is a qualified
// name, or none with operator Exists; operator Equal (or none) with a label
// value, or Exists without one; an effect of a taint, or none;
// tolerationSeconds only with NoExecute. The Gt and Lt operators are
// behind a feature gate that is off by default, and karpsim does not model
// them: they are refused.
func validateTolerations(e *errs, specPath string, tolerations []corev1.Toleration) {
	for i := range tolerations {
		t := &tolerations[i]
		at := func(field string) string { return child(index(child(specPath, "tolerations"), i), field) }
		if t.Key != "" {
			if problems := content.IsLabelKey(t.Key); len(problems) > 0 {
				e.add(at("key"), "%s is not a valid toleration key: %s", shown(t.Key), strings.Join(problems, "; "))
			}
		} else if t.Operator != corev1.TolerationOpExists {
			e.add(at("operator"), "must be Exists when key is empty (which tolerates every taint)")
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			e.add(at("effect"), "must be NoExecute when tolerationSeconds is set")
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if problems := content.IsLabelValue(t.Value); len(problems) > 0 {
				e.add(at("value"), "%s is not a valid toleration value: %s", shown(t.Value), strings.Join(problems, "; "))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				e.add(at("value"), "must be empty when the operator is Exists")
			}
		default:
			e.add(at("operator"), "%s is not a toleration operator (use Equal or Exists)", shown(string(t.Operator)))
		}
		if !containsEffect(tolerationEffects, t.Effect) {
			e.add(at("effect"), "%s is not a taint effect (use NoSchedule, PreferNoSchedule, NoExecute, or leave it out for all)", shown(string(t.Effect)))
		}
	}
}

func containsEffect(effects []corev1.TaintEffect, effect corev1.TaintEffect) bool {
	for _, e := range effects {
		if e == effect {
			return true
		}
	}
	return false
}

// validateSpreadConstraints mirrors validateTopologySpreadConstraints:
// maxSkew at least 1; a topology key that is a qualified name;
// whenUnsatisfiable DoNotSchedule or ScheduleAnyway, once per key;
// minDomains at least 1 and only with DoNotSchedule; node policies Honor or
// Ignore; the label selector's syntax and matchLabelKeys.
func validateSpreadConstraints(e *errs, specPath string, constraints []corev1.TopologySpreadConstraint) {
	if len(constraints) == 0 {
		return
	}
	path := child(specPath, "topologySpreadConstraints")
	for i, c := range constraints {
		p := index(path, i)
		if c.MaxSkew < 1 {
			e.add(child(p, "maxSkew"), "%d: must be at least 1", c.MaxSkew)
		}
		if c.TopologyKey == "" {
			e.add(child(p, "topologyKey"), "required: a node label key such as topology.kubernetes.io/zone")
		} else {
			validateKey(e, child(p, "topologyKey"), "topology key", c.TopologyKey)
		}
		switch c.WhenUnsatisfiable {
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		case "":
			e.add(child(p, "whenUnsatisfiable"), "required (DoNotSchedule or ScheduleAnyway)")
		default:
			e.add(child(p, "whenUnsatisfiable"), "%s is not supported (use DoNotSchedule or ScheduleAnyway)", shown(string(c.WhenUnsatisfiable)))
		}
		for j := range i {
			if constraints[j].TopologyKey == c.TopologyKey && constraints[j].WhenUnsatisfiable == c.WhenUnsatisfiable {
				e.add(p, "duplicate: %s already has topologyKey %s with whenUnsatisfiable %s", index(path, j), shown(c.TopologyKey), c.WhenUnsatisfiable)
				break
			}
		}
		if c.MinDomains != nil {
			if *c.MinDomains < 1 {
				e.add(child(p, "minDomains"), "%d: must be at least 1", *c.MinDomains)
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				e.add(child(p, "minDomains"), "only allowed with whenUnsatisfiable DoNotSchedule")
			}
		}
		validateNodeInclusionPolicy(e, child(p, "nodeAffinityPolicy"), c.NodeAffinityPolicy)
		validateNodeInclusionPolicy(e, child(p, "nodeTaintsPolicy"), c.NodeTaintsPolicy)
		validateLabelSelector(e, child(p, "labelSelector"), c.LabelSelector)
		validateMatchLabelKeys(e, p, "matchLabelKeys", c.MatchLabelKeys, c.LabelSelector)
	}
}

func validateNodeInclusionPolicy(e *errs, path string, policy *corev1.NodeInclusionPolicy) {
	if policy != nil && *policy != corev1.NodeInclusionPolicyHonor && *policy != corev1.NodeInclusionPolicyIgnore {
		e.add(path, "%s is not supported (use Honor or Ignore)", shown(string(*policy)))
	}
}

// validateSchedulingGates mirrors validateSchedulingGates: each name a
// qualified name, none twice.
func validateSchedulingGates(e *errs, specPath string, gates []corev1.PodSchedulingGate) {
	for i, g := range gates {
		p := child(index(child(specPath, "schedulingGates"), i), "name")
		validateKey(e, p, "scheduling gate name", g.Name)
		for j := range i {
			if gates[j].Name == g.Name {
				e.add(p, "duplicate: %s is also gate %d", shown(g.Name), j)
				break
			}
		}
	}
}

// validateContainer checks what karpsim reads of a container: its host
// ports (validateContainerPorts) and its resources.
func validateContainer(e *errs, specPath, list string, i int, c *corev1.Container) {
	for j, port := range c.Ports {
		if port.HostPort == 0 && port.ContainerPort >= 1 && port.ContainerPort <= 65535 &&
			(port.Protocol == "" || port.Protocol == corev1.ProtocolTCP || port.Protocol == corev1.ProtocolUDP || port.Protocol == corev1.ProtocolSCTP) {
			continue
		}
		p := index(containerPath(specPath, list, i, c)+".ports", j)
		if port.ContainerPort < 1 || port.ContainerPort > 65535 {
			e.add(child(p, "containerPort"), "%d: must be from 1 to 65535", port.ContainerPort)
		}
		if port.HostPort < 0 || port.HostPort > 65535 {
			e.add(child(p, "hostPort"), "%d: must be from 0 to 65535", port.HostPort)
		}
		switch port.Protocol {
		case "", corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		default:
			e.add(child(p, "protocol"), "%s is not supported (use TCP, UDP or SCTP)", shown(string(port.Protocol)))
		}
	}
	r := &c.Resources
	if len(r.Limits) == 0 && onlyCPUAndMemory(r.Requests) {
		return // the common case: nothing to compare, nothing to check but the sign, which package resources checks
	}
	validateResourceRequirements(e, func() string { return containerPath(specPath, list, i, c) + ".resources" }, r)
}

// containerPath names a container as package resources does:
// "spec.containers[0] (app)".
func containerPath(specPath, list string, i int, c *corev1.Container) string {
	return index(child(specPath, list), i) + " (" + c.Name + ")"
}

func onlyCPUAndMemory(list corev1.ResourceList) bool {
	for name := range list {
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
			return false
		}
	}
	return true
}
