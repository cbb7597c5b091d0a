package instancetypes

import (
	"strings"
	"testing"
	"time"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// An EC2NodeClass's interruptible reservation gives offerings whose nodes
// carry capacity-reservation-interruptible=true, the others false, and a
// type with reservations states both values (provider v1.15.0).
func TestAWSInterruptibleReservations(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	counts := &ReservationAvailability{}
	counts.Sync("cr-0000000000000000a", 1, at)
	counts.Sync("cr-0000000000000000b", 1, at)
	status := apis.EC2NodeClassStatus{CapacityReservations: []apis.CapacityReservation{
		{ID: "cr-0000000000000000a", AvailabilityZone: "us-east-1b", InstanceType: "m5.large", Interruptible: true},
		{ID: "cr-0000000000000000b", AvailabilityZone: "us-east-1b", InstanceType: "m5.large"},
	}}
	it := awsTypeFor(t, AWSOptions{NodeClass: classWithStatus(status), Reservations: counts, Now: at}, "m5.large")
	got := it.Requirements.Get(apis.LabelCapacityReservationInterruptible)
	if !got.Has("true") || !got.Has("false") || got.Len() != 2 {
		t.Errorf("type requirement %s, want In [false true]", got)
	}
	for want, id := range map[string]string{"true": "cr-0000000000000000a", "false": "cr-0000000000000000b"} {
		reqs := requirements.NewRequirements(requirements.In(apis.LabelCapacityReservationInterruptible, want))
		o, ok := it.CheapestOffering(reqs)
		if !ok || o.ReservationID != id {
			t.Errorf("interruptible In [%s]: cheapest offering %+v (%v), want %s", want, o, ok, id)
		}
	}
	// Not reserved: the label is absent, so DoesNotExist allows only the
	// on-demand and spot offerings.
	o, ok := it.CheapestOffering(requirements.NewRequirements(requirements.DoesNotExist(apis.LabelCapacityReservationInterruptible)))
	if !ok || o.ReservationID != "" {
		t.Errorf("interruptible DoesNotExist: cheapest offering %+v (%v), want one not reserved", o, ok)
	}
	// Without reservations the label is DoesNotExist, as the ID's is.
	plain := awsTypeFor(t, AWSOptions{}, "m5.large")
	if r, ok := plain.Requirements.Lookup(apis.LabelCapacityReservationInterruptible); !ok || r.Operator() != "DoesNotExist" {
		t.Errorf("a type without reservations: %s (%v), want DoesNotExist", r, ok)
	}
	// The placement group labels are left undefined: the types of an
	// EC2NodeClass without a placement group do not state them.
	for _, key := range []string{apis.LabelPlacementGroupID, apis.LabelPlacementGroupPartition} {
		if r, ok := plain.Requirements.Lookup(key); ok {
			t.Errorf("%s: %s, want undefined", key, r)
		}
	}
}

func TestInterruptibleRoundTripsThroughJSON(t *testing.T) {
	it, err := NewInstanceType(Spec{
		Name: "x.large", Capacity: testSpec().Capacity,
		Offerings: []Offering{
			{Zone: "z1", CapacityType: apis.CapacityTypeReserved, Available: true, ReservationID: "cr-1", ReservationCapacity: 1, Interruptible: true},
			{Zone: "z1", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCatalog(it)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"interruptible"`) {
		t.Fatalf("written catalog lacks interruptible:\n%s", b.String())
	}
	back, err := ReadJSON(strings.NewReader(b.String()), "catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range back[0].Offerings {
		if o.Interruptible != (o.CapacityType == apis.CapacityTypeReserved) {
			t.Errorf("read back %+v: only the reserved offering is interruptible", o)
		}
	}
	_, err = NewInstanceType(Spec{Name: "y.large", Capacity: testSpec().Capacity,
		Offerings: []Offering{{Zone: "z1", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true, Interruptible: true}}})
	if err == nil || !strings.Contains(err.Error(), "interruptible") {
		t.Errorf("interruptible on an on-demand offering: %v, want an error naming interruptible", err)
	}
}
