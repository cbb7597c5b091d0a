package simulator

import (
	"cmp"
	"fmt"
	"math"
	"time"

	"github.com/karpsim/karpsim/snapshot"
)

// maxEvents bounds the events a run's steps imply (traffic firings,
// arrivals and departures, interruption notices): a traffic step firing
// every second for a year is 31 million of them, a run of minutes that
// tells nothing a firing a minute would not.
const maxEvents = 10_000_000

// work is what a run implies, estimated from the scenario before it
// starts: random steps count their expected events (rate × time).
type work struct {
	// created are the pods the steps create: arrivals, the replicas of
	// scale steps, and each rise of a traffic curve.
	created float64
	// live is the most pods alive at once: each Deployment's highest
	// replicas plus each arrivals step's mean live pods (rate × mean
	// lifetime, Little's law, within the step's window).
	live float64
	// events are the steps' firings.
	events float64
	// most are the steps that add most to each sum, for errors.
	mostCreated, mostLive, mostEvents stepShare
}

// stepShare is one step's part of a sum.
type stepShare struct {
	step   int
	amount float64
	what   string
}

func (s *stepShare) offer(i int, amount float64, what string) {
	if amount > s.amount {
		*s = stepShare{step: i, amount: amount, what: what}
	}
}

// CheckWork refuses a scenario whose run would create more pods than
// cfg.Snapshot.MaxPods (default snapshot.DefaultMaxPods), hold more alive
// at once, or fire its steps more than ten million times, naming the step
// that adds most; Run checks the same. It is for callers that load
// scenarios well before running them (a sweep), to refuse at load what
// would take minutes or gigabytes.
func CheckWork(sc Scenario, cfg Config) error {
	steps, err := sc.compile(&placer{})
	if err != nil {
		return err
	}
	return checkWork(sc, steps, cfg, stepIndex)
}

// checkWork is CheckWork over compiled steps.
func checkWork(sc Scenario, steps []step, cfg Config, where func(int) string) error {
	// A result prints its times as RFC 3339, which ends with the year 9999.
	if start := sc.Start.UTC(); !sc.Start.IsZero() && start.Add(sc.Duration.Duration).Year() > 9999 {
		return fmt.Errorf("%w: start %s plus duration %v ends after the year 9999, the last a result can hold",
			ErrInvalidScenario, start.Format(time.RFC3339), sc.Duration.Duration)
	}
	w := estimateWork(sc.Duration.Duration, steps)
	limit := float64(cmp.Or(cfg.Snapshot.MaxPods, snapshot.DefaultMaxPods))
	const raise = "karpsim's --max-pods, snapshot.Options.MaxPods in simulator.Config.Snapshot, raises it"
	switch {
	case w.live > limit:
		return fmt.Errorf("%w: %s: %s: about %s pods alive at once; the run would hold about %s, more than %s, the most a run holds (%s)",
			ErrInvalidScenario, where(w.mostLive.step), w.mostLive.what, count(w.mostLive.amount), count(w.live), count(limit), raise)
	case w.created > limit:
		return fmt.Errorf("%w: %s: %s: about %s pods created; the run would create about %s, more than %s, the most a run creates (%s)",
			ErrInvalidScenario, where(w.mostCreated.step), w.mostCreated.what, count(w.mostCreated.amount), count(w.created), count(limit), raise)
	case w.events > maxEvents:
		return fmt.Errorf("%w: %s: %s: about %s firings; the steps would fire about %s times, more than %s (fire less often, or run for less time)",
			ErrInvalidScenario, where(w.mostEvents.step), w.mostEvents.what, count(w.mostEvents.amount), count(w.events), count(maxEvents))
	}
	return nil
}

// estimateWork sums what each step implies over a run of duration d.
func estimateWork(d time.Duration, steps []step) work {
	var w work
	replicas := map[string]float64{} // the most each Deployment has
	for i, st := range steps {
		window := func(until time.Duration) time.Duration {
			end := d
			if until > 0 && until < d {
				end = until
			}
			return max(end-st.at, 0)
		}
		if st.at > d {
			continue
		}
		switch {
		case st.scale != nil:
			n := float64(st.scale.replicas)
			w.created += n
			w.mostCreated.offer(i, n, fmt.Sprintf("its %d replicas", st.scale.replicas))
			replicas[st.scale.deployment] = max(replicas[st.scale.deployment], n)
			w.events++
		case st.traffic != nil:
			t := st.traffic
			span := window(0)
			firings := float64(span/t.every) + 1
			created := t.created(span, firings)
			what := fmt.Sprintf("traffic every %v over %v", t.every, span)
			w.created += created
			w.mostCreated.offer(i, created, what)
			w.events += firings
			w.mostEvents.offer(i, firings, what)
			replicas[t.deployment] = max(replicas[t.deployment], float64(t.most()))
		case st.arrivals != nil:
			a := st.arrivals
			span := window(a.until)
			n := a.perHour * span.Hours()
			live := math.Min(n, a.perHour*math.Min(a.meanLifetime.Hours(), span.Hours()))
			what := fmt.Sprintf("arrivals of %v an hour over %v with a mean lifetime of %v", a.perHour, span, a.meanLifetime)
			w.created += n
			w.mostCreated.offer(i, n, what)
			w.live += live
			w.mostLive.offer(i, live, what)
			w.events += 2 * n
			w.mostEvents.offer(i, 2*n, what)
		case st.interrupt != nil && st.interrupt.perHour > 0:
			n := st.interrupt.perHour * window(st.interrupt.until).Hours()
			w.events += n
			w.mostEvents.offer(i, n, fmt.Sprintf("interruptions of %v an hour", st.interrupt.perHour))
		default:
			w.events++
		}
	}
	for i, st := range steps {
		var key string
		switch {
		case st.scale != nil:
			key = st.scale.deployment
		case st.traffic != nil:
			key = st.traffic.deployment
		default:
			continue
		}
		w.live += replicas[key]
		w.mostLive.offer(i, replicas[key], "the replicas of Deployment "+key)
		delete(replicas, key) // counted once
	}
	return w
}

// most is the curve's highest value.
func (t *trafficStep) most() int32 {
	most := t.max
	for _, r := range t.replicas {
		most = max(most, r)
	}
	return most
}

// created bounds the pods a traffic step creates over span (firings
// times): every rise of the curve, from 0 at the first firing.
func (t *trafficStep) created(span time.Duration, firings float64) float64 {
	if len(t.replicas) > 0 {
		var first, rises float64
		prev := t.replicas[len(t.replicas)-1]
		for k, r := range t.replicas {
			if r > prev {
				rises += float64(r - prev)
			}
			if k == 0 {
				first = float64(r)
			}
			prev = r
		}
		return first + rises*math.Ceil(firings/float64(len(t.replicas)))
	}
	periods := math.Floor(float64(span)/float64(t.period)) + 1
	return math.Min(float64(t.max)+float64(t.max-t.min)*periods, firings*float64(t.max))
}

// count prints an estimate rounded to a whole number, with commas.
func count(f float64) string {
	if f >= math.MaxInt64/2 {
		return fmt.Sprintf("%.3g", f)
	}
	n := int64(math.Round(f))
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
