package apis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
)

// FieldError is one problem with one field of an object.
type FieldError struct {
	// Path locates the field, e.g. "spec.template.spec.requirements[2].values".
	Path string
	// Message says what is wrong and what would be accepted.
	Message string
}

// Error returns "path: message".
func (e FieldError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// FieldErrors are all the problems found in one object, in field order. A
// nil or empty FieldErrors means the object is valid; Validate methods return
// a nil error in that case, never an empty FieldErrors.
type FieldErrors []FieldError

// Error lists the problems, one per line.
func (e FieldErrors) Error() string {
	lines := make([]string, len(e))
	for i, fe := range e {
		lines[i] = fe.Error()
	}
	return strings.Join(lines, "\n")
}

// asError returns nil for no problems, so callers can compare with nil.
func (e FieldErrors) asError() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

// errs collects field errors.
type errs struct{ list FieldErrors }

func (e *errs) add(path, format string, args ...any) {
	e.list = append(e.list, FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
}

func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func key(path, k string) string { return path + "[" + k + "]" }

// supportedOperators are the requirement operators karpenter.sh/v1 accepts.
var supportedOperators = []corev1.NodeSelectorOperator{
	corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn,
	corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist,
	corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt,
	NodeSelectorOpGte, NodeSelectorOpLte,
}

const (
	maxRequirements = 100
	maxMinValues    = 50
)

// validateName checks metadata.name of a cluster-scoped object.
func validateName(e *errs, name string) {
	if name == "" {
		e.add("metadata.name", "required")
		return
	}
	if problems := k8svalidation.IsDNS1123Subdomain(name); len(problems) > 0 {
		e.add("metadata.name", "%q is not a valid name: %s", name, strings.Join(problems, "; "))
	}
}

// validateRequirements checks a NodePool's or NodeClaim's requirements.
// NodePools may not name karpenter.sh/nodepool: Karpenter sets it itself.
func validateRequirements(e *errs, path string, reqs []NodeSelectorRequirementWithMinValues, nodePool bool, rules *LabelRules) {
	if len(reqs) > maxRequirements {
		e.add(path, "%d requirements, at most %d are allowed", len(reqs), maxRequirements)
	}
	for i, req := range reqs {
		validateRequirement(e, index(path, i), req, nodePool, rules)
	}
}

func validateRequirement(e *errs, path string, req NodeSelectorRequirementWithMinValues, nodePool bool, rules *LabelRules) {
	validateRequirementKey(e, child(path, "key"), req.Key, nodePool, rules)
	valuesPath := child(path, "values")
	integer := slices.Contains([]corev1.NodeSelectorOperator{corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, NodeSelectorOpGte, NodeSelectorOpLte}, req.Operator)
	for i, value := range req.Values {
		if !integer {
			validateLabelValue(e, index(valuesPath, i), value)
		}
	}
	switch op := req.Operator; op {
	case "":
		e.add(child(path, "operator"), "required (one of %s)", operatorList())
	case corev1.NodeSelectorOpIn:
		if len(req.Values) == 0 {
			e.add(valuesPath, "operator In needs at least one value")
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, NodeSelectorOpGte, NodeSelectorOpLte:
		validateIntegerValue(e, valuesPath, op, req.Values)
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(req.Values) > 0 {
			e.add(valuesPath, "operator %s takes no values, got %d", op, len(req.Values))
		}
	case corev1.NodeSelectorOpNotIn:
	default:
		e.add(child(path, "operator"), "%q is not a supported operator (use %s)", op, operatorList())
	}
	validateMinValues(e, path, req)
}

func operatorList() string {
	names := make([]string, len(supportedOperators))
	for i, op := range supportedOperators {
		names[i] = string(op)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func validateRequirementKey(e *errs, path, k string, nodePool bool, rules *LabelRules) {
	if k == "" {
		e.add(path, "required")
		return
	}
	if problems := content.IsLabelKey(k); len(problems) > 0 {
		e.add(path, "%q is not a valid label key: %s", k, strings.Join(problems, "; "))
		return
	}
	if nodePool && k == LabelNodePool {
		e.add(path, "label %q is restricted: Karpenter sets it to the NodePool's name on every node", k)
		return
	}
	// Without rules (a NodeOverlay before its NodePools' cloud is known)
	// the restricted domains wait: NodeOverlay.ValidateLabels.
	if rules != nil && rules.IsRestrictedLabel(NormalizeLabel(k)) {
		e.add(path, "%s", restrictedLabelMessage(k, rules))
	}
}

// restrictedLabelMessage explains why key may not be used and what may.
func restrictedLabelMessage(k string, rules *LabelRules) string {
	if k == LabelHostname {
		return fmt.Sprintf("label %q is restricted: Karpenter sets it to each node's own name", k)
	}
	return fmt.Sprintf("label %q is restricted: its domain %q is reserved (%s); use a well-known label or a key outside these domains",
		k, LabelDomain(k), strings.Join(rules.ReservedDomains(), ", "))
}

// validateIntegerValue checks the single non-negative integer that Gt, Lt,
// Gte and Lte compare against.
func validateIntegerValue(e *errs, path string, op corev1.NodeSelectorOperator, values []string) {
	if len(values) != 1 {
		e.add(path, "operator %s takes exactly one value, a non-negative integer; got %d values", op, len(values))
		return
	}
	v := values[0]
	if n, err := strconv.ParseInt(v, 10, 64); err != nil || n < 0 || strings.HasPrefix(v, "+") {
		e.add(index(path, 0), "operator %s needs a non-negative integer, not %q", op, v)
	}
}

func validateMinValues(e *errs, path string, req NodeSelectorRequirementWithMinValues) {
	if req.MinValues == nil {
		return
	}
	p, n := child(path, "minValues"), *req.MinValues
	if n < 1 || n > maxMinValues {
		e.add(p, "%d is out of range (1 to %d)", n, maxMinValues)
	}
	// The CRD compares minValues with the values given only for In; with
	// any other operator (NotIn included) it is accepted as it is.
	if req.Operator == corev1.NodeSelectorOpIn && len(req.Values) > 0 && len(req.Values) < n {
		e.add(p, "%d is more than the %d values given; operator In needs at least minValues values", n, len(req.Values))
	}
}

func validateLabelValue(e *errs, path, value string) {
	if len(content.IsLabelValue(value)) > 0 {
		e.add(path, "%q is not a valid label value: use at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", value)
	}
}

// validateTemplateLabels checks the labels a NodePool puts on its nodes.
func validateTemplateLabels(e *errs, path string, labels map[string]string, rules *LabelRules) {
	const maxLabels = 100
	if len(labels) > maxLabels {
		e.add(path, "%d labels, at most %d are allowed", len(labels), maxLabels)
	}
	for _, k := range sortedKeys(labels) {
		p := key(path, k)
		if problems := content.IsLabelKey(k); len(problems) > 0 {
			e.add(p, "%q is not a valid label key: %s", k, strings.Join(problems, "; "))
			continue
		}
		validateLabelValue(e, p, labels[k])
		switch {
		case k == LabelNodePool:
			e.add(p, "label %q is restricted: Karpenter sets it to the NodePool's name on every node", k)
		case rules.IsRestrictedLabel(k):
			e.add(p, "%s", restrictedLabelMessage(k, rules))
		}
	}
}

var taintEffects = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}

// validateTaints checks taints and startup taints together: a key and effect
// pair may appear only once across both lists.
func validateTaints(e *errs, specPath string, taints, startupTaints []corev1.Taint) {
	seen := map[string]string{}
	for _, list := range []struct {
		name   string
		taints []corev1.Taint
	}{{"taints", taints}, {"startupTaints", startupTaints}} {
		for i, taint := range list.taints {
			p := index(child(specPath, list.name), i)
			validateTaint(e, p, taint)
			pair := taint.Key + ":" + string(taint.Effect)
			if first, dup := seen[pair]; dup {
				e.add(p, "duplicate taint key and effect %q (already in %s)", pair, first)
				continue
			}
			seen[pair] = index(list.name, i)
		}
	}
}

func validateTaint(e *errs, path string, taint corev1.Taint) {
	if taint.Key == "" {
		e.add(child(path, "key"), "required")
	} else if problems := content.IsLabelKey(taint.Key); len(problems) > 0 {
		e.add(child(path, "key"), "%q is not a valid taint key: %s", taint.Key, strings.Join(problems, "; "))
	}
	if taint.Value != "" {
		if problems := content.IsLabelKey(taint.Value); len(problems) > 0 {
			e.add(child(path, "value"), "%q is not a valid taint value: %s", taint.Value, strings.Join(problems, "; "))
		}
	}
	switch {
	case taint.Effect == "":
		e.add(child(path, "effect"), "required (NoSchedule, PreferNoSchedule or NoExecute)")
	case !slices.Contains(taintEffects, taint.Effect):
		e.add(child(path, "effect"), "%q is not a taint effect (use NoSchedule, PreferNoSchedule or NoExecute)", taint.Effect)
	}
}

// validateNodeClassRef checks that a reference names its group, kind and
// name, all required in karpenter.sh/v1.
func validateNodeClassRef(e *errs, path string, ref *NodeClassReference) {
	if ref == nil {
		e.add(path, "required in karpenter.sh/v1: name the EC2NodeClass to use, e.g. {group: %s, kind: %s, name: default}", AWSGroup, KindEC2NodeClass)
		return
	}
	if ref.Group == "" {
		e.add(child(path, "group"), "required (%s for an EC2NodeClass)", AWSGroup)
	} else if strings.Contains(ref.Group, "/") {
		e.add(child(path, "group"), "%q must be an API group without a version, e.g. %s", ref.Group, AWSGroup)
	}
	if ref.Kind == "" {
		e.add(child(path, "kind"), "required (%s)", KindEC2NodeClass)
	}
	if ref.Name == "" {
		e.add(child(path, "name"), "required: the name of the %s to use", KindEC2NodeClass)
	}
}

// validateSeconds checks a duration that the CRD writes as whole numbers of
// hours, minutes and seconds.
func validateSeconds(e *errs, path string, d *time.Duration, allowNever bool) {
	if d == nil {
		return
	}
	if *d < 0 || *d%time.Second != 0 {
		never := ""
		if allowNever {
			never = `, or "Never"`
		}
		e.add(path, "%s is not allowed: use a non-negative whole number of seconds, minutes or hours such as \"30s\" or \"720h\"%s", d, never)
	}
}

func sortedKeys[K ~string, V any](m map[K]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, string(k))
	}
	slices.Sort(keys)
	return keys
}

// MaxAnnotationBytes is the most all of an object's annotations may hold
// together, keys and values: 256 KiB, the API server's limit.
const MaxAnnotationBytes = 256 << 10

// ValidateObjectMeta checks the labels and annotations of any object as the
// API server does: a label key is a name of at most 63 characters with an
// optional DNS subdomain prefix of at most 253, a label value at most 63
// characters of letters, digits, '-', '_' and '.'; an annotation key is
// written as a label key, and all annotations together hold at most
// MaxAnnotationBytes. A kubectl dump always passes; a hand-written manifest
// that does not would be refused by kubectl too.
func ValidateObjectMeta(labels, annotations map[string]string) FieldErrors {
	if validObjectMeta(labels, annotations) {
		return nil
	}
	var e errs
	for _, k := range sortedKeys(labels) {
		p := key("metadata.labels", k)
		if problems := content.IsLabelKey(k); len(problems) > 0 {
			e.add(p, "%q is not a valid label key: %s", k, strings.Join(problems, "; "))
			continue
		}
		validateLabelValue(&e, p, labels[k])
	}
	size := 0
	for _, k := range sortedKeys(annotations) {
		size += len(k) + len(annotations[k])
		if problems := content.IsLabelKey(k); len(problems) > 0 {
			e.add(key("metadata.annotations", k), "%q is not a valid annotation key: %s", k, strings.Join(problems, "; "))
		}
	}
	if size > MaxAnnotationBytes {
		e.add("metadata.annotations", "%d bytes in all, at most %d (256 KiB) are allowed", size, MaxAnnotationBytes)
	}
	return e.list
}

// validObjectMeta is ValidateObjectMeta's answer without its messages, in
// map order, allocating nothing: nearly every object passes.
func validObjectMeta(labels, annotations map[string]string) bool {
	for k, v := range labels {
		if len(content.IsLabelKey(k)) > 0 || len(content.IsLabelValue(v)) > 0 {
			return false
		}
	}
	size := 0
	for k, v := range annotations {
		size += len(k) + len(v)
		if len(content.IsLabelKey(k)) > 0 {
			return false
		}
	}
	return size <= MaxAnnotationBytes
}
