package cloud_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/simulator"
)

// quotaCloud is a Launcher written from scratch: a cloud with a quota of
// instances per instance type, as an account's service limits would set.
// It launches the first of a request's overrides whose type is under its
// quota, in one call, and reports the ones it skipped; when every override
// is over quota it fails with an InsufficientCapacityError naming them all,
// which the controller records so that the next plan avoids them.
type quotaCloud struct {
	clock     cloud.Clock
	quota     map[string]int // instances allowed per type; absent means no limit
	running   map[string]cloud.Instance
	perType   map[string]int
	launched  int
	refused   []cloud.OfferingKey // every override skipped, for the example to show
	bootDelay time.Duration       // launch to registration; readiness is 20 s later
}

func newQuotaCloud(clock cloud.Clock, quota map[string]int) *quotaCloud {
	return &quotaCloud{clock: clock, quota: quota, running: map[string]cloud.Instance{}, perType: map[string]int{}, bootDelay: 40 * time.Second}
}

func (q *quotaCloud) Create(_ context.Context, req cloud.LaunchRequest) (cloud.Instance, error) {
	offers := req.Overrides
	if len(offers) == 0 { // a request without overrides asks for its one offering
		offers = []cloud.Override{{InstanceType: req.InstanceType, Zone: req.Zone, CapacityType: req.CapacityType, PricePerHour: req.PricePerHour}}
	}
	var refused []cloud.OfferingKey
	for _, o := range offers {
		if limit, ok := q.quota[o.InstanceType]; ok && q.perType[o.InstanceType] >= limit {
			refused = append(refused, cloud.OfferingKey{InstanceType: o.InstanceType, Zone: o.Zone, CapacityType: o.CapacityType})
			continue
		}
		q.launched++
		q.perType[o.InstanceType]++
		now := q.clock.Now()
		inst := cloud.Instance{
			ID:            fmt.Sprintf("quota-%03d", q.launched),
			NodeClaim:     req.NodeClaim,
			InstanceType:  o.InstanceType,
			Zone:          o.Zone,
			CapacityType:  o.CapacityType,
			PricePerHour:  o.PricePerHour,
			LaunchedAt:    now,
			RegisteredAt:  now.Add(q.bootDelay),
			InitializedAt: now.Add(q.bootDelay + 20*time.Second),
			Unavailable:   refused,
		}
		q.running[inst.ID] = inst
		q.refused = append(q.refused, refused...)
		return inst, nil
	}
	first := refused[0]
	return cloud.Instance{}, &cloud.InsufficientCapacityError{InstanceType: first.InstanceType, Zone: first.Zone, CapacityType: first.CapacityType, Offerings: refused}
}

func (q *quotaCloud) Delete(_ context.Context, id string) error {
	inst, ok := q.running[id]
	if !ok {
		return fmt.Errorf("quota cloud: delete %s: %w", id, cloud.ErrNotFound)
	}
	delete(q.running, id)
	q.perType[inst.InstanceType]--
	return nil
}

// A Launcher written from scratch and plugged into the simulator: a
// cloud whose account may run no c6a.4xlarge (a quota of 0). Karpenter's
// cheapest choice for ten one-CPU pods is a spot c6a.4xlarge; the launch
// falls through to the next override in the same call, and the refused
// offerings are marked unavailable. The launcher dates its instances on
// the clock the simulator advances (Config.Clock), so readiness and cost
// are in simulated time.
func ExampleLauncher() {
	sc, err := simulator.ParseScenario([]byte(`
seed: 1
duration: 10m
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
- {at: 5m, scale: {deployment: inflate, replicas: 0}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	clock := cloud.NewManualClock(time.Time{}) // the simulator sets it to the scenario's start
	launcher := newQuotaCloud(clock, map[string]int{"c6a.4xlarge": 0})
	res, err := simulator.Run(context.Background(), sc, simulator.Config{Launcher: launcher, Clock: clock})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range res.Timeline {
		switch d.Kind {
		case simulator.KindLaunch, simulator.KindReady, simulator.KindDelete:
			fmt.Println(strings.Join(strings.Fields(fmt.Sprintln(d.At.Duration, d.Kind, d.Nodes[0], d.InstanceType, d.Zone, d.CapacityType)), " "))
		}
	}
	fmt.Printf("skipped %d overrides, the first %v\n", len(launcher.refused), launcher.refused[0])
	ids := make([]string, 0, len(launcher.running))
	for id := range launcher.running {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	fmt.Printf("still running: %v, cost $%.4f\n", ids, res.TotalCost)
	// Output:
	// 1s launch default-00001 m6a.4xlarge us-east-1b spot
	// 1m1s ready default-00001 m6a.4xlarge
	// 5m15s delete default-00001
	// skipped 2 overrides, the first {c6a.4xlarge us-east-1b spot}
	// still running: [], cost $0.0157
}
