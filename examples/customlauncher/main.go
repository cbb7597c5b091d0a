// Command customlauncher plugs its own cloud.Launcher into the simulator:
// a launcher that wraps the in-memory cloud, refuses every launch in one
// zone (as a zone outage would) and records every call. simulator.Run
// treats the refusals as insufficient capacity, marks the offering
// unavailable for 3 minutes and launches elsewhere, as Karpenter does.
//
// The wrapped cloud.Memory runs on the clock handed to the simulator in
// Config.Clock, so the instances it dates, the nodes' readiness and the
// run's cost are all in simulated time.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/simulator"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "customlauncher:", err)
		os.Exit(1)
	}
}

// zoneOutage is a Launcher that fails every launch in one zone and
// records what it was asked.
type zoneOutage struct {
	inner cloud.Launcher
	zone  string
	log   []string
}

func (z *zoneOutage) Create(ctx context.Context, req cloud.LaunchRequest) (cloud.Instance, error) {
	if req.Zone == z.zone {
		z.log = append(z.log, fmt.Sprintf("create %s %s %s in %s: refused (zone outage)", req.NodeClaim, req.CapacityType, req.InstanceType, req.Zone))
		return cloud.Instance{}, &cloud.InsufficientCapacityError{InstanceType: req.InstanceType, Zone: req.Zone, CapacityType: req.CapacityType}
	}
	inst, err := z.inner.Create(ctx, req)
	z.log = append(z.log, fmt.Sprintf("create %s %s %s in %s: %s %v", req.NodeClaim, req.CapacityType, req.InstanceType, req.Zone, inst.ID, errOrOK(err)))
	return inst, err
}

func (z *zoneOutage) Delete(ctx context.Context, id string) error {
	err := z.inner.Delete(ctx, id)
	z.log = append(z.log, fmt.Sprintf("delete %s: %v", id, errOrOK(err)))
	return err
}

func errOrOK(err error) any {
	if err == nil {
		return "ok"
	}
	return err
}

const scenario = `
name: zone-outage
seed: 1
duration: 30m
inline: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: inflate}
  spec:
    replicas: 0
    selector: {matchLabels: {app: inflate}}
    template:
      metadata: {labels: {app: inflate}}
      spec:
        containers: [{name: inflate, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
steps:
- {at: 0s, scale: {deployment: inflate, replicas: 10}}
- {at: 10m, scale: {deployment: inflate, replicas: 0}}
`

func run(w io.Writer) error {
	sc, err := simulator.ParseScenario([]byte(scenario))
	if err != nil {
		return err
	}
	// The simulator moves this clock to the scenario's start and on
	// through virtual time.
	clock := cloud.NewManualClock(time.Time{})
	mem, err := cloud.NewMemory(cloud.MemoryConfig{Clock: clock, Catalog: instancetypes.Default()})
	if err != nil {
		return err
	}
	launcher := &zoneOutage{inner: mem, zone: "us-east-1b"}
	res, err := simulator.Run(context.Background(), sc, simulator.Config{Launcher: launcher, Clock: clock})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "launcher calls:")
	for _, l := range launcher.log {
		fmt.Fprintln(w, " ", l)
	}
	fmt.Fprintln(w, "simulator decisions:")
	for _, d := range res.Timeline {
		switch d.Kind {
		case simulator.KindLaunch, simulator.KindLaunchFailed, simulator.KindDelete:
			fmt.Fprintf(w, "  %v %s %s\n", d.At.Duration, d.Kind, d.Reason)
		}
	}
	fmt.Fprintf(w, "total cost: $%.4f\n", res.TotalCost)
	return nil
}
