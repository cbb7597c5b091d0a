package apis

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
)

// ValidateObjectName checks metadata.name and metadata.namespace as the API
// server does for the kind (ValidateObjectMeta with the kind's name rule):
// a namespace is a DNS-1123 label; a Service's name a DNS-1035 label; every
// other kind karpsim reads (Pods, Nodes, workloads, PDBs, volumes, and the
// custom resources) a DNS-1123 subdomain. An empty name is left to the
// reader of the kind, which says why it needs one.
func ValidateObjectName(kind, namespace, name string) FieldErrors {
	if validName(kind, name) && (namespace == "" || len(apimachineryvalidation.ValidateNamespaceName(namespace, false)) == 0) {
		return nil
	}
	e := &errs{}
	if namespace != "" {
		if problems := apimachineryvalidation.ValidateNamespaceName(namespace, false); len(problems) > 0 {
			e.add("metadata.namespace", "%s is not a valid namespace name: %s", shown(namespace), strings.Join(problems, "; "))
		}
	}
	if name != "" && !validName(kind, name) {
		e.add("metadata.name", "%s is not a valid %s name: %s", shown(name), kind, strings.Join(nameProblems(kind, name), "; "))
	}
	return e.list
}

func validName(kind, name string) bool { return name == "" || len(nameProblems(kind, name)) == 0 }

func nameProblems(kind, name string) []string {
	if kind == "Service" {
		return apimachineryvalidation.NameIsDNS1035Label(name, false)
	}
	return apimachineryvalidation.NameIsDNSSubdomain(name, false)
}

// ValidateNode checks what karpsim reads of a Node as the API server does:
// its taints (validateNodeTaints: a key that is a qualified name, a value
// that is a label value, an effect, each key and effect once) and its
// resources (ValidateNodeResources). Allocatable above capacity is not
// refused, as the API server does not refuse it; package snapshot clamps it
// and warns.
func ValidateNode(node *corev1.Node) FieldErrors {
	e := &errs{}
	for i, t := range node.Spec.Taints {
		p := index("spec.taints", i)
		if t.Key == "" {
			e.add(child(p, "key"), "required")
		} else {
			validateKey(e, child(p, "key"), "taint key", t.Key)
		}
		validateValue(e, child(p, "value"), "taint value", t.Value)
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		case "":
			e.add(child(p, "effect"), "required (NoSchedule, PreferNoSchedule or NoExecute)")
		default:
			e.add(child(p, "effect"), "%s is not a taint effect (use NoSchedule, PreferNoSchedule or NoExecute)", shown(string(t.Effect)))
		}
		for j := range i {
			if node.Spec.Taints[j].Key == t.Key && node.Spec.Taints[j].Effect == t.Effect {
				e.add(p, "duplicate: taint %s already has key %s and effect %s", index("spec.taints", j), shown(t.Key), t.Effect)
				break
			}
		}
	}
	e.list = append(e.list, ValidateNodeResources(&node.Status)...)
	return e.list
}

// ValidatePodDisruptionBudget checks what karpsim reads of a PDB as the API
// server's ValidatePodDisruptionBudgetSpec does: the selector's syntax;
// minAvailable or maxUnavailable, not both, each a non-negative integer or
// a percentage from 0% to 100%; a known unhealthyPodEvictionPolicy.
func ValidatePodDisruptionBudget(pdb *policyv1.PodDisruptionBudget) FieldErrors {
	e := &errs{}
	s := &pdb.Spec
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		e.add("spec", "minAvailable and maxUnavailable cannot both be set")
	}
	validateIntOrPercent(e, "spec.minAvailable", s.MinAvailable)
	validateIntOrPercent(e, "spec.maxUnavailable", s.MaxUnavailable)
	validateLabelSelector(e, "spec.selector", s.Selector)
	if p := s.UnhealthyPodEvictionPolicy; p != nil && *p != policyv1.IfHealthyBudget && *p != policyv1.AlwaysAllow {
		e.add("spec.unhealthyPodEvictionPolicy", "%s is not supported (use IfHealthyBudget or AlwaysAllow)", shown(string(*p)))
	}
	return e.list
}

// validateIntOrPercent mirrors ValidatePositiveIntOrPercent and
// IsNotMoreThan100Percent.
func validateIntOrPercent(e *errs, path string, v *intstr.IntOrString) {
	if v == nil {
		return
	}
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			e.add(path, "%d: must be 0 or more", v.IntVal)
		}
		return
	}
	if problems := k8svalidation.IsValidPercent(v.StrVal); len(problems) > 0 {
		e.add(path, "%s is not a number or a percentage: %s", shown(v.StrVal), strings.Join(problems, "; "))
		return
	}
	if n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%")); err != nil || n > 100 {
		e.add(path, "%s: a percentage may not be more than 100%%", shown(v.StrVal))
	}
}
