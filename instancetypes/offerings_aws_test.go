package instancetypes

import (
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

func awsTypeFor(t *testing.T, opts AWSOptions, name string) *InstanceType {
	t.Helper()
	var facts []EC2Facts
	for _, f := range EmbeddedFacts() {
		if f.InstanceType == name {
			facts = append(facts, f)
		}
	}
	c, err := NewAWS(facts, opts)
	if err != nil {
		t.Fatal(err)
	}
	return mustGet(t, c, name)
}

func classWithStatus(status apis.EC2NodeClassStatus) *apis.EC2NodeClass {
	nc := &apis.EC2NodeClass{Spec: apis.EC2NodeClassSpec{AMISelectorTerms: []apis.AMISelectorTerm{{Alias: "al2023@latest"}}}, Status: status}
	nc.Name = "default"
	return nc
}

func TestAWSTenancy(t *testing.T) {
	it := awsTypeFor(t, AWSOptions{}, "m5.large")
	r, ok := it.Requirements.Lookup(apis.LabelInstanceTenancy)
	if !ok || !r.Has(apis.TenancyDefault) || !r.Has(apis.TenancyDedicated) || r.Len() != 2 {
		t.Fatalf("tenancy requirement %v", r)
	}
	for _, tc := range []struct {
		reqs requirements.Requirements
		want string
		ok   bool
	}{
		{requirements.NewRequirements(), apis.TenancyDefault, true},
		{requirements.NewRequirements(requirements.In(apis.LabelInstanceTenancy, apis.TenancyDedicated, apis.TenancyDefault)), apis.TenancyDefault, true},
		{requirements.NewRequirements(requirements.NotIn(apis.LabelInstanceTenancy, apis.TenancyDefault)), apis.TenancyDedicated, true},
		{requirements.NewRequirements(requirements.In(apis.LabelInstanceTenancy, "host")), "", false},
	} {
		got, ok := it.LaunchLabelChoice(apis.LabelInstanceTenancy, tc.reqs)
		if got != tc.want || ok != tc.ok {
			t.Errorf("LaunchLabelChoice(%v) = %q, %v; want %q, %v", tc.reqs, got, ok, tc.want, tc.ok)
		}
	}
	// Dedicated is priced as upstream prices it: like default.
	if _, ok := it.Labels()[apis.LabelInstanceTenancy]; ok {
		t.Error("tenancy is a single-valued label; want a choice")
	}
}

func TestAWSReservedOfferings(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	counts := &ReservationAvailability{}
	counts.Sync("cr-open", 2, at)
	counts.Sync("cr-gone", 3, at)
	status := apis.EC2NodeClassStatus{CapacityReservations: []apis.CapacityReservation{
		{ID: "cr-open", AvailabilityZone: "us-east-1b", InstanceType: "m5.large"},
		{ID: "cr-gone", AvailabilityZone: "us-east-1b", InstanceType: "m5.large", EndTime: &metav1.Time{Time: at.Add(-time.Minute)}},
		{ID: "cr-unknown", AvailabilityZone: "us-east-1c", InstanceType: "m5.large"},
		{ID: "cr-other", AvailabilityZone: "us-east-1a", InstanceType: "m5.xlarge"},
	}}
	it := awsTypeFor(t, AWSOptions{NodeClass: classWithStatus(status), Reservations: counts, Now: at}, "m5.large")
	got := map[string]Offering{}
	for _, o := range it.Offerings {
		if o.CapacityType == apis.CapacityTypeReserved {
			got[o.ReservationID] = o
		}
	}
	if len(got) != 2 {
		t.Fatalf("reserved offerings %v, want cr-open and cr-unknown (cr-gone ended, cr-other is another type)", got)
	}
	open := got["cr-open"]
	if !open.Available || open.ReservationCapacity != 2 || open.ReservationType != apis.CapacityReservationTypeDefault || open.Zone != "us-east-1b" {
		t.Errorf("cr-open %+v", open)
	}
	if od, _ := EmbeddedPrices().OnDemandPrice("m5.large"); open.Price != od/reservationPriceDivisor {
		t.Errorf("cr-open price %v, want the on-demand price / %d", open.Price, reservationPriceDivisor)
	}
	if u := got["cr-unknown"]; !u.Available || u.ReservationCapacity != 0 {
		t.Errorf("a reservation never counted is full but available (provider v1.15.0): %+v", u)
	}
	// A shift away from the reservation's zone makes it unavailable too.
	shifted := awsTypeFor(t, AWSOptions{NodeClass: classWithStatus(status), Reservations: counts, Now: at, ZonalShifts: []string{"us-east-1b"}}, "m5.large")
	for _, o := range shifted.Offerings {
		if o.Zone == "us-east-1b" && o.Available {
			t.Errorf("offering %+v in a shifted zone is available", o)
		}
	}
}

func TestAWSSubnetZones(t *testing.T) {
	status := apis.EC2NodeClassStatus{Subnets: []apis.Subnet{
		{ID: "subnet-1", Zone: "us-east-1b", ZoneID: "use1-az2"},
		{ID: "subnet-2", Zone: "us-east-1b", ZoneID: "use1-az2"},
		{ID: "subnet-3", Zone: "us-east-1-bos-1a", ZoneID: "use1-bos1-az1"},
	}}
	it := awsTypeFor(t, AWSOptions{NodeClass: classWithStatus(status), Zones: []string{"us-east-1a"}}, "m5.large")
	zones := it.Requirements.Get(apis.LabelTopologyZone).Values()
	if len(zones) != 2 || zones[0] != "us-east-1-bos-1a" || zones[1] != "us-east-1b" {
		t.Errorf("zones %v, want the subnets' zones", zones)
	}
	_, err := NewAWS(EmbeddedFacts()[:1], AWSOptions{NodeClass: classWithStatus(apis.EC2NodeClassStatus{Subnets: []apis.Subnet{{ID: "subnet-1"}}})})
	if !errors.Is(err, ErrInvalidAWSOptions) {
		t.Errorf("a subnet without a zone: %v", err)
	}
	_, err = NewAWS(EmbeddedFacts()[:1], AWSOptions{ZonalShifts: []string{""}})
	if !errors.Is(err, ErrInvalidAWSOptions) {
		t.Errorf("an empty zonal shift: %v", err)
	}
}

func TestReservationAvailability(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var a ReservationAvailability
	if a.Available("cr-x") != 0 || a.Known("cr-x") {
		t.Fatal("the zero value counts nothing")
	}
	a.MarkLaunched("cr-x", at)
	a.MarkTerminated("cr-x", "i-0", at)
	if a.Known("cr-x") {
		t.Error("marks on a reservation never reported are ignored")
	}
	a.Sync("cr-x", 1, at)
	a.MarkLaunched("cr-x", at.Add(-time.Second)) // before the report: already in it
	if a.Available("cr-x") != 1 {
		t.Errorf("a launch before the report counted: %d", a.Available("cr-x"))
	}
	a.MarkLaunched("cr-x", at)
	a.MarkLaunched("cr-x", at)
	if a.Available("cr-x") != 0 {
		t.Errorf("count %d, want 0 (never below)", a.Available("cr-x"))
	}
	a.MarkTerminated("cr-x", "i-1", at)
	a.MarkUnavailable("cr-x", "cr-y")
	if a.Available("cr-x") != 0 || a.Known("cr-y") {
		t.Errorf("MarkUnavailable: %d, known cr-y %v", a.Available("cr-x"), a.Known("cr-y"))
	}
}

func TestLearnedMemory(t *testing.T) {
	nc := classWithStatus(apis.EC2NodeClassStatus{AMIs: []apis.AMI{{ID: "ami-1"}}})
	var l LearnedMemory
	labels := map[string]string{apis.LabelInstanceType: "m5.large"}
	if l.Observe(nc, labels, "ami-2", 1<<30) {
		t.Error("a node of another AMI counted")
	}
	l.Observe(nc, labels, "ami-1", 7<<30)
	l.Observe(nc, labels, "ami-1", 8<<30)
	if got, ok := l.Memory(nc, "m5.large"); !ok || got != 7<<30 {
		t.Errorf("learned %d, %v; want the least seen, 7Gi", got, ok)
	}
	it := awsTypeFor(t, AWSOptions{NodeClass: nc, LearnedMemory: &l}, "m5.large")
	if it.Capacity.Memory() != 7<<30 {
		t.Errorf("capacity memory %d, want the learned 7Gi", it.Capacity.Memory())
	}
	estimate := awsTypeFor(t, AWSOptions{NodeClass: nc}, "m5.large")
	if it.Overhead.EvictionThreshold.Memory() != estimate.Overhead.EvictionThreshold.Memory() {
		t.Error("the overhead follows the estimate, as upstream")
	}
}
