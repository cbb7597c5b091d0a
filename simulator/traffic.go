package simulator

import (
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/snapshot"
)

// arrivalStream is the state of one arrivals step: its random source and
// the pod its arrivals copy.
type arrivalStream struct {
	rng      *rand.Rand
	template *corev1.Pod
	name     string // the Deployment's name
}

// traffic applies a traffic step's tick'th value and schedules the next
// firing while the run lasts.
func (s *sim) traffic(i, tick int) {
	st := s.steps[i].traffic
	want := st.replicasAt(tick)
	if tick == 0 || int(want) != s.replicas(st.deployment) {
		if err := s.scale(&scaleStep{deployment: st.deployment, replicas: want}); err != nil {
			// A Deployment that is missing now is missing at every tick.
			s.decide(Decision{Kind: KindStepFailed, Reason: fmt.Sprintf("steps[%d]: %v", i, err)})
			return
		}
	}
	next := s.start.Add(s.steps[i].at + time.Duration(tick+1)*st.every)
	if !next.After(s.end) {
		s.q.schedule(event{at: next, kind: evTraffic, index: i, tick: tick + 1})
	}
}

// replicas counts the pods a Deployment has (created by scale steps).
func (s *sim) replicas(key string) int {
	n := 0
	for _, p := range s.pods {
		if p.owner == key {
			n++
		}
	}
	return n
}

// startArrivals opens an arrivals step's stream and schedules its first
// arrival.
func (s *sim) startArrivals(i int) error {
	key := s.steps[i].arrivals.deployment
	d := s.deployments[key]
	if d == nil {
		return fmt.Errorf("no Deployment %s in the manifests", key)
	}
	pods, err := s.expand(d, 1)
	if err != nil {
		return err
	}
	if len(pods) != 1 {
		return fmt.Errorf("the template of Deployment %s gives no pod", key)
	}
	if s.arrivals == nil {
		s.arrivals = map[int]*arrivalStream{}
	}
	s.arrivals[i] = &arrivalStream{
		rng:      s.streamSource(i),
		template: pods[0].pod,
		name:     d.Name,
	}
	s.scheduleArrival(i, 0)
	return nil
}

// streamSource is the random source of step i's stream: seeded with the
// run's seed and the step's index, so that other steps do not move it.
func (s *sim) streamSource(i int) *rand.Rand {
	return rand.New(rand.NewPCG(s.sc.Seed, uint64(i)+1))
}

// nextPoisson is when the next event of a Poisson process of perHour an
// hour happens after now, in whole seconds (as Kubernetes timestamps
// are), and whether that is no later than until (an offset from the
// start; zero means the end of the run).
func (s *sim) nextPoisson(rng *rand.Rand, perHour float64, until time.Duration) (time.Time, bool) {
	gap := time.Duration(rng.ExpFloat64() / perHour * float64(time.Hour)).Round(time.Second)
	at := s.now.Add(gap)
	last := s.end
	if until > 0 {
		last = s.start.Add(until)
	}
	return at, !at.After(last)
}

// scheduleArrival schedules the tick'th arrival of step i, unless it falls
// after the step's end.
func (s *sim) scheduleArrival(i, tick int) {
	st := s.steps[i].arrivals
	if at, ok := s.nextPoisson(s.arrivals[i].rng, st.perHour, st.until); ok {
		s.q.schedule(event{at: at, kind: evArrival, index: i, tick: tick})
	}
}

// startInterruptions opens a random interruptions step's stream and
// schedules its first notice.
func (s *sim) startInterruptions(i int) {
	if s.interrupts == nil {
		s.interrupts = map[int]*rand.Rand{}
	}
	s.interrupts[i] = s.streamSource(i)
	s.scheduleInterruption(i)
}

func (s *sim) scheduleInterruption(i int) {
	st := s.steps[i].interrupt
	if at, ok := s.nextPoisson(s.interrupts[i], st.perHour, st.until); ok {
		s.q.schedule(event{at: at, kind: evInterruption, index: i})
	}
}

// randomInterruption sends one of step i's notices, to count spot nodes
// (at least 1) chosen with the step's source, and schedules the next.
func (s *sim) randomInterruption(i int) {
	if _, ok := s.launcher.(Interrupter); !ok {
		s.decide(Decision{Kind: KindStepFailed, Reason: fmt.Sprintf("steps[%d]: the launcher (%T) cannot send interruptions", i, s.launcher)})
		return
	}
	// No spot node to interrupt: the notice is dropped.
	_ = s.interrupt(s.steps[i].interrupt, s.interrupts[i])
	s.scheduleInterruption(i)
}

// arrive creates step i's tick'th pod, pending, and schedules its
// departure and the next arrival.
func (s *sim) arrive(i, tick int) {
	a := s.arrivals[i]
	p := a.template.DeepCopy()
	p.Name = fmt.Sprintf("%s-arrival%d-%05d", a.name, i, tick)
	p.UID = snapshot.PodUID(p.Namespace, p.Name)
	p.CreationTimestamp = metav1.NewTime(s.now)
	sp := &simPod{key: apis.PodKey(p), pod: p}
	s.pods[sp.key] = sp
	s.makePending(sp)
	life := max(time.Second, time.Duration(a.rng.ExpFloat64()*float64(s.steps[i].arrivals.meanLifetime)).Round(time.Second))
	if leave := s.now.Add(life); !leave.After(s.end) {
		s.q.schedule(event{at: leave, kind: evDeparture, ref: sp.key})
	}
	s.decide(Decision{Kind: KindArrive, Pods: 1, Reason: fmt.Sprintf("pod %s arrived (steps[%d]), leaves after %v", sp.key, i, life)})
	s.scheduleArrival(i, tick+1)
}

// depart deletes an arrived pod at the end of its lifetime.
func (s *sim) depart(key string) {
	p := s.pods[key]
	if p == nil {
		return
	}
	where := "while pending"
	if p.node != "" {
		where = "from node " + p.node
	}
	s.deletePod(p)
	s.decide(Decision{Kind: KindDepart, Pods: 1, Reason: fmt.Sprintf("pod %s left %s", key, where)})
}
