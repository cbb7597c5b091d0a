package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// offeringFlags are what the AWS provider learns from AWS rather than from
// manifests and that changes which offerings are available: the zones an
// ARC zonal shift moves away from, how many instances each capacity
// reservation of an EC2NodeClass's status can still launch, and the
// strategy of the placement group an EC2NodeClass selects.
type offeringFlags struct {
	zonalShift        string
	reservation       []string
	placementStrategy string
}

func addOfferingFlags(cmd *cobra.Command, o *offeringFlags) {
	f := cmd.Flags()
	f.StringVar(&o.zonalShift, "zonal-shift", "", "comma-separated zones (us-east-1a) or zone IDs (use1-az1, resolved through the EC2NodeClass's status.subnets) an ARC zonal shift moves away from: their offerings are unavailable")
	f.StringArrayVar(&o.reservation, "reservation-capacity", nil, "`ID=N`: capacity reservation ID of an EC2NodeClass's status.capacityReservations can launch N more instances, as EC2 reports it (a reservation not given has none available); repeatable")
	f.StringVar(&o.placementStrategy, "placement-group-strategy", "", "strategy (cluster, partition or spread) of the placement group the EC2NodeClass's placementGroupSelector names, which karpsim cannot look up: types that cannot launch into it are unavailable to classes with a selector (without the flag a selector filters nothing)")
	noCompletion(cmd, "zonal-shift", "reservation-capacity")
	completeValues(cmd, "placement-group-strategy", apis.PlacementStrategies...)
}

// placementGroupStrategy is --placement-group-strategy, checked.
func (o offeringFlags) placementGroupStrategy() (string, error) {
	if o.placementStrategy != "" && !slices.Contains(apis.PlacementStrategies, o.placementStrategy) {
		return "", fmt.Errorf("%w: --placement-group-strategy %q: want one of %s", errUsage, o.placementStrategy, strings.Join(apis.PlacementStrategies, ", "))
	}
	return o.placementStrategy, nil
}

// reservations are the counts --reservation-capacity gives, nil when none.
func (o offeringFlags) reservations() (*instancetypes.ReservationAvailability, error) {
	if len(o.reservation) == 0 {
		return nil, nil
	}
	counts := &instancetypes.ReservationAvailability{}
	seen := map[string]bool{}
	for _, v := range o.reservation {
		id, n, ok := strings.Cut(v, "=")
		count, err := strconv.Atoi(n)
		switch {
		case !ok || id == "" || err != nil || count < 0:
			return nil, fmt.Errorf("%w: --reservation-capacity %q: want ID=N with N a count of instances, e.g. cr-0123456789abcdef0=4", errUsage, v)
		case seen[id]:
			return nil, fmt.Errorf("%w: --reservation-capacity: %s is given twice", errUsage, id)
		}
		seen[id] = true
		counts.Sync(id, count, time.Time{})
	}
	return counts, nil
}
