package instancetypes

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// offeringLabels are the labels whose values come from a type's offerings,
// not from its labels.
var offeringLabels = []string{
	apis.LabelCapacityReservationID,
	apis.LabelCapacityReservationType,
	apis.LabelCapacityReservationInterruptible,
	apis.LabelCapacityType,
	apis.LabelTopologyZone,
}

// impliedAbsent are the well-known labels of rules that are DoesNotExist on
// a type that does not set them. The exceptions are the labels that come
// from offerings, the NodePool label (Karpenter sets it, not the type) and
// the zone ID (known only from the EC2NodeClass's subnets). This is what
// the AWS provider's computeRequirements does: it states every well-known
// label, with DoesNotExist when the type lacks it; the Azure provider does
// the same with its own. The placement group labels are exceptions too: the
// AWS provider states them only of the types of an EC2NodeClass that
// selects a placement group, and leaves them undefined otherwise. Shared,
// read-only.
func impliedAbsent(rules *apis.LabelRules) []string {
	if cached, ok := impliedAbsentCache.Load(rules); ok {
		return cached.([]string)
	}
	except := append([]string{apis.LabelNodePool, apis.LabelTopologyZoneID, apis.LabelPlacementGroupID, apis.LabelPlacementGroupPartition}, offeringLabels...)
	keys := slices.DeleteFunc(rules.WellKnownLabels(), func(key string) bool { return slices.Contains(except, key) })
	cached, _ := impliedAbsentCache.LoadOrStore(rules, keys)
	return cached.([]string)
}

// impliedAbsentCache holds impliedAbsent by rules; there are a few.
var impliedAbsentCache sync.Map

// buildRequirements is the one place instance-type requirements come from,
// for every catalog: the AWS model, the synthetic catalogs and the JSON
// reader all call it, so a catalog written and read back is identical.
//
// The requirements are: an In requirement per label (the instance-type label
// is set to name); DoesNotExist for each absent key and for every well-known
// label in impliedAbsent that labels lack; zone and capacity type In the
// values of all the offerings, available or not (as the AWS provider does:
// an offering that is out of capacity or has no price is unavailable, but
// its zone is still the type's); the capacity reservation ID In the IDs of
// the reserved offerings; and, when there are none, DoesNotExist for the
// reservation ID and type. A label choice is In its values, and the
// offerings' own label In the values of all of them; the well-known labels
// in undefined are left out. offerings and choices must be validated
// already.
func buildRequirements(rules *apis.LabelRules, name string, labels map[string]string, absent, undefined []string, choices map[string][]string, offerings []Offering) (requirements.Requirements, error) {
	if err := checkLabels(name, labels, absent); err != nil {
		return requirements.Requirements{}, err
	}
	for _, key := range sortedKeys(choices) {
		if _, ok := labels[key]; ok || slices.Contains(absent, key) {
			return requirements.Requirements{}, fmt.Errorf("labelChoices: %s is also a label or an absent label", key)
		}
	}
	fromOfferings := ""
	if len(offerings) > 0 {
		fromOfferings = offerings[0].Label.Key
	}
	if key := fromOfferings; key != "" {
		_, labelled := labels[key]
		_, chosen := choices[key]
		if labelled || chosen || slices.Contains(absent, key) || slices.Contains(undefined, key) {
			return requirements.Requirements{}, fmt.Errorf("offerings: label %s is also a label, a label choice, an absent or an undefined label of the type", key)
		}
	}
	implied := impliedAbsent(rules)
	for _, key := range undefined {
		_, labelled := labels[key]
		_, chosen := choices[key]
		switch {
		case !slices.Contains(implied, key):
			return requirements.Requirements{}, fmt.Errorf("undefinedLabels: %s is not a well-known label a type may leave undefined", key)
		case labelled || chosen || slices.Contains(absent, key):
			return requirements.Requirements{}, fmt.Errorf("undefinedLabels: %s is also a label, a label choice or an absent label", key)
		}
	}
	items := make([]requirements.Requirement, 0, len(labels)+len(absent)+len(choices)+len(implied)+len(offeringLabels)+1)
	items = append(items, in(apis.LabelInstanceType, name))
	for key, value := range labels {
		if key != apis.LabelInstanceType {
			items = append(items, in(key, value))
		}
	}
	for key, values := range choices {
		items = append(items, in(key, values...))
	}
	for _, key := range absent {
		items = append(items, doesNotExist(key))
	}
	for _, key := range implied {
		_, chosen := choices[key]
		offered := key == fromOfferings
		if _, ok := labels[key]; !ok && !chosen && !offered && key != apis.LabelInstanceType && !slices.Contains(absent, key) && !slices.Contains(undefined, key) {
			items = append(items, doesNotExist(key))
		}
	}
	items = append(items, offeringRequirements(rules, offerings)...)
	return requirements.NewRequirements(items...), nil
}

// offeringRequirements are the type-level requirements its offerings imply.
// A type of a cloud whose provider registers no capacity reservation labels
// (rules) and that has no reserved offering states none.
func offeringRequirements(rules *apis.LabelRules, offerings []Offering) []requirements.Requirement {
	var zones, kinds, reservations, reservationTypes, interruptible []string
	typeUnknown := false
	for _, o := range offerings {
		zones = append(zones, o.Zone)
		kinds = append(kinds, o.CapacityType)
		if o.ReservationID != "" {
			reservations = append(reservations, o.ReservationID)
			reservationTypes = append(reservationTypes, o.ReservationType)
			interruptible = append(interruptible, strconv.FormatBool(o.Interruptible))
			typeUnknown = typeUnknown || o.ReservationType == ""
		}
	}
	out := []requirements.Requirement{
		in(apis.LabelTopologyZone, zones...),
		in(apis.LabelCapacityType, kinds...),
	}
	reservable := len(reservations) > 0 || rules.IsWellKnown(apis.LabelCapacityReservationID)
	if reservable {
		out = append(out, in(apis.LabelCapacityReservationID, reservations...))
	}
	if len(reservations) > 0 || rules.IsWellKnown(apis.LabelCapacityReservationInterruptible) {
		out = append(out, in(apis.LabelCapacityReservationInterruptible, interruptible...))
	}
	// Labels of the offerings are In the values of all of them, as zones.
	if len(offerings) > 0 && offerings[0].Label.Key != "" {
		values := make([]string, 0, len(offerings))
		for _, o := range offerings {
			values = append(values, o.Label.Value)
		}
		out = append(out, in(offerings[0].Label.Key, values...))
	}
	// A reserved offering that does not say its reservation type (a
	// catalog written before types were modelled) leaves the type open.
	if !typeUnknown && reservable {
		out = append(out, in(apis.LabelCapacityReservationType, reservationTypes...))
	}
	return out
}

// labelChoices validates Spec.LabelChoices and returns a copy, nil when
// there are none.
func labelChoices(m map[string][]string) (map[string][]string, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string][]string, len(m))
	for _, key := range sortedKeys(m) {
		if err := checkLabelKey(key); err != nil {
			return nil, fmt.Errorf("labelChoices: %w", err)
		}
		if key == apis.LabelInstanceType {
			return nil, fmt.Errorf("labelChoices: %s is always the name", key)
		}
		values := m[key]
		if len(values) == 0 {
			return nil, fmt.Errorf("labelChoices: %s: no values", key)
		}
		for i, v := range values {
			if !isLabelValue(v) || v == "" {
				return nil, fmt.Errorf("labelChoices: %s: %q is not a valid label value", key, v)
			}
			if slices.Contains(values[:i], v) {
				return nil, fmt.Errorf("labelChoices: %s: %q is listed twice", key, v)
			}
		}
		out[key] = slices.Clone(values)
	}
	return out, nil
}

// LaunchLabelChoice is the value a node launched for the requirements
// gets for a label the type offers a choice of: the first of the type's
// values that reqs allow, as the AWS provider picks default tenancy when a
// NodeClaim allows both. ok is false when the type has no choice for key or
// reqs allow none of its values.
func (it *InstanceType) LaunchLabelChoice(key string, reqs requirements.Requirements) (string, bool) {
	for _, v := range it.LabelChoices[key] {
		if r, ok := reqs.Lookup(key); !ok || r.Has(v) {
			return v, true
		}
	}
	return "", false
}

// checkLabels refuses labels a node could not carry or that would make the
// requirements ambiguous, naming the label.
func checkLabels(name string, labels map[string]string, absent []string) error {
	if !isLabelValue(name) {
		return fmt.Errorf("name %q is not a valid label value: %s", name, strings.Join(validation.IsValidLabelValue(name), "; "))
	}
	for _, key := range sortedKeys(labels) {
		if err := checkLabelKey(key); err != nil {
			return fmt.Errorf("labels: %w", err)
		}
		value := labels[key]
		if !isLabelValue(value) {
			return fmt.Errorf("labels: %s: %q is not a valid label value: %s", key, value, strings.Join(validation.IsValidLabelValue(value), "; "))
		}
		if key == apis.LabelInstanceType && value != name {
			return fmt.Errorf("labels: %s: %q differs from the name %q", key, value, name)
		}
		if slices.Contains(absent, key) {
			return fmt.Errorf("absentLabels: %s is also a label", key)
		}
	}
	for _, key := range absent {
		if err := checkLabelKey(key); err != nil {
			return fmt.Errorf("absentLabels: %w", err)
		}
		if key == apis.LabelInstanceType {
			return fmt.Errorf("absentLabels: %s is always the name", key)
		}
	}
	return nil
}

func checkLabelKey(key string) error {
	if slices.Contains(offeringLabels, key) {
		return fmt.Errorf("%s comes from the offerings, not from labels", key)
	}
	if apis.IsWellKnownLabel(key) {
		return nil // valid, and spares the regular expression on the hot path
	}
	if _, ok := validKeys.Load(key); ok {
		return nil
	}
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return fmt.Errorf("%q is not a valid label key: %s", key, strings.Join(errs, "; "))
	}
	if normalized := apis.NormalizeLabel(key); normalized != key {
		return fmt.Errorf("%s is deprecated: use %s", key, normalized)
	}
	if validKeyCount.Load() < maxValidKeys {
		if _, loaded := validKeys.LoadOrStore(key, struct{}{}); !loaded {
			validKeyCount.Add(1)
		}
	}
	return nil
}

// validKeys remembers label keys checkLabelKey found valid that are not
// well known (a provider's own labels, such as Azure's
// karpenter.azure.com/sku-*), so that a catalog of hundreds of types checks
// each key once instead of once a type; at most maxValidKeys of them, so
// that a long-running process reading catalogs of ever new keys holds a
// bounded set.
var (
	validKeys     sync.Map
	validKeyCount atomic.Int64
)

const maxValidKeys = 4096

// isLabelValue is validation.IsValidLabelValue without a regular
// expression: at most 63 characters of [A-Za-z0-9-_.], beginning and ending
// with a letter or digit, or empty.
func isLabelValue(value string) bool {
	if len(value) > validation.LabelValueMaxLength {
		return false
	}
	for i := 0; i < len(value); i++ {
		c := value[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && ((c != '-' && c != '_' && c != '.') || i == 0 || i == len(value)-1) {
			return false
		}
	}
	return true
}

// labelsOf splits a built type's requirements back into the labels, absent
// keys and undefined well-known labels buildRequirements would rebuild them
// from. A requirement that labels cannot state (several values, NotIn,
// Exists) is an error: it can only come from changing Requirements after
// the type was built.
func labelsOf(it *InstanceType) (map[string]string, []string, []string, error) {
	labels := map[string]string{}
	var absent, undefined []string
	fromOfferings := ""
	if len(it.Offerings) > 0 {
		fromOfferings = it.Offerings[0].Label.Key
	}
	// A type built by hand, without requirements, leaves nothing undefined.
	implied := impliedAbsent(it.LabelRules())
	for _, key := range implied {
		_, chosen := it.LabelChoices[key]
		offered := key == fromOfferings
		if _, stated := it.Requirements.Lookup(key); it.built && !stated && !chosen && !offered && key != apis.LabelInstanceType {
			undefined = append(undefined, key)
		}
	}
	for _, req := range it.Requirements.Items() {
		key := req.Key()
		offered := key == fromOfferings && key != ""
		if _, chosen := it.LabelChoices[key]; chosen || offered || slices.Contains(offeringLabels, key) {
			continue
		}
		values := req.Values()
		switch op := req.Operator(); {
		case op == corev1.NodeSelectorOpIn && len(values) == 1:
			labels[key] = values[0]
		case op == corev1.NodeSelectorOpDoesNotExist:
			if !slices.Contains(implied, key) {
				absent = append(absent, key)
			}
		default:
			return nil, nil, nil, fmt.Errorf("requirement %s is not a label: was Requirements changed after the type was built?", req)
		}
	}
	return labels, absent, undefined, nil
}

// in is an In requirement on key, or DoesNotExist when there are no values,
// as upstream's NewRequirement treats an empty In.
func in(key string, values ...string) requirements.Requirement {
	if len(values) == 0 {
		return doesNotExist(key)
	}
	// In with at least one value is always a valid requirement.
	return requirements.In(key, values...)
}

func doesNotExist(key string) requirements.Requirement {
	return requirements.DoesNotExist(key)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}
