package scenariogen

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/invariants"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/simulator"
	"github.com/karpsim/karpsim/snapshot"
)

// Check runs a scenario's manifests through one provisioning plan and one
// disruption evaluation at the scenario's start, each checked with package
// invariants, and, when it has steps or lasts more than a second, through
// the simulator with Config.CheckInvariants. It returns every violation
// found; the error is about the scenario itself
// (a manifest karpsim refuses), which a generated case must never have.
func Check(ctx context.Context, sc simulator.Scenario) ([]Finding, error) {
	set, err := manifests.Decode("inline", []byte(sc.Inline))
	if err != nil {
		return nil, err
	}
	var out []Finding
	add := func(phase string, vs []invariants.Violation) {
		for _, v := range vs {
			out = append(out, Finding{Phase: phase, Violation: v})
		}
	}
	snap, err := snapshot.FromSet(set, options)
	if err != nil {
		return nil, err
	}
	in := snap.Input(scheduling.Options{})
	add("plan", invariants.CheckPlan(in, scheduling.Solve(in)))
	start := simulator.DefaultStart()
	if !sc.Start.IsZero() {
		start = sc.Start.UTC()
	}
	d, err := snapshot.ForDisruption(set, options, start)
	if err != nil {
		return nil, err
	}
	add("disrupt", invariants.CheckDisruption(d.Cluster, consolidation.Evaluate(d.Cluster, start, consolidation.Options{}), start))
	if len(sc.Steps) == 0 && sc.Duration.Duration <= 1e9 {
		return out, nil
	}
	res, err := simulator.Run(ctx, sc, simulator.Config{CheckInvariants: true, Snapshot: options})
	if err != nil {
		return out, err
	}
	for _, v := range res.Violations {
		out = append(out, Finding{Phase: "simulate", At: v.At.Duration, Violation: v.Violation})
	}
	return out, nil
}

// Finding is a violation and where Check found it: in the plan, the
// disruption evaluation, or the simulation (At into the run).
type Finding struct {
	Phase     string
	At        time.Duration
	Violation invariants.Violation
}

func (f Finding) String() string {
	if f.Phase == "simulate" {
		return fmt.Sprintf("%s +%s: %s", f.Phase, f.At, f.Violation)
	}
	return f.Phase + ": " + f.Violation.String()
}

// options read every case with one catalog per EC2NodeClass spec, modelled
// once: the EC2 model is the same for every case, and modelling it anew
// would cost more than a case.
var options = snapshot.Options{Catalog: cachedCatalog}

var catalogs sync.Map // EC2NodeClass spec JSON → instancetypes.Catalog

func cachedCatalog(nc *apis.EC2NodeClass) (instancetypes.Catalog, error) {
	key := ""
	if nc != nil {
		b, err := json.Marshal(nc.Spec)
		if err != nil {
			return nil, err
		}
		key = string(b)
	}
	if c, ok := catalogs.Load(key); ok {
		return c.(instancetypes.Catalog), nil
	}
	c, err := snapshot.Options{}.CatalogFor(nc)
	if err != nil {
		return nil, err
	}
	catalogs.Store(key, c)
	return c, nil
}
