package instancetypes

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

const scopeKey = "example.com/placement"

// scoped is a type with a zonal offering in zone-1 and a regional one in
// zone 0 at the same price, the zonal one preferred; windows-build is
// left undefined.
func scoped(t *testing.T) *InstanceType {
	t.Helper()
	zonal := OfferingLabel{Key: scopeKey, Value: "zonal"}
	regional := OfferingLabel{Key: scopeKey, Value: "regional"}
	it, err := NewInstanceType(Spec{
		Name:            "scoped",
		Labels:          map[string]string{apis.LabelArch: apis.ArchitectureAmd64},
		UndefinedLabels: []string{apis.LabelWindowsBuild},
		Capacity:        resources.New(2000, 4<<30, 10),
		Offerings: []Offering{
			{Zone: "0", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true, Label: regional, Preference: 1},
			{Zone: "zone-1", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true, Label: zonal},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func TestOfferingLabelRequirements(t *testing.T) {
	it := scoped(t)
	if got := it.Requirements.Get(scopeKey).Values(); !reflect.DeepEqual(got, []string{"regional", "zonal"}) {
		t.Errorf("type requirement on %s: %v, want the offerings' values", scopeKey, got)
	}
	if _, ok := it.Requirements.Lookup(apis.LabelWindowsBuild); ok {
		t.Errorf("windows-build is stated (%s), want undefined", it.Requirements.Get(apis.LabelWindowsBuild))
	}
	if r := it.Requirements.Get(apis.LabelInstanceGPUName); r.Operator() != corev1.NodeSelectorOpDoesNotExist {
		t.Errorf("another well-known label a type lacks: %s, want DoesNotExist", r)
	}
	if got := it.Offerings[0].Requirements().Get(scopeKey).Values(); !reflect.DeepEqual(got, []string{"regional"}) {
		t.Errorf("offering requirement on %s: %v", scopeKey, got)
	}
}

func TestOfferingLabelChoosesOfferings(t *testing.T) {
	it := scoped(t)
	for _, tc := range []struct {
		reqs requirements.Requirements
		zone string
	}{
		{requirements.NewRequirements(), "zone-1"},
		{requirements.NewRequirements(requirements.In(scopeKey, "regional")), "0"},
		{requirements.NewRequirements(requirements.NotIn(scopeKey, "zonal")), "0"},
		{requirements.NewRequirements(requirements.In(scopeKey, "zonal", "regional")), "zone-1"},
	} {
		o, ok := it.CheapestOffering(tc.reqs)
		if !ok || o.Zone != tc.zone {
			t.Errorf("%s: offering %+v (%v), want zone %s", tc.reqs, o, ok, tc.zone)
		}
	}
	if _, ok := it.CheapestOffering(requirements.NewRequirements(requirements.In(scopeKey, "zonal"), requirements.In(apis.LabelTopologyZone, "0"))); ok {
		t.Error("zonal in zone 0: an offering is allowed")
	}
	if it.Offerings[1].Compatible(requirements.NewRequirements(requirements.In(scopeKey, "regional"))) {
		t.Error("the zonal offering is compatible with regional")
	}
}

func TestOfferingLabelRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, Catalog{scoped(t)}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"undefinedLabels": [`, `"labels": {`, `"preference": 1`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, buf.String())
		}
	}
	back, err := ReadJSON(bytes.NewReader(buf.Bytes()), "catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteJSON(&again, back); err != nil {
		t.Fatal(err)
	}
	if again.String() != buf.String() {
		t.Errorf("read back and written again, the catalog differs:\n%s\nwant\n%s", again.String(), buf.String())
	}
	if !reflect.DeepEqual(back[0].Requirements.String(), scoped(t).Requirements.String()) {
		t.Errorf("requirements read back %s, want %s", back[0].Requirements, scoped(t).Requirements)
	}
}

func TestOfferingLabelInvalid(t *testing.T) {
	base := func() Spec {
		return Spec{Name: "t", Capacity: resources.New(1000, 1<<30, 10), Offerings: []Offering{
			{Zone: "a", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true, Label: OfferingLabel{Key: scopeKey, Value: "x"}},
			{Zone: "b", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true, Label: OfferingLabel{Key: scopeKey, Value: "y"}},
		}}
	}
	for name, change := range map[string]func(*Spec){
		"different keys":    func(s *Spec) { s.Offerings[1].Label.Key = "example.com/other" },
		"no key on one":     func(s *Spec) { s.Offerings[1].Label = OfferingLabel{} },
		"value without key": func(s *Spec) { s.Offerings[0].Label.Key, s.Offerings[1].Label.Key = "", "" },
		"bad value":         func(s *Spec) { s.Offerings[0].Label.Value = "not a value" },
		"zone key": func(s *Spec) {
			s.Offerings[0].Label.Key, s.Offerings[1].Label.Key = apis.LabelTopologyZone, apis.LabelTopologyZone
		},
		"also a type label":   func(s *Spec) { s.Labels = map[string]string{scopeKey: "x"} },
		"undefined not known": func(s *Spec) { s.UndefinedLabels = []string{"example.com/custom"} },
		"undefined and set": func(s *Spec) {
			s.UndefinedLabels = []string{apis.LabelWindowsBuild}
			s.Labels = map[string]string{apis.LabelWindowsBuild: "x"}
		},
	} {
		s := base()
		change(&s)
		if _, err := NewInstanceType(s); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := NewInstanceType(base()); err != nil {
		t.Errorf("the valid base: %v", err)
	}
	var buf bytes.Buffer
	buf.WriteString(`[{"name": "t", "labels": {}, "capacity": {"cpu": "1", "memory": "1Gi", "pods": "10"}, "overhead": {},
	  "offerings": [{"zone": "a", "capacityType": "on-demand", "price": 1, "available": true, "labels": {"a.com/x": "1", "a.com/y": "2"}}]}]`)
	if _, err := ReadJSON(&buf, "two.json"); err == nil || !strings.Contains(err.Error(), "at most one") {
		t.Errorf("two labels on an offering: %v", err)
	}
}
