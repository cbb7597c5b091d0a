package resources

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// PodRequests returns what a pod asks of a node, with the semantics of
// Kubernetes' PodRequests (k8s.io/component-helpers/resource) as the
// scheduler and Karpenter use them, plus one "pods":
//
//   - app containers are summed;
//   - restartable init containers (sidecars, restartPolicy Always) run
//     beside everything started after them, so they add to the app sum and
//     to every later init container;
//   - the result is, per resource, the larger of that sum and the largest
//     init container (with the sidecars started before it);
//   - pod-level requests (spec.resources), where set, replace the container
//     total for cpu, memory and hugepages;
//   - spec.overhead is added.
//
// A container that states a limit but no request for a resource requests
// its limit, as the API server defaults it. A negative amount is an error
// naming the container and resource: such a pod can never be placed.
func PodRequests(pod *corev1.Pod) (Vector, error) {
	var apps, sidecars, initMax Vector
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		r, err := containerRequests(c, "spec.containers", i)
		if err != nil {
			return Vector{}, err
		}
		apps = apps.Add(r)
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		r, err := containerRequests(c, "spec.initContainers", i)
		if err != nil {
			return Vector{}, err
		}
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars = sidecars.Add(r)
			initMax = initMax.Max(sidecars)
			continue
		}
		initMax = initMax.Max(r.Add(sidecars))
	}
	total := apps.Add(sidecars).Max(initMax)
	if pod.Spec.Resources != nil {
		podLevel, err := vectorOf(defaulted(pod.Spec.Resources.Requests, pod.Spec.Resources.Limits), fieldName("spec.resources.requests"))
		if err != nil {
			return Vector{}, err
		}
		for _, name := range podLevel.Names() {
			if isPodLevelResource(name) {
				total = total.With(name, podLevel.Get(name))
			}
		}
	}
	if pod.Spec.Overhead != nil {
		overhead, err := vectorOf(pod.Spec.Overhead, fieldName("spec.overhead"))
		if err != nil {
			return Vector{}, err
		}
		total = total.Add(overhead)
	}
	total.slots[SlotPods] = addAmounts(total.slots[SlotPods], 1)
	return total, nil
}

func containerRequests(c *corev1.Container, field string, i int) (Vector, error) {
	return vectorOf(defaulted(c.Resources.Requests, c.Resources.Limits), func() string {
		return fmt.Sprintf("%s[%d] (%s).resources.requests", field, i, c.Name)
	})
}

// defaulted returns requests with each resource that only has a limit set to
// that limit, without changing either list.
func defaulted(requests, limits corev1.ResourceList) corev1.ResourceList {
	missing := false
	for name := range limits {
		if _, ok := requests[name]; !ok {
			missing = true
			break
		}
	}
	if !missing {
		return requests
	}
	out := make(corev1.ResourceList, len(requests)+len(limits))
	for name, q := range limits {
		out[name] = q
	}
	for name, q := range requests {
		out[name] = q
	}
	return out
}

// vectorOf sums a resource list; field names the list in an error, and is
// only called then.
func vectorOf(list corev1.ResourceList, field func() string) (Vector, error) {
	var v Vector
	negative, within := false, true
	// Nearly every list is cpu and memory: looking them up costs less than
	// iterating over the map, which only the other resources need.
	found := 0
	if q, ok := list[corev1.ResourceCPU]; ok {
		var in bool
		v.slots[SlotCPU], in = boundedValue(corev1.ResourceCPU, q)
		negative, within, found = q.Sign() < 0, in, 1
	}
	if q, ok := list[corev1.ResourceMemory]; ok {
		var in bool
		v.slots[SlotMemory], in = boundedValue(corev1.ResourceMemory, q)
		negative, within, found = negative || q.Sign() < 0, within && in, found+1
	}
	if found < len(list) {
		for name, q := range list {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
				amount, in := boundedValue(name, q)
				negative, within = negative || q.Sign() < 0, within && in
				v = v.With(name, amount)
			}
		}
	}
	if !negative && within {
		return v, nil
	}
	// The first negative quantity by name, so that the error is stable.
	names := make([]corev1.ResourceName, 0, len(list))
	for name := range list {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		q := list[name]
		if q.Sign() < 0 {
			return Vector{}, fmt.Errorf("%s.%s: negative quantity %s", field(), name, quantityText(q))
		}
		if _, in := boundedValue(name, q); !in {
			unit := "units"
			if name == corev1.ResourceCPU {
				unit = "millicores"
			}
			return Vector{}, fmt.Errorf("%s.%s: quantity %s is more than karpsim reads (2^53 %s)", field(), name, quantityText(q), unit)
		}
	}
	return v, nil
}

// quantityText prints a quantity for a message. apimachinery prints some
// amounts past its largest suffix wrongly (1000000000000000000000 as "1"):
// those are printed from their approximate value (six digits) instead.
func quantityText(q resource.Quantity) string {
	text := q.String()
	if printed, err := resource.ParseQuantity(text); err == nil && printed.AsApproximateFloat64() == q.AsApproximateFloat64() {
		return text
	}
	return strconv.FormatFloat(q.AsApproximateFloat64(), 'g', 6, 64)
}

// fieldName is a constant field name for vectorOf.
func fieldName(name string) func() string { return func() string { return name } }

// isPodLevelResource reports whether Kubernetes lets spec.resources set the
// resource for the whole pod.
func isPodLevelResource(name corev1.ResourceName) bool {
	return name == corev1.ResourceCPU || name == corev1.ResourceMemory ||
		strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// MaxQuantityExponent bounds the decimal exponent of a quantity read from
// untrusted text: apimachinery takes time quadratic in the exponent to
// round "1e-99999999" (a minute), and no real amount needs more than this.
const MaxQuantityExponent = 30

// maxQuantityMagnitude is the first amount MaxQuantityExponent cannot
// write with one digit.
const maxQuantityMagnitude = 1e31

// maxQuantityText bounds the length of a quantity read from untrusted text.
const maxQuantityText = 64

// ParseQuantity parses a quantity string, naming the field in the error.
// It is for untrusted text: overlong strings and exponents beyond
// ±MaxQuantityExponent are refused before apimachinery sees them.
func ParseQuantity(field, s string) (resource.Quantity, error) {
	if len(s) > maxQuantityText {
		return resource.Quantity{}, fmt.Errorf("%s: %.20q… is too long for a quantity", field, s)
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 && i+1 < len(s) && s[i+1] != 'i' {
		exponent, err := strconv.Atoi(s[i+1:])
		if err != nil || exponent > MaxQuantityExponent || exponent < -MaxQuantityExponent {
			return resource.Quantity{}, fmt.Errorf("%s: %q is not a quantity with an exponent from -%d to %d", field, s, MaxQuantityExponent, MaxQuantityExponent)
		}
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, fmt.Errorf("%s: %q is not a quantity (e.g. 500m, 2, 1Gi)", field, s)
	}
	// Digits can write what the exponent may not: a quantity whose
	// canonical form would need an exponent past the bound is refused too,
	// so that whatever is read can be written back and read again.
	if math.Abs(q.AsApproximateFloat64()) >= maxQuantityMagnitude {
		return resource.Quantity{}, fmt.Errorf("%s: %q is not a quantity below 1e%d", field, s, MaxQuantityExponent+1)
	}
	return q, nil
}

// BoundRequests is what a pod already running counts for on its node: its
// requests, or, when they cannot be read, one pod slot and nothing else,
// with the error saying why. A running pod takes its slot whatever its
// manifest says; callers that can warn about the rest do.
func BoundRequests(pod *corev1.Pod) (Vector, error) {
	r, err := PodRequests(pod)
	if err != nil {
		return New(0, 0, 1), err
	}
	return r, nil
}
