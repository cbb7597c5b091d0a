package conformance

import (
	"time"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/pricing"
)

// v1.15.0's reservation specs: an insufficient-capacity error on a launch
// into a reservation marks that reservation unavailable (the ICE cache,
// keyed by reservation ID) and leaves its count of instances it can still
// launch alone; and a terminated instance gives its reservation its unit
// back once, however often its termination is reported.

// reservedOffering is the type's reserved offering of the reservation.
func reservedOffering(t *T, it *instancetypes.InstanceType, id string) instancetypes.Offering {
	t.Helper()
	for _, o := range it.Offerings {
		if o.CapacityType == apis.CapacityTypeReserved && o.ReservationID == id {
			return o
		}
	}
	t.Fatalf("%s has no offering of reservation %s: %+v", it.Name, id, it.Offerings)
	return instancetypes.Offering{}
}

var _ = register("aws-offerings",
	conformanceCase{Name: "reservation-ice-keeps-count", Run: func(t *T) {
		counts := &instancetypes.ReservationAvailability{}
		counts.Sync("cr-123", 1, now)
		nc := capacityBlockClass(apis.CapacityReservationStateActive)
		unavailable := &pricing.UnavailableOfferings{}
		opts := instancetypes.AWSOptions{Reservations: counts, Unavailable: unavailable, Now: now}
		o := reservedOffering(t, awsType(t, nc, opts, "c6g.large"), "cr-123")
		require.True(t, o.Available)
		require.Equal(t, 1, o.ReservationCapacity)

		unavailable.MarkReservationUnavailable("c6g.large", "us-east-1a", "cr-123", now)
		o = reservedOffering(t, awsType(t, nc, opts, "c6g.large"), "cr-123")
		require.False(t, o.Available, "the ICE'd reservation is unavailable")
		require.Equal(t, 1, o.ReservationCapacity, "its count stays")
		require.Equal(t, 1, counts.Available("cr-123"))
	}},
	conformanceCase{Name: "reservation-ice-scoped-to-reservation", Run: func(t *T) {
		counts := &instancetypes.ReservationAvailability{}
		counts.Sync("cr-123", 1, now)
		counts.Sync("cr-other", 1, now)
		nc := capacityBlockClass(apis.CapacityReservationStateActive)
		nc.Status.CapacityReservations = append(nc.Status.CapacityReservations, apis.CapacityReservation{
			AvailabilityZone: "us-east-1a", ID: "cr-other", InstanceType: "c6g.large", ReservationType: apis.CapacityReservationTypeDefault,
		})
		unavailable := &pricing.UnavailableOfferings{}
		unavailable.MarkReservationUnavailable("c6g.large", "us-east-1a", "cr-123", now)
		it := awsType(t, nc, instancetypes.AWSOptions{Reservations: counts, Unavailable: unavailable, Now: now}, "c6g.large")
		require.False(t, reservedOffering(t, it, "cr-123").Available)
		require.True(t, reservedOffering(t, it, "cr-other").Available, "a reservation of the same type and zone stays available")
	}},
)

var _ = register("aws-reservations",
	conformanceCase{Name: "termination-counted-once", Run: func(t *T) {
		counts := &instancetypes.ReservationAvailability{}
		counts.Sync("cr-test", 0, now)
		counts.MarkTerminated("cr-test", "i-dedupe-1", now)
		counts.MarkTerminated("cr-test", "i-dedupe-1", now.Add(time.Second))
		require.Equal(t, 1, counts.Available("cr-test"))
		counts.MarkTerminated("cr-test", "i-dedupe-2", now.Add(2*time.Second))
		require.Equal(t, 2, counts.Available("cr-test"))
	}},
)
