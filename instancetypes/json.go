package instancetypes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
)

// The JSON catalog format is an array of instance types, e.g. (shortened)
//
//	[
//	  {
//	    "name": "m5.large",
//	    "labels": {"kubernetes.io/arch": "amd64", "node.kubernetes.io/instance-type": "m5.large", ...},
//	    "capacity": {"cpu": "2", "ephemeral-storage": "20Gi", "memory": "7577Mi", "pods": "29"},
//	    "overhead": {
//	      "kubeReserved": {"cpu": "70m", "ephemeral-storage": "1Gi", "memory": "574Mi"},
//	      "systemReserved": {},
//	      "evictionThreshold": {"ephemeral-storage": "2Gi", "memory": "100Mi"}
//	    },
//	    "allocatable": {"cpu": "1930m", "ephemeral-storage": "17Gi", "memory": "6903Mi", "pods": "29"},
//	    "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.096, "available": true}, ...]
//	  }
//	]
//
// Labels have one value each; the zone and capacity-type labels come from
// the offerings and may not be given. Well-known labels a type lacks are
// absent (DoesNotExist) without saying so; "absentLabels" lists the other
// keys a type never has (the fake catalog's "special" on small types) and
// is left out when empty. Quantities are Kubernetes quantity strings.
// Offerings may add "reservationID", "reservationCapacity" and
// "reservationType" for capacity reservations, "labels" for the label an
// offering adds (Azure's placement scope; at most one) and "preference" to break price
// ties (lower first); "undefinedLabels" lists the well-known labels a type
// leaves undefined rather than absent. "labelChoices" lists the
// labels a launch sets to one of several values, in the order preferred
// (the AWS model's tenancy), and is left out when empty.
// "labelDomain" is the label domain of the type's cloud provider, whose
// well-known labels (InstanceType.LabelRules) the type states as absent
// when it lacks them, e.g. "karpenter.azure.com" for Azure's VM sizes; it
// is left out for the default cloud's, karpenter.k8s.aws.
// "volumeAttachmentLimits" gives how many volumes of each CSI driver a node
// of the type can attach, by driver name, e.g. {"ebs.csi.aws.com": 27},
// and is left out when empty (no driver limited). WriteJSON writes object keys sorted and two-space
// indentation, so the same catalog always gives the same bytes; ReadJSON
// accepts what it writes and what a person would write by hand.

type jsonInstanceType struct {
	Name         string            `json:"name"`
	Labels       map[string]string `json:"labels"`
	AbsentLabels []string          `json:"absentLabels,omitempty"`
	// UndefinedLabels are the well-known labels the type leaves undefined
	// (neither set nor absent).
	UndefinedLabels []string            `json:"undefinedLabels,omitempty"`
	LabelChoices    map[string][]string `json:"labelChoices,omitempty"`
	// LabelDomain is the domain of InstanceType.LabelRules, "" for the
	// default cloud's.
	LabelDomain string `json:"labelDomain,omitempty"`
	// VolumeAttachmentLimits is InstanceType.VolumeAttachmentLimits.
	VolumeAttachmentLimits map[string]int    `json:"volumeAttachmentLimits,omitempty"`
	Capacity               map[string]string `json:"capacity"`
	Overhead               jsonOverhead      `json:"overhead"`
	Allocatable            map[string]string `json:"allocatable"`
	Offerings              []jsonOffering    `json:"offerings"`
}

type jsonOverhead struct {
	KubeReserved      map[string]string `json:"kubeReserved"`
	SystemReserved    map[string]string `json:"systemReserved"`
	EvictionThreshold map[string]string `json:"evictionThreshold"`
}

type jsonOffering struct {
	Zone                string            `json:"zone"`
	CapacityType        string            `json:"capacityType"`
	Price               float64           `json:"price"`
	Available           bool              `json:"available"`
	ReservationID       string            `json:"reservationID,omitempty"`
	ReservationCapacity int               `json:"reservationCapacity,omitempty"`
	ReservationType     string            `json:"reservationType,omitempty"`
	Interruptible       bool              `json:"interruptible,omitempty"`
	Labels              map[string]string `json:"labels,omitempty"`
	Preference          int               `json:"preference,omitempty"`
}

// WriteJSON writes the catalog in the JSON catalog format. The same catalog
// always gives the same bytes. A type whose Requirements were changed after
// it was built so that labels cannot state them is an error.
func WriteJSON(w io.Writer, c Catalog) error {
	out := make([]jsonInstanceType, len(c))
	for i, it := range c {
		labels, absent, undefined, err := labelsOf(it)
		if err != nil {
			return fmt.Errorf("instanceTypes[%d] (%s): %w", i, it.Name, err)
		}
		offerings := make([]jsonOffering, len(it.Offerings))
		for j, o := range it.Offerings {
			// An overlaid catalog is written with the prices it ends up
			// with: read back, it is the catalog Karpenter schedules with.
			offerings[j] = jsonOffering{Zone: o.Zone, CapacityType: o.CapacityType, Price: o.Price, Available: o.Available,
				ReservationID: o.ReservationID, ReservationCapacity: o.ReservationCapacity, ReservationType: o.ReservationType,
				Interruptible: o.Interruptible, Labels: o.Label.asMap(), Preference: o.Preference}
		}
		domain := ""
		if rules := it.LabelRules(); rules != apis.AWSLabels {
			domain = rules.Domain()
		}
		out[i] = jsonInstanceType{
			Name:                   it.Name,
			LabelDomain:            domain,
			Labels:                 labels,
			AbsentLabels:           absent,
			UndefinedLabels:        undefined,
			LabelChoices:           it.LabelChoices,
			VolumeAttachmentLimits: it.VolumeAttachmentLimits,
			Capacity:               it.Capacity.Strings(),
			Overhead: jsonOverhead{
				KubeReserved:      it.Overhead.KubeReserved.Strings(),
				SystemReserved:    it.Overhead.SystemReserved.Strings(),
				EvictionThreshold: it.Overhead.EvictionThreshold.Strings(),
			},
			Allocatable: it.Allocatable().Strings(),
			Offerings:   offerings,
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// ErrInvalidCatalog is wrapped by the errors ReadJSON returns for input it
// refuses.
var ErrInvalidCatalog = errors.New("invalid instance type catalog")

// MaxCatalogBytes is the most ReadJSON reads: 256 MiB, far above the few
// MiB of every EC2 instance type priced in every zone of a region.
const MaxCatalogBytes = 256 << 20

// ReadJSON reads a catalog in the JSON catalog format. name names the input
// in errors, which also name the type and the field, e.g.
//
//	catalog.json: instanceTypes[3] (m5.large): capacity.cpu: "lots" is not a quantity
//
// Unknown and repeated fields, repeated names, negative quantities, an
// allocatable that is not capacity less overhead, an empty catalog and one
// over MaxCatalogBytes are errors; allocatable may be left out.
func ReadJSON(r io.Reader, name string) (Catalog, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxCatalogBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidCatalog, name, err)
	}
	if len(data) > MaxCatalogBytes {
		return nil, fmt.Errorf("%w: %s: more than %d MiB: a catalog of every EC2 instance type in every zone is a few MiB", ErrInvalidCatalog, name, MaxCatalogBytes>>20)
	}
	elems, err := splitArray(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s%w", ErrInvalidCatalog, name, err)
	}
	if len(elems) == 0 {
		return nil, fmt.Errorf("%w: %s: no instance types: nothing could be launched", ErrInvalidCatalog, name)
	}
	types := make([]*InstanceType, len(elems))
	seen := make(map[string]int, len(elems))
	for i, raw := range elems {
		it, typeName, err := readInstanceType(raw)
		if err == nil {
			if first, ok := seen[typeName]; ok {
				err = fmt.Errorf("name: also the name of instanceTypes[%d]", first)
			}
		}
		if err != nil {
			label := ""
			if typeName != "" {
				label = " (" + typeName + ")"
			}
			return nil, fmt.Errorf("%w: %s: instanceTypes[%d]%s: %w", ErrInvalidCatalog, name, i, label, err)
		}
		seen[typeName] = i
		types[i] = it
	}
	return NewCatalog(types...)
}

// splitArray checks that data is one JSON array and returns its elements.
// Its errors start with ":line: " or ": " to follow the input's name.
func splitArray(data []byte) ([]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, fmt.Errorf(": want a JSON array of instance types, got %s", jsonKindOf(trimmed))
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		var syntaxErr *json.SyntaxError
		if errors.As(err, &syntaxErr) {
			line := 1 + bytes.Count(data[:min(int(syntaxErr.Offset), len(data))], []byte("\n"))
			return nil, fmt.Errorf(":%d: not JSON: %w", line, err)
		}
		return nil, fmt.Errorf(": %w", err)
	}
	return elems, nil
}

// jsonKindOf names the kind of JSON value raw starts with.
func jsonKindOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// quantities converts a resource map to a vector, naming field in errors.
// Only a derived amount (allocatable, when overhead exceeds capacity) may be
// negative.
func quantities(field string, m map[string]string, negativeOK bool) (resources.Vector, error) {
	var v resources.Vector
	for _, name := range sortedKeys(m) {
		value, err := quantityValue(field+"."+name, name, m[name], negativeOK)
		if err != nil {
			return resources.Vector{}, err
		}
		v = v.With(resourceName(name), value)
	}
	return v, nil
}

func quantityValue(field, name, text string, negativeOK bool) (int64, error) {
	if name == "" {
		return 0, fmt.Errorf("%s: empty resource name", strings.TrimSuffix(field, "."))
	}
	q, err := resources.ParseQuantity(field, text)
	if err != nil {
		return 0, err
	}
	isCPU := name == "cpu"
	switch f := q.AsApproximateFloat64(); {
	case f < 0 && !negativeOK:
		return 0, fmt.Errorf("%s: %q is negative", field, text)
	case math.Abs(f) > 1e18 || (isCPU && math.Abs(f) > 1e15):
		return 0, fmt.Errorf("%s: %q is too large", field, text)
	}
	if isCPU {
		return q.MilliValue(), nil
	}
	return q.Value(), nil
}

// asMap is the label as the JSON format's "labels" object; nil for none.
func (l OfferingLabel) asMap() map[string]string {
	if l.Key == "" {
		return nil
	}
	return map[string]string{l.Key: l.Value}
}
