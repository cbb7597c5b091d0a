package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/karpsim/karpsim/simulator"
)

// Series is one quantity over a run, as the page draws it and embeds it
// (in its script element karpsim-data): Points are [seconds since the
// start, value], one where the value changed and one at the end of the
// run. A step series holds each value until the next point; a Linear one
// goes straight from point to point.
type Series struct {
	Name   string       `json:"name"`
	Unit   string       `json:"unit"`
	Linear bool         `json:"linear,omitempty"`
	Points [][2]float64 `json:"points"`
}

// At is the series' value at t seconds: a step series' last point at or
// before t, a linear one's interpolation.
func (s Series) At(t float64) float64 {
	i, found := slices.BinarySearchFunc(s.Points, t, func(p [2]float64, t float64) int { return cmp.Compare(p[0], t) })
	switch {
	case found:
		for i+1 < len(s.Points) && s.Points[i+1][0] == t {
			i++
		}
		return s.Points[i][1]
	case i == 0:
		return 0
	case !s.Linear || i == len(s.Points):
		return s.Points[i-1][1]
	}
	a, b := s.Points[i-1], s.Points[i]
	return a[1] + (b[1]-a[1])*(t-a[0])/(b[0]-a[0])
}

// Marker is a decision that removed nodes, drawn on the time axes.
type Marker struct {
	At     float64 `json:"at"`
	Method string  `json:"method"`
	Nodes  int     `json:"nodes"`
	Label  string  `json:"label"`
}

// RunData is what a page draws of one run, all of it from the run's
// events: the node lives and pending levels the simulator records, and its
// timeline.
type RunData struct {
	Name string `json:"name"`
	// End is the run's length in seconds.
	End float64 `json:"end"`
	// Nodes counts the nodes launched and not yet deleted, Registered and
	// Ready those that reached each stage; Pending the pending pods;
	// CostPerHour what the nodes cost an hour; Cost what they cost so far
	// (its last value is the run's total cost).
	Nodes       Series `json:"nodes"`
	Registered  Series `json:"registered"`
	Ready       Series `json:"ready"`
	Pending     Series `json:"pending"`
	CostPerHour Series `json:"costPerHour"`
	Cost        Series `json:"cost"`
	// ByType are the nodes by instance type and capacity type, the
	// largest in node-hours first; the smallest are one band.
	ByType  []Series `json:"byType"`
	Markers []Marker `json:"markers"`
}

// secs is a duration in seconds.
func secs(d time.Duration) float64 { return d.Seconds() }

// delta is a change of one step series at an instant.
type delta struct {
	at float64
	by float64
}

// stepSeries adds up deltas into a step series from 0 at the start: one
// point per instant where the sum changed, and one at end.
func stepSeries(name, unit string, ds []delta, end float64, round func(float64) float64) Series {
	slices.SortStableFunc(ds, func(a, b delta) int { return cmp.Compare(a.at, b.at) })
	s := Series{Name: name, Unit: unit, Points: [][2]float64{{0, 0}}}
	sum := 0.0
	for i, d := range ds {
		sum += d.by
		if i+1 < len(ds) && ds[i+1].at == d.at {
			continue
		}
		v := round(sum)
		last := &s.Points[len(s.Points)-1]
		switch {
		case last[0] == d.at:
			last[1] = v
		case last[1] != v:
			s.Points = append(s.Points, [2]float64{d.at, v})
		}
	}
	return closeSeries(s, end)
}

// closeSeries ends a step series at end with its last value, dropping a
// trailing repeat.
func closeSeries(s Series, end float64) Series {
	last := s.Points[len(s.Points)-1]
	if last[0] < end {
		s.Points = append(s.Points, [2]float64{end, last[1]})
	}
	return s
}

func whole(v float64) float64 { return math.Round(v) }

// round4 rounds dollars as the simulator does.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// maxTypeSeries bounds the instance-type bands of a chart; the rest are
// drawn as one band.
const maxTypeSeries = 7

// runData computes what a page draws of a run from its events.
func runData(name string, r *simulator.Result) RunData {
	end := secs(r.Duration.Duration)
	d := RunData{Name: name, End: end}
	var nodes, registered, ready, cost []delta
	byKind := map[string][]delta{}
	weight := map[string]float64{}
	for _, n := range r.Nodes {
		gone := end
		if n.Deleted != nil {
			gone = secs(n.Deleted.Duration)
		}
		stage := func(ds []delta, from float64, by float64) []delta {
			ds = append(ds, delta{from, by})
			if n.Deleted != nil {
				ds = append(ds, delta{gone, -by})
			}
			return ds
		}
		launched := secs(n.Launched.Duration)
		nodes = stage(nodes, launched, 1)
		cost = stage(cost, launched, n.PricePerHour)
		if n.Registered != nil {
			registered = stage(registered, secs(n.Registered.Duration), 1)
		}
		if n.Ready != nil {
			ready = stage(ready, secs(n.Ready.Duration), 1)
		}
		k := nodeKind(n)
		byKind[k] = stage(byKind[k], launched, 1)
		weight[k] += gone - launched
	}
	d.Nodes = stepSeries("nodes launched", "nodes", nodes, end, whole)
	d.Registered = stepSeries("nodes registered", "nodes", registered, end, whole)
	d.Ready = stepSeries("nodes ready", "nodes", ready, end, whole)
	d.CostPerHour = stepSeries("cost per hour", "$/hour", cost, end, round4)
	d.Cost = cumulative(d.CostPerHour)
	var pending []delta
	last := 0
	for _, l := range r.Pending {
		pending = append(pending, delta{secs(l.At.Duration), float64(l.Pods - last)})
		last = l.Pods
	}
	d.Pending = stepSeries("pending pods", "pods", pending, end, whole)
	kinds := slices.SortedFunc(maps.Keys(weight), func(a, b string) int {
		return cmp.Or(cmp.Compare(weight[b], weight[a]), cmp.Compare(a, b))
	})
	var other []delta
	for i, k := range kinds {
		if i < maxTypeSeries || len(kinds) == maxTypeSeries+1 {
			d.ByType = append(d.ByType, stepSeries(k, "nodes", byKind[k], end, whole))
			continue
		}
		other = append(other, byKind[k]...)
	}
	if len(other) > 0 {
		d.ByType = append(d.ByType, stepSeries(fmt.Sprintf("%d other types", len(kinds)-maxTypeSeries), "nodes", other, end, whole))
	}
	for _, dec := range r.Timeline {
		if method, n := simulator.RemovedNodes(dec); n > 0 {
			d.Markers = append(d.Markers, Marker{At: secs(dec.At.Duration), Method: method, Nodes: n,
				Label: fmt.Sprintf("%s %s: %s", clock(dec.At.Duration), method, dec.Reason)})
		}
	}
	return d
}

// nodeKind is a node's instance type and capacity type.
func nodeKind(n simulator.NodeLife) string { return n.InstanceType + " (" + n.CapacityType + ")" }

// cumulative integrates a $/hour step series into dollars so far.
func cumulative(perHour Series) Series {
	out := Series{Name: "cost so far", Unit: "$", Linear: true}
	sum := 0.0
	for i, p := range perHour.Points {
		if i > 0 {
			prev := perHour.Points[i-1]
			sum += prev[1] * (p[0] - prev[0]) / 3600
		}
		out.Points = append(out.Points, [2]float64{p[0], round4(sum)})
	}
	return out
}

// clock prints an offset as h:mm:ss.
func clock(d time.Duration) string {
	d = d.Round(time.Second)
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	h, m, s := int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
	return fmt.Sprintf("%s%d:%02d:%02d", sign, h, m, s)
}

// lived prints a node's life span briefly: 27m, 3h05m, 2d4h.
func lived(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int64(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int64(d/time.Minute), int64(d%time.Minute/time.Second))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int64(d/time.Hour), int64(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd%dh", int64(d/(24*time.Hour)), int64(d%(24*time.Hour)/time.Hour))
}

// reasonOf is the short reason of a decision, as Karpenter's disruption
// reasons read: Underutilized, Empty, Drifted, Expired, Interrupted; and
// Provisioning or Replacement for launches.
func reasonOf(d simulator.Decision) string {
	if head, _, ok := strings.Cut(d.Reason, "/"); ok && head != "" && !strings.ContainsAny(head, " :") {
		return head
	}
	switch {
	case d.Kind == simulator.KindExpire:
		return "Expired"
	case d.Kind == simulator.KindInterruption:
		return "Interrupted"
	case d.Kind == simulator.KindDrifted:
		return "Drifted"
	case d.Kind == simulator.KindLaunch && strings.HasPrefix(d.Reason, "replacement for"):
		return "Replacement"
	case d.Kind == simulator.KindLaunch:
		return "Provisioning"
	case d.Method == "empty":
		return "Empty"
	case d.Method == "unneeded":
		return "Underutilized"
	}
	return d.Kind
}
