// Package resources holds resource amounts as compact vectors for the hot
// paths of scheduling (Fits, Add, Sub over thousands of pods and instance
// types), and computes a pod's requests with Kubernetes semantics.
//
// PodRequests is what a pod asks of a node (its containers, init containers,
// sidecars and overhead, as the kube-scheduler sums them); FromList and New
// build a Vector from a ResourceList or from cpu, memory and pods, and
// Vector.List turns one back.
//
// A Vector keeps the resources Karpenter deals with most (cpu, memory,
// ephemeral-storage, pods and the accelerators of the AWS provider) in a
// fixed array, and any other resource in a short sorted list. CPU is held in
// millicores, every other resource in whole units (bytes for memory and
// storage), rounded up as Kubernetes rounds requests.
//
// # Amounts never wrap
//
// Every amount is an int64. An amount read from a manifest or a catalog is
// at most MaxAmount (2^53) in size: a request past it is an error, a
// capacity past it is read as MaxAmount. Sums of many such amounts (a
// node's bound pods, a NodePool's nodes, a plan's claims) can still pass
// int64, so the arithmetic of a Vector (Add, Sub, Scale, and the sums
// PodRequests takes) saturates instead of wrapping: a result is held within
// ±Saturated (2^62, 512 times MaxAmount, beyond any real node or cluster),
// and an amount at ±Saturated stays there through every later Add, Sub or
// Scale (Scale by 0 excepted). A saturated amount thus means "at least
// this much, more than anything real": a node whose bound pods sum past it
// has no room left, a NodePool whose nodes do has no limit left, and Fits
// never lets a saturated amount fit, even in a saturated capacity, so that
// a saturated sum never fits where the true sum would not. The amounts
// Vector hands out (Get, CPU, Memory, Slot) are within ±Saturated, so a
// caller may add two of them in int64, or convert them to float64,
// without overflow.
package resources

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
)

// Slots of the fixed part of a Vector.
const (
	SlotCPU = iota
	SlotMemory
	SlotEphemeralStorage
	SlotPods
	SlotNVIDIAGPU
	SlotAMDGPU
	SlotAWSNeuron
	SlotAWSNeuronCore
	SlotHabanaGaudi
	SlotEFA
	SlotPodENI
	numSlots
)

var slotNames = [numSlots]corev1.ResourceName{
	SlotCPU:              corev1.ResourceCPU,
	SlotMemory:           corev1.ResourceMemory,
	SlotEphemeralStorage: corev1.ResourceEphemeralStorage,
	SlotPods:             corev1.ResourcePods,
	SlotNVIDIAGPU:        apis.ResourceNVIDIAGPU,
	SlotAMDGPU:           apis.ResourceAMDGPU,
	SlotAWSNeuron:        apis.ResourceAWSNeuron,
	SlotAWSNeuronCore:    apis.ResourceAWSNeuronCore,
	SlotHabanaGaudi:      apis.ResourceHabanaGaudi,
	SlotEFA:              apis.ResourceEFA,
	SlotPodENI:           apis.ResourceAWSPodENI,
}

// binarySlots print in binary units (Ki, Mi, Gi).
var binarySlots = [numSlots]bool{SlotMemory: true, SlotEphemeralStorage: true}

// Slot returns the fixed slot of a resource name, or false if the resource
// lives in the extra list.
func Slot(name corev1.ResourceName) (int, bool) {
	for i, n := range slotNames {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

// Extra is an amount of a resource outside the fixed slots.
type Extra struct {
	Name  corev1.ResourceName
	Value int64
}

// Vector is an amount of each resource. The zero value is empty. Vectors are
// values: operations return new vectors and never change their operands.
type Vector struct {
	slots [numSlots]int64
	extra []Extra // sorted by name, no zero values
}

// New returns a vector of cpu (millicores), memory (bytes) and pods, each
// held within ±Saturated.
func New(cpuMilli, memoryBytes, pods int64) Vector {
	var v Vector
	v.slots[SlotCPU], v.slots[SlotMemory], v.slots[SlotPods] = clamp(cpuMilli), clamp(memoryBytes), clamp(pods)
	return v
}

// FromList converts a ResourceList. Quantities are rounded up to whole
// units, cpu to whole millicores.
func FromList(list corev1.ResourceList) Vector {
	var v Vector
	for name, q := range list {
		v = v.With(name, quantityValue(name, q))
	}
	return v
}

// MaxAmount bounds every amount karpsim reads: 2^53 units, millicores for
// cpu and bytes for memory (8 PiB), orders of magnitude beyond any real
// node, so that no sum of amounts overflows int64. A request past it is an
// error (PodRequests); a node's capacity past it is read as MaxAmount.
const MaxAmount = 1 << 53

// Saturated is where the arithmetic of a Vector stops, either sign: 2^62,
// 512 times MaxAmount. See the package documentation.
const Saturated = 1 << 62

// IsSaturated reports whether an amount is at (or past) ±Saturated: a sum
// that stopped there, worth "more than anything real".
func IsSaturated(x int64) bool { return x >= Saturated || x <= -Saturated }

// clamp holds x within ±Saturated.
func clamp(x int64) int64 { return min(max(x, -Saturated), Saturated) }

// addAmounts returns a + b, saturating: an operand at ±Saturated decides
// the result, and otherwise the sum (which cannot overflow, both operands
// being within ±2^62) is held within ±Saturated.
func addAmounts(a, b int64) int64 {
	switch {
	case IsSaturated(a):
		return clamp(a)
	case IsSaturated(b):
		return clamp(b)
	}
	return clamp(a + b)
}

// subAmounts returns a - b, saturating as addAmounts does.
func subAmounts(a, b int64) int64 {
	switch {
	case IsSaturated(a):
		return clamp(a)
	case IsSaturated(b):
		return -clamp(b)
	}
	return clamp(a - b)
}

// scaleAmount returns a × n, saturating: a product past ±Saturated, or a
// saturated a scaled by any n but 0, is ±Saturated.
func scaleAmount(a, n int64) int64 {
	if a == 0 || n == 0 {
		return 0
	}
	negative := (a < 0) != (n < 0)
	if IsSaturated(a) || IsSaturated(n) || abs(a) > Saturated/abs(n) {
		if negative {
			return -Saturated
		}
		return Saturated
	}
	return a * n
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func quantityValue(name corev1.ResourceName, q resource.Quantity) int64 {
	v, _ := boundedValue(name, q)
	return v
}

func boundedValue(name corev1.ResourceName, q resource.Quantity) (int64, bool) {
	// The approximate value is cheap whatever the exponent; comparing or
	// converting a quantity like 1e99999999 exactly takes minutes.
	limit := float64(MaxAmount)
	if name == corev1.ResourceCPU {
		limit /= 1000
	}
	switch f := q.AsApproximateFloat64(); {
	case f > limit:
		return MaxAmount, false
	case f < -limit:
		return -MaxAmount, false
	}
	// Near the limit the approximation may fall either side: the exact
	// value decides.
	v := q.Value()
	if name == corev1.ResourceCPU {
		v = q.MilliValue()
	}
	switch {
	case v > MaxAmount:
		return MaxAmount, false
	case v < -MaxAmount:
		return -MaxAmount, false
	}
	return v, true
}

// Get returns the amount of a resource, 0 if absent.
func (v Vector) Get(name corev1.ResourceName) int64 {
	if i, ok := Slot(name); ok {
		return v.slots[i]
	}
	for _, e := range v.extra {
		if e.Name == name {
			return e.Value
		}
	}
	return 0
}

// CPU returns millicores.
func (v Vector) CPU() int64 { return v.slots[SlotCPU] }

// Memory returns bytes.
func (v Vector) Memory() int64 { return v.slots[SlotMemory] }

// Pods returns the pod count.
func (v Vector) Pods() int64 { return v.slots[SlotPods] }

// Slot returns the amount in a fixed slot.
func (v Vector) Slot(i int) int64 { return v.slots[i] }

// With returns v with the amount of one resource set, held within
// ±Saturated.
func (v Vector) With(name corev1.ResourceName, value int64) Vector {
	value = clamp(value)
	if i, ok := Slot(name); ok {
		v.slots[i] = value
		return v
	}
	extra := slices.Clone(v.extra)
	i, found := slices.BinarySearchFunc(extra, name, func(e Extra, n corev1.ResourceName) int {
		return strings.Compare(string(e.Name), string(n))
	})
	switch {
	case found && value == 0:
		extra = slices.Delete(extra, i, i+1)
	case found:
		extra[i].Value = value
	case value != 0:
		extra = slices.Insert(extra, i, Extra{Name: name, Value: value})
	}
	v.extra = extra
	if len(v.extra) == 0 {
		v.extra = nil
	}
	return v
}

// Add returns v + o, saturating (see the package documentation).
func (v Vector) Add(o Vector) Vector {
	for i := range v.slots {
		v.slots[i] = addAmounts(v.slots[i], o.slots[i])
	}
	if len(o.extra) > 0 {
		v.extra = mergeExtra(v.extra, o.extra, addAmounts)
	}
	return v
}

// Sub returns v - o, saturating; amounts may go negative.
func (v Vector) Sub(o Vector) Vector {
	for i := range v.slots {
		v.slots[i] = subAmounts(v.slots[i], o.slots[i])
	}
	if len(o.extra) > 0 {
		v.extra = mergeExtra(v.extra, o.extra, subAmounts)
	}
	return v
}

// Scale returns v × n, saturating.
func (v Vector) Scale(n int64) Vector {
	for i := range v.slots {
		v.slots[i] = scaleAmount(v.slots[i], n)
	}
	if len(v.extra) > 0 {
		extra := make([]Extra, 0, len(v.extra))
		for _, e := range v.extra {
			if x := scaleAmount(e.Value, n); x != 0 {
				extra = append(extra, Extra{Name: e.Name, Value: x})
			}
		}
		v.extra = extra
		if len(extra) == 0 {
			v.extra = nil
		}
	}
	return v
}

// Saturated returns the resources whose amount in v is at ±Saturated
// (a sum that stopped there), sorted by name.
func (v Vector) Saturated() []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, name := range v.Names() {
		if IsSaturated(v.Get(name)) {
			out = append(out, name)
		}
	}
	return out
}

// Max returns the per-resource maximum of v and o.
func (v Vector) Max(o Vector) Vector {
	for i := range v.slots {
		v.slots[i] = max(v.slots[i], o.slots[i])
	}
	for _, e := range o.extra {
		if e.Value > v.Get(e.Name) {
			v = v.With(e.Name, e.Value)
		}
	}
	return v
}

// Min returns the per-resource minimum of v and o; a resource absent from
// either counts as 0.
func (v Vector) Min(o Vector) Vector {
	for i := range v.slots {
		v.slots[i] = min(v.slots[i], o.slots[i])
	}
	out := v
	out.extra = nil
	for _, e := range v.extra {
		if m := min(e.Value, o.Get(e.Name)); m != 0 {
			out = out.With(e.Name, m)
		}
	}
	for _, e := range o.extra {
		if m := min(e.Value, v.Get(e.Name)); m < 0 {
			out = out.With(e.Name, m)
		}
	}
	return out
}

// Fits reports whether v fits in capacity: every amount of v is at most the
// same resource's amount in capacity (an absent resource has 0). An amount
// of v at Saturated fits nothing: its true value is unknown past 2^62.
func (v Vector) Fits(capacity Vector) bool {
	for i := range v.slots {
		if v.slots[i] > min(capacity.slots[i], Saturated-1) {
			return false
		}
	}
	if len(v.extra) == 0 {
		return true
	}
	return extraFits(v.extra, capacity.extra)
}

func extraFits(want, have []Extra) bool {
	j := 0
	for _, e := range want {
		for j < len(have) && have[j].Name < e.Name {
			j++
		}
		available := int64(0)
		if j < len(have) && have[j].Name == e.Name {
			available = have[j].Value
		}
		if e.Value > min(available, Saturated-1) {
			return false
		}
	}
	return true
}

// Exceeding returns the resources whose amount in v exceeds the same
// resource in capacity, sorted by name. It explains a false Fits.
func (v Vector) Exceeding(capacity Vector) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, name := range v.Names() {
		if v.Get(name) > min(capacity.Get(name), Saturated-1) {
			out = append(out, name)
		}
	}
	return out
}

// Equal reports whether v and o hold the same amount of every resource.
func (v Vector) Equal(o Vector) bool {
	return v.slots == o.slots && slices.Equal(v.extra, o.extra)
}

// IsZero reports whether every amount is 0.
func (v Vector) IsZero() bool {
	return v.slots == [numSlots]int64{} && len(v.extra) == 0
}

// HasNegative reports whether some amount is below 0.
func (v Vector) HasNegative() bool {
	for _, x := range v.slots {
		if x < 0 {
			return true
		}
	}
	return slices.ContainsFunc(v.extra, func(e Extra) bool { return e.Value < 0 })
}

// Names returns the names of the resources with a non-zero amount, sorted.
func (v Vector) Names() []corev1.ResourceName {
	n := len(v.extra)
	for _, x := range v.slots {
		if x != 0 {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	names := make([]corev1.ResourceName, 0, n)
	for i, x := range v.slots {
		if x != 0 {
			names = append(names, slotNames[i])
		}
	}
	for _, e := range v.extra {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return names
}

// Quantity returns the amount of a resource as a Kubernetes quantity in its
// canonical form: cpu in cores or millicores, memory and storage in binary
// units, the rest as plain numbers.
func (v Vector) Quantity(name corev1.ResourceName) resource.Quantity {
	value := v.Get(name)
	if i, ok := Slot(name); ok {
		switch {
		case i == SlotCPU:
			return *resource.NewMilliQuantity(value, resource.DecimalSI)
		case binarySlots[i]:
			return *resource.NewQuantity(value, resource.BinarySI)
		}
	}
	if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
		return *resource.NewQuantity(value, resource.BinarySI)
	}
	return *resource.NewQuantity(value, resource.DecimalSI)
}

// List converts v to a ResourceList of its non-zero amounts.
func (v Vector) List() corev1.ResourceList {
	list := corev1.ResourceList{}
	for _, name := range v.Names() {
		list[name] = v.Quantity(name)
	}
	return list
}

// Strings returns each non-zero amount as a quantity string, keyed by name.
func (v Vector) Strings() map[string]string {
	out := map[string]string{}
	for i, x := range v.slots {
		if x != 0 {
			q := v.Quantity(slotNames[i])
			out[string(slotNames[i])] = q.String()
		}
	}
	for _, e := range v.extra {
		q := v.Quantity(e.Name)
		out[string(e.Name)] = q.String()
	}
	return out
}

// AppendKey appends a compact exact encoding of v to b: two vectors give
// the same key exactly when they are equal. It is for map keys, not for
// people (see String).
func (v Vector) AppendKey(b []byte) []byte {
	for i, x := range v.slots {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, x, 10)
	}
	for _, e := range v.extra {
		b = append(b, ',')
		b = append(b, e.Name...)
		b = append(b, '=')
		b = strconv.AppendInt(b, e.Value, 10)
	}
	return b
}

// String prints the non-zero amounts sorted by name, e.g.
// `{"cpu":"940m","memory":"1392Mi","pods":"8"}`.
func (v Vector) String() string {
	names := v.Names()
	parts := make([]string, len(names))
	for i, name := range names {
		q := v.Quantity(name)
		parts[i] = fmt.Sprintf("%q:%q", name, q.String())
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// mergeExtra returns op(a, b) over the extra lists (op is addAmounts or
// subAmounts), dropping zeros.
func mergeExtra(a, b []Extra, op func(x, y int64) int64) []Extra {
	out := make([]Extra, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].Name < b[j].Name):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].Name < a[i].Name:
			if x := op(0, b[j].Value); x != 0 {
				out = append(out, Extra{Name: b[j].Name, Value: x})
			}
			j++
		default:
			if sum := op(a[i].Value, b[j].Value); sum != 0 {
				out = append(out, Extra{Name: a[i].Name, Value: sum})
			}
			i++
			j++
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Raise sets each amount of v to the larger of it and o's, in place: Max
// without copying the vectors, for hot loops.
func (v *Vector) Raise(o *Vector) {
	for i := range v.slots {
		if o.slots[i] > v.slots[i] {
			v.slots[i] = o.slots[i]
		}
	}
	for _, e := range o.extra {
		if e.Value > v.Get(e.Name) {
			*v = v.With(e.Name, e.Value)
		}
	}
}

// Slots are a vector's fixed slots: comparable, for map keys. Vectors with
// the same slots are equal unless their other resources differ (Equal).
type Slots [numSlots]int64

// Slots returns the vector's fixed slots.
func (v Vector) Slots() Slots { return v.slots }
