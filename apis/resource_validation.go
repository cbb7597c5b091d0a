package apis

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
)

// The API server's rules for resource names and amounts, as
// k8s.io/kubernetes pkg/apis/core/validation writes them
// (ValidateResourceRequirements, validateContainerResourceName,
// ValidateResourceQuantityValue, validateResourceQuantityHugePageValue).
// A negative request, or one past what karpsim reads, is package
// resources' error, which reads the requests.

// isNativeResource: a name without a domain, or in kubernetes.io.
func isNativeResource(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), corev1.ResourceDefaultNamespacePrefix)
}

func isHugePages(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// isExtendedResource: a name outside kubernetes.io, that could be quota'd
// as "requests.<name>".
func isExtendedResource(name corev1.ResourceName) bool {
	if isNativeResource(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(content.IsLabelKey(corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

// overcommitAllowed: native resources other than huge pages may request
// less than their limit; extended resources and huge pages may not.
func overcommitAllowed(name corev1.ResourceName) bool {
	return isNativeResource(name) && !isHugePages(name)
}

// validateContainerResourceName mirrors validateContainerResourceName: a
// qualified name; without a domain, one of cpu, memory, ephemeral-storage
// or hugepages-<size>; with one outside kubernetes.io, an extended resource
// name.
func validateContainerResourceName(e *errs, path func() string, name corev1.ResourceName) bool {
	if name == corev1.ResourceCPU || name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage {
		return true // nearly every name, known good
	}
	if problems := content.IsLabelKey(string(name)); len(problems) > 0 {
		e.add(path(), "%s is not a valid resource name: %s", shown(string(name)), strings.Join(problems, "; "))
		return false
	}
	switch {
	case !strings.Contains(string(name), "/"):
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory && name != corev1.ResourceEphemeralStorage && !isHugePages(name) {
			e.add(path(), "%s is not a container resource (use cpu, memory, ephemeral-storage, hugepages-<size>, or an extended resource such as nvidia.com/gpu)", shown(string(name)))
			return false
		}
	case !isNativeResource(name) && !isExtendedResource(name):
		e.add(path(), "%s is not an extended resource name", shown(string(name)))
		return false
	}
	if isHugePages(name) {
		if _, err := resource.ParseQuantity(strings.TrimPrefix(string(name), corev1.ResourceHugePagesPrefix)); err != nil {
			e.add(path(), "%s does not name a page size (e.g. hugepages-2Mi)", shown(string(name)))
			return false
		}
	}
	return true
}

// validateQuantity mirrors ValidateResourceQuantityValue: not negative, and
// a whole number for an extended resource ("nvidia.com/gpu: 1.5" is
// refused). Requests skip the sign, which package resources checks.
func validateQuantity(e *errs, path string, name corev1.ResourceName, q resource.Quantity) {
	validateAmount(e, func() string { return path }, name, q, true)
}

func validateAmount(e *errs, path func() string, name corev1.ResourceName, q resource.Quantity, sign bool) {
	if sign && q.Sign() < 0 {
		e.add(path(), "%s: must be 0 or more", q.String())
		return
	}
	if isExtendedResource(name) && q.MilliValue()%1000 != 0 {
		e.add(path(), "%s: %s is an extended resource, counted in whole units: use an integer", q.String(), name)
	}
}

// validateResourceRequirements mirrors ValidateResourceRequirements for a
// container: names and amounts of requests and limits; a request at most
// its limit, and equal to it for extended resources and huge pages, which
// also need a limit; huge pages only beside cpu or memory. path names the
// resources field; it is called only to report a problem. The lists are
// read in map order, allocating nothing when they pass, and the problems
// found are then sorted by field.
func validateResourceRequirements(e *errs, path func() string, r *corev1.ResourceRequirements) {
	start := len(e.list)
	hugePages, cpuOrMemory := false, false
	at := func(list string, name corev1.ResourceName) string { return key(child(path(), list), string(name)) }
	for name, q := range r.Limits {
		if !validateContainerResourceName(e, func() string { return at("limits", name) }, name) {
			continue
		}
		validateAmount(e, func() string { return at("limits", name) }, name, q, true)
		hugePages = hugePages || isHugePages(name)
		cpuOrMemory = cpuOrMemory || name == corev1.ResourceCPU || name == corev1.ResourceMemory
		if isHugePages(name) {
			validateHugePagesAmount(e, at("limits", name), name, q)
		}
	}
	for name, q := range r.Requests {
		if !validateContainerResourceName(e, func() string { return at("requests", name) }, name) {
			continue
		}
		validateAmount(e, func() string { return at("requests", name) }, name, q, false)
		hugePages = hugePages || isHugePages(name)
		cpuOrMemory = cpuOrMemory || name == corev1.ResourceCPU || name == corev1.ResourceMemory
		limit, limited := r.Limits[name]
		switch {
		case limited && !overcommitAllowed(name) && q.Cmp(limit) != 0:
			e.add(at("requests", name), "%s must equal its limit %s: %s cannot be overcommitted", q.String(), limit.String(), name)
		case limited && q.Cmp(limit) > 0:
			e.add(at("requests", name), "%s is more than its limit %s", q.String(), limit.String())
		case !limited && !overcommitAllowed(name):
			e.add(at("limits", name), "required: %s cannot be overcommitted, so its limit must be set (equal to the request)", name)
		}
	}
	if hugePages && !cpuOrMemory {
		e.add(path(), "huge pages require a cpu or memory request or limit")
	}
	slices.SortStableFunc(e.list[start:], func(a, b FieldError) int { return strings.Compare(a.Path, b.Path) })
}

// validateHugePagesAmount mirrors validateResourceQuantityHugePageValue: a
// whole number of pages.
func validateHugePagesAmount(e *errs, path string, name corev1.ResourceName, q resource.Quantity) {
	size, err := resource.ParseQuantity(strings.TrimPrefix(string(name), corev1.ResourceHugePagesPrefix))
	if err != nil || size.Value() <= 0 {
		return
	}
	if q.Value()%size.Value() != 0 {
		e.add(path, "%s is not a whole number of %s pages", q.String(), size.String())
	}
}

// validatePodResources mirrors validatePodResourceRequirements for
// spec.resources: only cpu, memory and huge pages, each request at most its
// limit.
func validatePodResources(e *errs, path string, r *corev1.ResourceRequirements) {
	for _, list := range []struct {
		name string
		list corev1.ResourceList
	}{{"limits", r.Limits}, {"requests", r.Requests}} {
		for _, n := range sortedKeys(list.list) {
			name := corev1.ResourceName(n)
			p := key(child(path, list.name), n)
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory && !isHugePages(name) {
				e.add(p, "%s cannot be set for the whole pod (only cpu, memory and hugepages-<size>)", shown(n))
				continue
			}
			q := list.list[name]
			validateAmount(e, func() string { return p }, name, q, list.name == "limits")
			if limit, ok := r.Limits[name]; ok && list.name == "requests" && q.Cmp(limit) > 0 {
				e.add(p, "%s is more than its limit %s", q.String(), limit.String())
			}
		}
	}
}

// ValidateNodeResources mirrors validateNodeResources for a Node's
// status.capacity and status.allocatable: qualified names, amounts not
// negative, whole numbers for extended resources.
func ValidateNodeResources(status *corev1.NodeStatus) FieldErrors {
	e := &errs{}
	for _, list := range []struct {
		name string
		list corev1.ResourceList
	}{{"status.capacity", status.Capacity}, {"status.allocatable", status.Allocatable}} {
		// Map order, allocating nothing when the list passes; the
		// problems are sorted after.
		start := len(e.list)
		for name, q := range list.list {
			switch name {
			case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage:
			default:
				if problems := content.IsLabelKey(string(name)); len(problems) > 0 {
					e.add(key(list.name, string(name)), "%s is not a valid resource name: %s", shown(string(name)), strings.Join(problems, "; "))
					continue
				}
			}
			validateAmount(e, func() string { return key(list.name, string(name)) }, name, q, true)
		}
		slices.SortStableFunc(e.list[start:], func(a, b FieldError) int { return strings.Compare(a.Path, b.Path) })
	}
	return e.list
}
