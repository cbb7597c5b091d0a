package scheduling

import (
	"fmt"
	"slices"
)

// Explanation is every decision a solve took about one pod.
type Explanation struct {
	Pod string `json:"pod"`
	// Requests are the pod's requests, pods: 1 included.
	Requests map[string]string `json:"requests"`
	// Attempts are the tries in order; a try that failed is followed by
	// one with a preference relaxed, or by the pod's next turn in the queue.
	Attempts []Attempt `json:"attempts"`
	// Outcome is where the pod went, or why it went nowhere.
	Outcome string `json:"outcome"`
	// NodeOrder and NodePoolOrder name every existing node and every
	// NodePool in the order the solve tries them (the solver's own lists):
	// an attempt's verdicts are a prefix of them, and what an attempt did
	// not reach comes after.
	NodeOrder     []string `json:"-"`
	NodePoolOrder []string `json:"-"`
}

// Attempt is one try to place the pod.
type Attempt struct {
	// Relaxations is how many preferences were dropped before this try.
	Relaxations int `json:"relaxations"`
	// Requirements are the pod's node requirements in this try.
	Requirements string `json:"requirements"`
	// Nodes, Claims and NodePools are the verdicts of every existing node,
	// claim of this solve and NodePool considered, in the order tried; a
	// try stops at the first that accepts.
	Nodes     []Verdict `json:"nodes,omitempty"`
	Claims    []Verdict `json:"claims,omitempty"`
	NodePools []Verdict `json:"nodePools,omitempty"`
}

// Verdict is one option's answer to the pod.
type Verdict struct {
	Name     string `json:"name"`
	Accepted bool   `json:"accepted"`
	Reason   string `json:"reason,omitempty"`
}

// Explain solves the input and reports every decision about the pod named
// "namespace/name". The Result is the same as Solve's.
func Explain(in Input, pod string) (Result, Explanation, error) {
	s := newSolver(in)
	idx := slices.IndexFunc(s.pods, func(p *podInfo) bool { return p.key == pod })
	if idx < 0 {
		return Result{}, Explanation{}, fmt.Errorf("pod %q is not among the %d pods to place", pod, len(s.pods))
	}
	target := s.pods[idx]
	s.trace = &Explanation{Pod: pod, Requests: target.requests.Strings()}
	for _, e := range s.existing {
		s.trace.NodeOrder = append(s.trace.NodeOrder, e.node.Name)
	}
	for _, t := range s.templates {
		s.trace.NodePoolOrder = append(s.trace.NodePoolOrder, t.name)
	}
	s.run()
	r := s.result()
	e := *s.trace
	e.Outcome = outcome(r, pod)
	return r, e, nil
}

func outcome(r Result, pod string) string {
	for _, b := range r.Bindings {
		if b.Pod == pod {
			return "bound to existing node " + b.Node
		}
	}
	for _, c := range r.NodeClaims {
		if slices.Contains(c.Pods, pod) {
			return fmt.Sprintf("placed on new NodeClaim %s (%s, %s %s in %s, $%.4f/hour)", c.Name, c.NodePool, c.CapacityType, c.InstanceType, c.Zone, c.PricePerHour)
		}
	}
	for _, u := range r.Unschedulable {
		if u.Pod == pod {
			return "unschedulable: " + u.Reason
		}
	}
	return "not placed"
}

// traces reports whether decisions about p are being recorded.
func (s *solver) traces(p *podInfo) bool { return s.trace != nil && p.key == s.trace.Pod }

// traceStart opens the record of a new attempt to place p.
func (s *solver) traceStart(p *podInfo) *Attempt {
	s.trace.Attempts = append(s.trace.Attempts, Attempt{Relaxations: p.relaxations(), Requirements: p.reqs.String()})
	return &s.trace.Attempts[len(s.trace.Attempts)-1]
}

// verdictKind says which list of an Attempt a verdict goes to.
type verdictKind int

const (
	nodeVerdict verdictKind = iota
	claimVerdict
	poolVerdict
)

// record appends a verdict to the attempt; a nil attempt records nothing,
// and why is only called for a refusal that is recorded.
func (a *Attempt) record(kind verdictKind, name string, accepted bool, why func() error) {
	if a == nil {
		return
	}
	v := Verdict{Name: name, Accepted: accepted}
	if !accepted {
		v.Reason = why().Error()
	}
	switch kind {
	case nodeVerdict:
		a.Nodes = append(a.Nodes, v)
	case claimVerdict:
		a.Claims = append(a.Claims, v)
	default:
		a.NodePools = append(a.NodePools, v)
	}
}
