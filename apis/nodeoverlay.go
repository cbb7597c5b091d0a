package apis

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KindNodeOverlay and GroupV1Alpha1 name Karpenter's NodeOverlay, alpha
// since Karpenter v1.7.0 behind the NodeOverlay feature gate.
const (
	KindNodeOverlay = "NodeOverlay"
	GroupV1Alpha1   = Group + "/v1alpha1"
)

// NodeOverlay is a karpenter.sh/v1alpha1 NodeOverlay: it changes what
// Karpenter's scheduling simulation believes about the instance types its
// requirements select, their price or the extended resources they offer,
// without changing the machines themselves.
type NodeOverlay struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec NodeOverlaySpec `json:"spec"`
}

// NodeOverlaySpec is what an overlay selects and what it changes.
type NodeOverlaySpec struct {
	// Requirements select the instance types and offerings the overlay
	// applies to, as a NodePool's requirements select instance types; they
	// may also name karpenter.sh/nodepool and the labels a NodePool's
	// template sets. None selects everything.
	Requirements []corev1.NodeSelectorRequirement `json:"requirements,omitempty"`
	// PriceAdjustment changes the price of the selected offerings: a signed
	// amount ("+0.10", "-0.05") or a signed percentage ("-10%", "+15%"). A
	// price that would go below 0 is 0.
	PriceAdjustment *string `json:"priceAdjustment,omitempty"`
	// Price replaces the price of the selected offerings ("5.00").
	Price *string `json:"price,omitempty"`
	// Capacity sets extended resources on the selected instance types (new
	// ones added, existing ones replaced); cpu, memory, ephemeral-storage
	// and pods may not be set.
	Capacity corev1.ResourceList `json:"capacity,omitempty"`
	// Weight orders overlapping overlays, higher first, per field; nil
	// counts as 0.
	Weight *int32 `json:"weight,omitempty"`
}

// The CRD's patterns for the two price fields, in our words: an adjustment
// is a signed amount, a positive percentage, or a decrease of less than
// 100% (or exactly 100%); a price is an unsigned decimal.
var (
	priceAdjustmentPattern = regexp.MustCompile(`^(([+-]\d*\.?\d+)|(\+\d*\.?\d+%)|(-\d{1,2}(\.\d+)?%)|(-100%))$`)
	pricePattern           = regexp.MustCompile(`^\d+(\.\d+)?$`)
)

const (
	minOverlayWeight = 1
	maxOverlayWeight = 10000
)

// MaxPricePerHour bounds every price karpsim reads, in dollars an hour: a
// million, thousands of times the dearest instance, so that costs summed
// over nodes and hours stay finite numbers (prices are floats; amounts are
// bounded by resources.MaxAmount). An overlay may at most multiply a price
// by MaxPriceIncreasePercent/100 + 1.
const (
	MaxPricePerHour         = 1e6
	MaxPriceIncreasePercent = 10000
)

// overlayRestrictedResources are the resources an overlay may not set:
// the ones every instance type already states.
var overlayRestrictedResources = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods,
}

// SetDefaults does nothing: the CRD defaults no field of a NodeOverlay. It
// exists so that NodeOverlays decode like the other Karpenter kinds.
func (in *NodeOverlay) SetDefaults() {}

// Validate checks the NodeOverlay against the rules of the karpenter.sh
// v1alpha1 CRD and Karpenter's runtime validation of overlays, except the
// label rules of a cloud: which requirement keys are restricted depends on
// the provider running, which karpsim knows from the NodePools the
// overlay applies to (ValidateLabels). It returns nil or a FieldErrors
// with every problem found.
func (in *NodeOverlay) Validate() error {
	e := &errs{}
	validateName(e, in.Name)
	reqs := make([]NodeSelectorRequirementWithMinValues, len(in.Spec.Requirements))
	for i, r := range in.Spec.Requirements {
		reqs[i] = NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: r.Operator, Values: r.Values}
	}
	// An overlay names no node class: its cloud's rules wait for the
	// NodePools (ValidateLabels).
	validateRequirements(e, "spec.requirements", reqs, false, nil)
	for i, r := range reqs {
		if r.Operator == corev1.NodeSelectorOpNotIn && len(r.Values) == 0 {
			e.add(index("spec.requirements", i)+".values", "operator NotIn needs at least one value")
		}
	}
	s := in.Spec
	if s.Price != nil && s.PriceAdjustment != nil {
		e.add("spec", "price and priceAdjustment are both set: an overlay either replaces the price or adjusts it")
	}
	if p := s.PriceAdjustment; p != nil && !priceAdjustmentPattern.MatchString(*p) {
		e.add("spec.priceAdjustment", `%q is not a price adjustment: use a signed amount ("+0.10", "-0.05") or percentage ("+15%%", "-10%%", at most -100%%)`, *p)
	}
	if p := s.Price; p != nil && !pricePattern.MatchString(*p) {
		e.add("spec.price", `%q is not a price: use an unsigned decimal such as "0.25"`, *p)
	} else if v, _ := priceValue(p); v > MaxPricePerHour {
		e.add("spec.price", "%s is more than karpsim reads ($%g an hour)", shortNumber(*p), float64(MaxPricePerHour))
	}
	if p := s.PriceAdjustment; p != nil && priceAdjustmentPattern.MatchString(*p) {
		switch v, percent := priceValue(p); {
		case percent && v > MaxPriceIncreasePercent:
			e.add("spec.priceAdjustment", "%s is more than karpsim reads (+%d%%)", shortNumber(*p), MaxPriceIncreasePercent)
		case !percent && math.Abs(v) > MaxPricePerHour:
			e.add("spec.priceAdjustment", "%s is more than karpsim reads ($%g an hour)", shortNumber(*p), float64(MaxPricePerHour))
		}
	}
	for _, name := range sortedKeys(s.Capacity) {
		path := key("spec.capacity", name)
		if slices.Contains(overlayRestrictedResources, corev1.ResourceName(name)) {
			e.add(path, "%s may not be set: an overlay only adds extended resources (hugepages-2Mi, example.com/device, ...)", name)
		} else if q := s.Capacity[corev1.ResourceName(name)]; q.Sign() < 0 {
			e.add(path, "%s is negative", q.String())
		}
	}
	if w := s.Weight; w != nil && (*w < minOverlayWeight || *w > maxOverlayWeight) {
		e.add("spec.weight", "%d is out of range (%d to %d; leave weight out to rank the overlay lowest, as 0)", *w, minOverlayWeight, maxOverlayWeight)
	}
	return e.list.asError()
}

// ValidateLabels checks the overlay's requirement keys against the label
// rules of each cloud whose NodePools it may apply to (OverlayLabelRules),
// as the running provider's Karpenter validates an overlay: a key in a
// reserved domain that is not well-known, or kubernetes.io/hostname, is
// refused; on Azure the keys the Azure provider's NodeOverlay CRD refuses
// too (as for NodePools). It returns nil or a FieldErrors with every
// problem found.
func (in *NodeOverlay) ValidateLabels(rules []*LabelRules) error {
	e := &errs{}
	for i, r := range in.Spec.Requirements {
		path := child(index("spec.requirements", i), "key")
		if r.Key == "" || len(content.IsLabelKey(r.Key)) > 0 {
			continue // Validate says why
		}
		for _, rs := range rules {
			if rs.IsRestrictedLabel(NormalizeLabel(r.Key)) {
				e.add(path, "%s", restrictedLabelMessage(r.Key, rs))
				break
			}
			if rs == AzureLabels {
				if why := azureLabelKeyProblem(r.Key); why != "" {
					e.add(path, "%s", why)
					break
				}
			}
		}
	}
	return e.list.asError()
}

// OverlayLabelRules are the label rules NodeOverlays are checked against
// (NodeOverlay.ValidateLabels): those of the clouds of the NodePools, in
// the order first seen, AWSLabels (the default cloud's) when there are no
// NodePools.
func OverlayLabelRules(pools []*NodePool) []*LabelRules {
	var out []*LabelRules
	for _, np := range pools {
		if r := np.LabelRules(); !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		out = append(out, AWSLabels)
	}
	return out
}

// priceValue reads a price or adjustment that matched its pattern: the
// number, and whether it is a percentage. Nil reads as 0.
func priceValue(p *string) (float64, bool) {
	if p == nil {
		return 0, false
	}
	percent := strings.HasSuffix(*p, "%")
	// Past float64, ParseFloat's ±Inf is past any bound too.
	v, _ := strconv.ParseFloat(strings.TrimSuffix(*p, "%"), 64)
	return v, percent
}

// shortNumber prints a number of any length in a message: its first 20
// characters and how many digits there are in all.
func shortNumber(s string) string {
	if len(s) <= 24 {
		return s
	}
	return fmt.Sprintf("%s… (%d characters)", s[:20], len(s))
}

// HasPrice reports whether the overlay changes prices.
func (in *NodeOverlay) HasPrice() bool { return in.Spec.Price != nil || in.Spec.PriceAdjustment != nil }

// PriceChange is the overlay's price field as written: its price, or its
// adjustment, or "" when it has neither.
func (in *NodeOverlay) PriceChange() string {
	switch {
	case in.Spec.Price != nil:
		return *in.Spec.Price
	case in.Spec.PriceAdjustment != nil:
		return *in.Spec.PriceAdjustment
	}
	return ""
}

// AdjustPrice applies a price change as PriceChange writes it to price: an
// unsigned value replaces it, a signed amount is added, a signed
// percentage scales it; the result is never below 0. An empty or
// unreadable change (Validate refuses those) leaves price as it is.
func AdjustPrice(price float64, change string) float64 {
	if change == "" {
		return price
	}
	if change[0] != '+' && change[0] != '-' {
		v, err := strconv.ParseFloat(change, 64)
		if err != nil {
			return price
		}
		return v
	}
	percent := strings.HasSuffix(change, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(change, "%"), 64)
	if err != nil {
		return price
	}
	out := price + v
	if percent {
		out = price * (1 + v/100)
	}
	return max(out, 0)
}

// OverlayWeight is the overlay's weight, 0 when not set.
func (in *NodeOverlay) OverlayWeight() int32 {
	if in.Spec.Weight == nil {
		return 0
	}
	return *in.Spec.Weight
}

// CompareOverlays orders overlays as Karpenter applies them: higher weight
// first, and among equal weights the name later in the alphabet first.
func CompareOverlays(a, b *NodeOverlay) int {
	return cmp.Or(cmp.Compare(b.OverlayWeight(), a.OverlayWeight()), strings.Compare(b.Name, a.Name))
}

// DeepCopy returns a copy sharing nothing with in.
func (in *NodeOverlay) DeepCopy() *NodeOverlay {
	if in == nil {
		return nil
	}
	out := &NodeOverlay{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Requirements = make([]corev1.NodeSelectorRequirement, len(in.Spec.Requirements))
	for i := range in.Spec.Requirements {
		in.Spec.Requirements[i].DeepCopyInto(&out.Spec.Requirements[i])
	}
	if in.Spec.Requirements == nil {
		out.Spec.Requirements = nil
	}
	out.Spec.PriceAdjustment = copyPtr(in.Spec.PriceAdjustment)
	out.Spec.Price = copyPtr(in.Spec.Price)
	out.Spec.Capacity = in.Spec.Capacity.DeepCopy()
	out.Spec.Weight = copyPtr(in.Spec.Weight)
	return out
}
