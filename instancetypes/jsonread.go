package instancetypes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
)

// member is one member of a JSON object.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers splits the JSON object raw into its members in document
// order. A repeated key is an error naming field.
func objectMembers(field string, raw json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		if field == "" {
			return nil, fmt.Errorf("want an object, got %s", jsonKindOf(raw))
		}
		return nil, fmt.Errorf("%s: want an object, got %s", field, jsonKindOf(raw))
	}
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path(field, "?"), err)
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("%s: %w", path(field, key), err)
		}
		if slices.ContainsFunc(members, func(m member) bool { return m.key == key }) {
			return nil, fmt.Errorf("%s: repeated", path(field, key))
		}
		members = append(members, member{key, value})
	}
	return members, nil
}

// knownMembers is objectMembers that also refuses keys outside allowed.
func knownMembers(field string, raw json.RawMessage, allowed ...string) ([]member, error) {
	members, err := objectMembers(field, raw)
	if err != nil {
		return nil, err
	}
	return members, checkKnown(field, members, allowed)
}

func checkKnown(field string, members []member, allowed []string) error {
	for _, m := range members {
		if !slices.Contains(allowed, m.key) {
			return fmt.Errorf("%s: unknown field (want one of %s)", path(field, m.key), strings.Join(allowed, ", "))
		}
	}
	return nil
}

// path names the member key of the object at field.
func path(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

// decodeValue unmarshals raw into out, saying what was wanted and found.
func decodeValue(field string, raw json.RawMessage, out any, want string) error {
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: want %s, got %s", field, want, jsonKindOf(raw))
	}
	return nil
}

// stringMap reads an object of strings.
func stringMap(field string, raw json.RawMessage) (map[string]string, error) {
	members, err := objectMembers(field, raw)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(members))
	for _, m := range members {
		var s string
		if err := decodeValue(field+"."+m.key, m.value, &s, "a string"); err != nil {
			return nil, err
		}
		out[m.key] = s
	}
	return out, nil
}

func quantityMap(field string, raw json.RawMessage, negativeOK bool) (resources.Vector, error) {
	m, err := stringMap(field, raw)
	if err != nil {
		return resources.Vector{}, err
	}
	return quantities(field, m, negativeOK)
}

var instanceTypeFields = []string{"name", "labels", "absentLabels", "undefinedLabels", "labelChoices", "labelDomain", "volumeAttachmentLimits", "capacity", "overhead", "allocatable", "offerings"}

// readInstanceType reads one element of the array. It returns the type's
// name whenever it could read it, for the error message.
func readInstanceType(raw json.RawMessage) (*InstanceType, string, error) {
	members, err := objectMembers("", raw)
	if err != nil {
		return nil, "", err
	}
	var spec Spec
	var allocatable *resources.Vector
	for _, m := range members {
		if m.key == "name" {
			if err := decodeValue("name", m.value, &spec.Name, "a string"); err != nil {
				return nil, "", err
			}
		}
	}
	if spec.Name == "" {
		return nil, "", fmt.Errorf("name: missing")
	}
	if err := checkKnown("", members, instanceTypeFields); err != nil {
		return nil, spec.Name, err
	}
	for _, m := range members {
		if err := readTypeMember(&spec, &allocatable, m); err != nil {
			return nil, spec.Name, err
		}
	}
	it, err := newInstanceType(spec)
	if err != nil {
		return nil, spec.Name, err
	}
	if allocatable != nil {
		if diff := diffAmounts(*allocatable, it.Allocatable()); diff != "" {
			return nil, spec.Name, fmt.Errorf("allocatable: not capacity less overhead: %s", diff)
		}
	}
	return it, spec.Name, nil
}

func readTypeMember(spec *Spec, allocatable **resources.Vector, m member) error {
	var err error
	switch m.key {
	case "labels":
		spec.Labels, err = stringMap("labels", m.value)
	case "absentLabels":
		err = decodeValue("absentLabels", m.value, &spec.AbsentLabels, "an array of strings")
	case "undefinedLabels":
		err = decodeValue("undefinedLabels", m.value, &spec.UndefinedLabels, "an array of strings")
	case "labelChoices":
		err = decodeValue("labelChoices", m.value, &spec.LabelChoices, "an object of string arrays")
	case "labelDomain":
		var domain string
		if err = decodeValue("labelDomain", m.value, &domain, "a string"); err == nil {
			var ok bool
			if spec.LabelRules, ok = apis.LabelRulesByDomain(domain); !ok {
				err = fmt.Errorf("labelDomain: %q is the label domain of no cloud provider karpsim models (%s or %s)", domain, apis.AWSLabels.Domain(), apis.AzureLabels.Domain())
			}
		}
	case "volumeAttachmentLimits":
		spec.VolumeAttachmentLimits, err = readVolumeLimits(m.value)
	case "capacity":
		spec.Capacity, err = quantityMap("capacity", m.value, false)
	case "overhead":
		spec.Overhead, err = readOverhead(m.value)
	case "allocatable":
		var v resources.Vector
		v, err = quantityMap("allocatable", m.value, true)
		*allocatable = &v
	case "offerings":
		spec.Offerings, err = readOfferings(m.value)
	}
	return err
}

// readVolumeLimits reads an object of driver names to volume counts:
// non-negative integers (newInstanceType refuses negative ones, naming the
// driver), a repeated driver refused.
func readVolumeLimits(raw json.RawMessage) (map[string]int, error) {
	members, err := objectMembers("volumeAttachmentLimits", raw)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(members))
	for _, m := range members {
		var n int
		if err := decodeValue(path("volumeAttachmentLimits", m.key), m.value, &n, "an integer"); err != nil {
			return nil, err
		}
		out[m.key] = n
	}
	return out, nil
}

func readOverhead(raw json.RawMessage) (Overhead, error) {
	members, err := knownMembers("overhead", raw, "kubeReserved", "systemReserved", "evictionThreshold")
	if err != nil {
		return Overhead{}, err
	}
	var o Overhead
	for _, m := range members {
		v, err := quantityMap("overhead."+m.key, m.value, false)
		if err != nil {
			return Overhead{}, err
		}
		switch m.key {
		case "kubeReserved":
			o.KubeReserved = v
		case "systemReserved":
			o.SystemReserved = v
		case "evictionThreshold":
			o.EvictionThreshold = v
		}
	}
	return o, nil
}

var offeringFields = []string{"zone", "capacityType", "price", "available", "reservationID", "reservationCapacity", "reservationType", "interruptible", "labels", "preference"}

func readOfferings(raw json.RawMessage) ([]Offering, error) {
	var elems []json.RawMessage
	if err := decodeValue("offerings", raw, &elems, "an array"); err != nil {
		return nil, err
	}
	out := make([]Offering, len(elems))
	for i, elem := range elems {
		field := fmt.Sprintf("offerings[%d]", i)
		members, err := knownMembers(field, elem, offeringFields...)
		if err != nil {
			return nil, err
		}
		for _, required := range offeringFields[:4] {
			if !slices.ContainsFunc(members, func(m member) bool { return m.key == required }) {
				return nil, fmt.Errorf("%s.%s: missing", field, required)
			}
		}
		for _, m := range members {
			if err := readOfferingMember(&out[i], field+"."+m.key, m); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func readOfferingMember(o *Offering, field string, m member) error {
	switch m.key {
	case "zone":
		return decodeValue(field, m.value, &o.Zone, "a string")
	case "capacityType":
		return decodeValue(field, m.value, &o.CapacityType, "a string")
	case "price":
		return decodeValue(field, m.value, &o.Price, "a number")
	case "available":
		return decodeValue(field, m.value, &o.Available, "true or false")
	case "reservationID":
		return decodeValue(field, m.value, &o.ReservationID, "a string")
	case "reservationCapacity":
		return decodeValue(field, m.value, &o.ReservationCapacity, "an integer")
	case "reservationType":
		return decodeValue(field, m.value, &o.ReservationType, "a string")
	case "interruptible":
		return decodeValue(field, m.value, &o.Interruptible, "true or false")
	case "labels":
		labels, err := stringMap(field, m.value)
		if err != nil {
			return err
		}
		if len(labels) > 1 {
			return fmt.Errorf("%s: %d labels, an offering has at most one", field, len(labels))
		}
		for k, v := range labels {
			o.Label = OfferingLabel{Key: k, Value: v}
		}
		return nil
	case "preference":
		return decodeValue(field, m.value, &o.Preference, "an integer")
	}
	return nil
}

// diffAmounts lists the resources whose amounts differ, "" if none.
func diffAmounts(got, want resources.Vector) string {
	names := slices.Concat(got.Names(), want.Names())
	slices.Sort(names)
	var diffs []string
	for _, name := range slices.Compact(names) {
		if got.Get(name) != want.Get(name) {
			g, w := got.Quantity(name), want.Quantity(name)
			diffs = append(diffs, fmt.Sprintf("%s is %s, want %s", name, g.String(), w.String()))
		}
	}
	return strings.Join(diffs, ", ")
}

func resourceName(name string) corev1.ResourceName { return corev1.ResourceName(name) }
