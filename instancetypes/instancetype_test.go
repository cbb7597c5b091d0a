package instancetypes

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
	"github.com/stretchr/testify/require"
)

// requirementsOf is requirements of key In values, or none without a key.
func requirementsOf(keyValues ...string) requirements.Requirements {
	if len(keyValues) == 0 {
		return requirements.Requirements{}
	}
	return requirements.NewRequirements(requirements.In(keyValues[0], keyValues[1:]...))
}

func testSpec() Spec {
	return Spec{
		Name:     "test.large",
		Labels:   map[string]string{apis.LabelArch: "amd64", "team": "a"},
		Capacity: resources.New(2000, 4*gib, 10),
		Overhead: Overhead{
			KubeReserved:      resources.New(100, 100*mib, 0),
			SystemReserved:    resources.New(50, 0, 0),
			EvictionThreshold: resources.New(0, 100*mib, 0),
		},
		Offerings: []Offering{
			{Zone: "z2", CapacityType: "spot", Price: 0.5, Available: true},
			{Zone: "z1", CapacityType: "spot", Price: 0.5, Available: true},
			{Zone: "z1", CapacityType: "on-demand", Price: 1, Available: true},
			{Zone: "z3", CapacityType: "spot", Price: 0.1, Available: false},
			{Zone: "z1", CapacityType: "reserved", Price: 0.0001, Available: true, ReservationID: "cr-1", ReservationCapacity: 2},
		},
	}
}

func TestNewInstanceType(t *testing.T) {
	spec := testSpec()
	it, err := NewInstanceType(spec)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := it.Overhead.Total(), resources.New(150, 200*mib, 0); got.String() != want.String() {
		t.Errorf("Overhead.Total() = %s, want %s", got, want)
	}
	if got, want := it.Allocatable(), resources.New(1850, 4*gib-200*mib, 10); got.String() != want.String() {
		t.Errorf("Allocatable() = %s, want %s", got, want)
	}
	if o := it.Offerings[0]; o.Zone != "z1" || o.CapacityType != "on-demand" || o.Price != 1 {
		t.Errorf("offerings not sorted by zone then capacity type: %v", it.Offerings)
	}
	if spec.Offerings[0].Zone != "z2" {
		t.Error("NewInstanceType sorted the caller's offerings")
	}
	wantReqs := "karpenter.k8s.aws/capacity-reservation-id In [cr-1], karpenter.sh/capacity-type In [on-demand reserved spot], " +
		"kubernetes.io/arch In [amd64], kubernetes.io/os DoesNotExist, node.kubernetes.io/instance-type In [test.large], team In [a], " +
		"topology.kubernetes.io/zone In [z1 z2 z3]"
	if got := onlyKeys(it.Requirements, apis.LabelCapacityReservationID, apis.LabelCapacityType, apis.LabelArch, apis.LabelOS,
		apis.LabelInstanceType, "team", apis.LabelTopologyZone); got != wantReqs {
		t.Errorf("requirements\n got %s\nwant %s", got, wantReqs)
	}
	// The reservation type is not modelled, so it is open when there are
	// reservations; every well-known label the type lacks is absent.
	if it.Requirements.Has(apis.LabelCapacityReservationType) || it.Requirements.Has(apis.LabelNodePool) || it.Requirements.Has(apis.LabelTopologyZoneID) {
		t.Errorf("requirements constrain offering-level or unknown labels: %s", it.Requirements)
	}
	if got := it.Labels(); fmt.Sprint(got) != "map[karpenter.k8s.aws/capacity-reservation-id:cr-1 karpenter.k8s.aws/capacity-reservation-interruptible:false kubernetes.io/arch:amd64 node.kubernetes.io/instance-type:test.large team:a]" {
		t.Errorf("Labels() = %v", got)
	}
}

func TestNewInstanceTypeErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Spec)
	}{
		{"no name", func(s *Spec) { s.Name = "" }},
		{"name not a label value", func(s *Spec) { s.Name = "a b" }},
		{"negative capacity", func(s *Spec) { s.Capacity = resources.New(-1, 0, 0) }},
		{"negative overhead", func(s *Spec) { s.Overhead.KubeReserved = resources.New(0, -1, 0) }},
		{"zone as a label", func(s *Spec) { s.Labels = map[string]string{apis.LabelTopologyZone: "z1"} }},
		{"deprecated label", func(s *Spec) { s.Labels = map[string]string{"beta.kubernetes.io/arch": "amd64"} }},
		{"bad label key", func(s *Spec) { s.Labels = map[string]string{"a/b/c": "x"} }},
		{"bad label value", func(s *Spec) { s.Labels = map[string]string{"x": "a b"} }},
		{"other instance-type label", func(s *Spec) { s.Labels = map[string]string{apis.LabelInstanceType: "other"} }},
		{"label also absent", func(s *Spec) { s.AbsentLabels = []string{"team"} }},
		{"unknown capacity type", func(s *Spec) { s.Offerings[0].CapacityType = "cheap" }},
		{"offering without zone", func(s *Spec) { s.Offerings[0].Zone = "" }},
		{"negative price", func(s *Spec) { s.Offerings[0].Price = -1 }},
		{"reservation on spot", func(s *Spec) { s.Offerings[0].ReservationID = "cr-2" }},
		{"repeated offering", func(s *Spec) { s.Offerings[0].Zone = "z1" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := testSpec()
			tc.change(&spec)
			_, err := NewInstanceType(spec)
			if !errors.Is(err, ErrInvalidInstanceType) {
				t.Fatalf("NewInstanceType: %v, want ErrInvalidInstanceType", err)
			}
			t.Log(err)
		})
	}
}

func TestCheapestOffering(t *testing.T) {
	it, err := NewInstanceType(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		reqs requirements.Requirements
		want string
	}{
		// As upstream, nothing needs to ask for a reservation: reserved
		// capacity is the cheapest whenever the requirements allow it.
		{"reserved when allowed", requirementsOf(), "z1/reserved"},
		{"not reserved", requirementsOf(apis.LabelCapacityType, "spot", "on-demand"), "z1/spot"},
		{"ties go to the first zone", requirementsOf(apis.LabelCapacityType, "spot"), "z1/spot"},
		{"zone", requirementsOf(apis.LabelTopologyZone, "z2"), "z2/spot"},
		{"unavailable offerings are skipped", requirementsOf(apis.LabelTopologyZone, "z3"), "none"},
		{"reservation", requirementsOf(apis.LabelCapacityReservationID, "cr-1"), "z1/reserved"},
		{"other reservation", requirementsOf(apis.LabelCapacityReservationID, "cr-2"), "none"},
		{"on-demand", requirementsOf(apis.LabelCapacityType, "on-demand"), "z1/on-demand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := "none"
			if o, ok := it.CheapestOffering(tc.reqs); ok {
				got = o.Zone + "/" + o.CapacityType
			}
			if got != tc.want {
				t.Errorf("CheapestOffering(%s) = %s, want %s", tc.reqs, got, tc.want)
			}
		})
	}
}

// Offering.Compatible is the fast path of reqs.Compatible(o.Requirements()):
// both must agree on every combination of requirement shapes.
func TestOfferingCompatibleMatchesRequirements(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{apis.LabelTopologyZone, apis.LabelCapacityType, apis.LabelCapacityReservationID, apis.LabelCapacityReservationType}
	values := map[string][]string{
		apis.LabelTopologyZone:            {"z1", "z2"},
		apis.LabelCapacityType:            {"spot", "on-demand", "reserved"},
		apis.LabelCapacityReservationID:   {"cr-1", "cr-2", "cr-3"},
		apis.LabelCapacityReservationType: {apis.CapacityReservationTypeDefault, apis.CapacityReservationTypeCapacityBlock},
	}
	ops := []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist}
	offerings := []Offering{
		{Zone: "z1", CapacityType: "spot"},
		{Zone: "z2", CapacityType: "on-demand"},
		{Zone: "z1", CapacityType: "reserved", ReservationID: "cr-1"},
		{Zone: "z2", CapacityType: "reserved", ReservationID: "cr-2", ReservationType: apis.CapacityReservationTypeCapacityBlock},
		{Zone: "z2", CapacityType: "reserved", ReservationID: "cr-3", ReservationType: apis.CapacityReservationTypeDefault},
	}
	for range 5000 {
		var items []requirements.Requirement
		for _, key := range keys {
			if rng.IntN(3) == 0 {
				continue
			}
			op := ops[rng.IntN(len(ops))]
			var vs []string
			if op == corev1.NodeSelectorOpIn || op == corev1.NodeSelectorOpNotIn {
				vs = []string{values[key][rng.IntN(len(values[key]))]}
			}
			r, err := requirements.New(key, op, vs...)
			require.NoError(t, err)
			items = append(items, r)
		}
		reqs := requirements.NewRequirements(items...)
		for _, o := range offerings {
			want := reqs.Compatible(o.Requirements(), requirements.AllowUndefinedWellKnown) == nil
			if got := o.Compatible(reqs); got != want {
				t.Fatalf("%+v.Compatible(%s) = %v, requirements say %v", o, reqs, got, want)
			}
		}
	}
}

func TestCatalog(t *testing.T) {
	a, _ := NewInstanceType(Spec{Name: "b"})
	b, _ := NewInstanceType(Spec{Name: "a"})
	c, err := NewCatalog(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(c.Names()) != "[a b]" {
		t.Errorf("catalog not sorted: %v", c.Names())
	}
	if it, ok := c.Get("b"); !ok || it != a {
		t.Error("Get(b)")
	}
	if _, ok := c.Get("c"); ok {
		t.Error("Get(c) found something")
	}
	if _, err := NewCatalog(a, a); err == nil {
		t.Error("two types with one name were accepted")
	}
	if _, err := NewCatalog(a, nil); err == nil {
		t.Error("a nil type was accepted")
	}
	keys := Fake(5).LabelKeys()
	for _, key := range []string{FakeLabelInteger, FakeLabelSize, FakeLabelSpecial, apis.LabelTopologyZone} {
		if !slices.Contains(keys, key) {
			t.Errorf("LabelKeys() = %v, missing %s", keys, key)
		}
	}
}

// A literal InstanceType (not built by NewInstanceType) still reports its
// allocatable resources.
func TestAllocatableOfLiteral(t *testing.T) {
	it := InstanceType{Capacity: resources.New(1000, gib, 5), Overhead: Overhead{KubeReserved: resources.New(100, 0, 0).With("example.com/foo", 1)}}
	if got, want := it.Allocatable(), resources.New(900, gib, 5); got.String() != want.String() {
		t.Errorf("Allocatable() = %s, want %s (overhead on resources the machine lacks is ignored)", got, want)
	}
}

func onlyKeys(reqs requirements.Requirements, keys ...string) string {
	var kept []requirements.Requirement
	for _, key := range keys {
		if r, ok := reqs.Lookup(key); ok {
			kept = append(kept, r)
		}
	}
	return requirements.NewRequirements(kept...).String()
}

// isLabelValue is the regular-expression-free fast path of
// validation.IsValidLabelValue: they must agree.
func TestIsLabelValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := "aZ09-_./ "
	cases := []string{"", "a", "-a", "a-", "a.b", "a..b", strings.Repeat("a", 63), strings.Repeat("a", 64), "é"}
	for range 20000 {
		b := make([]byte, rng.IntN(6))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, value := range cases {
		if got, want := isLabelValue(value), len(validation.IsValidLabelValue(value)) == 0; got != want {
			t.Fatalf("isLabelValue(%q) = %v, validation says %v", value, got, want)
		}
	}
}
