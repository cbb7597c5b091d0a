// Package report turns results into one self-contained HTML file that a
// person reads at a glance: a simulation's nodes by instance type, cost,
// pending pods and disruptions over time (Simulate); two runs of a
// comparison on shared axes (Compare); a sweep's cost per variant and its
// cost against pending time (Sweep). The charts are inline SVG drawn with
// gonum.org/v1/plot; the file loads nothing from the network.
//
// Each function takes results as values and returns the page as bytes: it
// reads and writes no file, so the caller decides where the page goes.
package report

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/karpsim/karpsim/simulator"
	"github.com/karpsim/karpsim/sweep"
)

// Comparison is the same scenario run under two autoscalers, as `karpsim
// compare -o json` prints it.
type Comparison struct {
	Karpenter         *simulator.Result `json:"karpenter"`
	ClusterAutoscaler *simulator.Result `json:"clusterAutoscaler"`
}

// page is what the template lays out.
type page struct {
	Title    string
	Subtitle string
	Tables   []table
	Charts   []chart
}

type table struct {
	Caption string
	Head    []string
	Rows    [][]string
}

type chart struct {
	Caption string
	SVG     template.HTML
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="karpsim">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", "Liberation Sans", sans-serif; margin: 2rem auto; max-width: 70rem; padding: 0 1rem; color: #1a1a1a; background: #fff; }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem; }
p.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 1rem 0 2rem; font-size: 0.9rem; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.4rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.8rem; text-align: right; }
th:nth-child(-n+2), td:nth-child(-n+2) { text-align: left; }
figure { margin: 0 0 2rem; }
figcaption { font-weight: 600; margin-bottom: 0.3rem; }
svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="sub">{{.Subtitle}}</p>
{{range .Tables}}<table>
<caption>{{.Caption}}</caption>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}{{range .Charts}}<figure>
{{.SVG}}
</figure>
{{end}}<script>document.documentElement.dataset.rendered = "yes";</script>
</body>
</html>
`))

func (p page) render() ([]byte, error) {
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Simulate is the report of one simulation.
func Simulate(r *simulator.Result) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("report: no simulation result")
	}
	p := page{Title: "karpsim simulation: " + cmp.Or(r.Scenario, "(unnamed)"),
		Subtitle: fmt.Sprintf("seed %d, %v from %s", r.Seed, r.Duration.Duration, r.Start.UTC().Format(time.RFC3339))}
	p.Tables = append(p.Tables, summaryTable("Summary", []string{"run"}, []*simulator.Result{r}))
	charts, err := timeCharts([]*simulator.Result{r}, []string{"run"})
	if err != nil {
		return nil, err
	}
	p.Charts = charts
	return p.render()
}

// Compare is the report of one scenario under both autoscalers, on shared
// axes.
func Compare(c Comparison) ([]byte, error) {
	if c.Karpenter == nil || c.ClusterAutoscaler == nil {
		return nil, fmt.Errorf("report: a comparison needs both results (karpenter and clusterAutoscaler)")
	}
	runs := []*simulator.Result{c.Karpenter, c.ClusterAutoscaler}
	names := []string{"Karpenter", "Cluster Autoscaler"}
	p := page{Title: "karpsim comparison: " + cmp.Or(c.Karpenter.Scenario, "(unnamed)"),
		Subtitle: fmt.Sprintf("seed %d, %v from %s", c.Karpenter.Seed, c.Karpenter.Duration.Duration, c.Karpenter.Start.UTC().Format(time.RFC3339))}
	p.Tables = append(p.Tables, summaryTable("Summary", names, runs))
	charts, err := timeCharts(runs, names)
	if err != nil {
		return nil, err
	}
	p.Charts = charts
	return p.render()
}

// summaryTable has a column per run.
func summaryTable(caption string, names []string, runs []*simulator.Result) table {
	t := table{Caption: caption, Head: append([]string{""}, names...)}
	row := func(label string, f func(r *simulator.Result) string) {
		cells := []string{label}
		for _, r := range runs {
			cells = append(cells, f(r))
		}
		t.Rows = append(t.Rows, cells)
	}
	row("total cost", func(r *simulator.Result) string { return fmt.Sprintf("$%.2f", r.TotalCost) })
	row("peak nodes", func(r *simulator.Result) string { return fmt.Sprint(peakNodes(r)) })
	row("final nodes", func(r *simulator.Result) string { return fmt.Sprint(r.Final.Nodes) })
	row("launches", func(r *simulator.Result) string { return fmt.Sprint(r.Launches) })
	row("pending p50 / p90 / p99 / max", func(r *simulator.Result) string {
		pt := r.PendingTime
		return fmt.Sprintf("%v / %v / %v / %v", pt.P50.Duration, pt.P90.Duration, pt.P99.Duration, pt.Max.Duration)
	})
	row("pods still pending at the end", func(r *simulator.Result) string { return fmt.Sprint(r.PendingTime.StillPending) })
	row("nodes disrupted", func(r *simulator.Result) string {
		var parts []string
		for _, m := range slices.Sorted(maps.Keys(r.DisruptionsByMethod)) {
			parts = append(parts, fmt.Sprintf("%s %d", m, r.DisruptionsByMethod[m]))
		}
		return cmp.Or(strings.Join(parts, ", "), "none")
	})
	return t
}

func peakNodes(r *simulator.Result) int {
	peak := r.Final.Nodes
	for _, s := range r.Samples {
		peak = max(peak, s.Nodes)
	}
	return peak
}

// timeCharts are the charts over time: nodes by instance type and capacity
// type (for each run), then $/hour and pending pods with every run's line,
// disruptions marked.
func timeCharts(runs []*simulator.Result, names []string) ([]chart, error) {
	var out []chart
	var marks []float64
	for i, r := range runs {
		ss := nodesByType(r)
		m := disruptionTimes(r)
		marks = append(marks, m...)
		title := "Nodes by instance type and capacity type"
		if len(runs) > 1 {
			title += " — " + names[i]
		}
		s, err := stackedChart(title, "nodes", ss, m, "disruption")
		if err != nil {
			return nil, err
		}
		out = append(out, chart{title, template.HTML(s)})
	}
	slices.Sort(marks)
	marks = slices.Compact(marks)
	lines := func(f func(simulator.Sample) float64) []series {
		var ss []series
		for i, r := range runs {
			s := series{name: names[i]}
			for _, sample := range r.Samples {
				s.xs = append(s.xs, hours(sample.At.Duration))
				s.ys = append(s.ys, f(sample))
			}
			s.xs = append(s.xs, hours(r.Final.At.Duration))
			s.ys = append(s.ys, f(r.Final))
			ss = append(ss, s)
		}
		return ss
	}
	for _, c := range []struct {
		title, unit string
		f           func(simulator.Sample) float64
	}{
		{"Cost per hour", "$/hour", func(s simulator.Sample) float64 { return s.CostPerHour }},
		{"Pending pods", "pods", func(s simulator.Sample) float64 { return float64(s.PendingPods) }},
	} {
		s, err := lineChart(c.title, c.unit, lines(c.f), marks, "disruption")
		if err != nil {
			return nil, err
		}
		out = append(out, chart{c.title, template.HTML(s)})
	}
	// Nodes: for one run by lifecycle, for several one line each.
	title, ss := "Nodes launched", lines(func(s simulator.Sample) float64 { return float64(s.Nodes) })
	if len(runs) == 1 {
		title = "Nodes launched, registered and ready"
		ss[0].name = "launched"
		for _, f := range []struct {
			name string
			f    func(simulator.Sample) float64
		}{
			{"registered", func(s simulator.Sample) float64 { return float64(s.Registered) }},
			{"ready", func(s simulator.Sample) float64 { return float64(s.Ready) }},
		} {
			l := lines(f.f)[0]
			l.name = f.name
			ss = append(ss, l)
		}
	}
	s, err := lineChart(title, "nodes", ss, marks, "disruption")
	if err != nil {
		return nil, err
	}
	return append(out, chart{title, template.HTML(s)}), nil
}

func hours(d time.Duration) float64 { return d.Hours() }

// disruptionTimes are the times, in hours, of the decisions that deleted
// nodes.
func disruptionTimes(r *simulator.Result) []float64 {
	var out []float64
	for _, d := range r.Timeline {
		if _, n := simulator.RemovedNodes(d); n > 0 {
			out = append(out, hours(d.At.Duration))
		}
	}
	return out
}

// maxTypeSeries bounds the instance-type bands of a chart; the rest are
// drawn as one band.
const maxTypeSeries = 7

// nodesByType counts, at each sample, the nodes of each instance type and
// capacity type, from the timeline's launches and the decisions that
// deleted nodes; nodes the run started with (never launched) are one band.
// The bands are ordered by node-hours, largest at the bottom.
func nodesByType(r *simulator.Result) []series {
	type life struct {
		kind       string
		start, end time.Duration
	}
	lives := map[string]*life{}
	end := r.Final.At.Duration
	for _, d := range r.Timeline {
		switch d.Kind {
		case simulator.KindLaunch:
			for _, n := range d.Nodes {
				lives[n] = &life{kind: d.InstanceType + " (" + d.CapacityType + ")", start: d.At.Duration, end: end + time.Nanosecond}
			}
		default:
			if _, n := simulator.RemovedNodes(d); n > 0 {
				for _, name := range d.Nodes {
					if l := lives[name]; l != nil {
						l.end = d.At.Duration
					}
				}
			}
		}
	}
	samples := append(slices.Clone(r.Samples), r.Final)
	weight := map[string]float64{}
	for _, l := range lives {
		weight[l.kind] += (min(l.end, end) - l.start).Hours()
	}
	kinds := slices.SortedFunc(maps.Keys(weight), func(a, b string) int {
		return cmp.Or(cmp.Compare(weight[b], weight[a]), cmp.Compare(a, b))
	})
	shown := kinds[:min(len(kinds), maxTypeSeries)]
	var out []series
	index := map[string]int{}
	for i, k := range shown {
		index[k] = i
		out = append(out, series{name: k})
	}
	other, existing := len(out), len(out)+1
	out = append(out, series{name: "other types"}, series{name: "nodes the run started with"})
	for _, s := range samples {
		t := s.At.Duration
		counts := make([]float64, len(out))
		launched := 0
		for _, l := range lives {
			if l.start <= t && t < l.end {
				launched++
				if i, ok := index[l.kind]; ok {
					counts[i]++
				} else {
					counts[other]++
				}
			}
		}
		counts[existing] = float64(max(s.Nodes-launched, 0))
		for i := range out {
			out[i].xs = append(out[i].xs, hours(t))
			out[i].ys = append(out[i].ys, counts[i])
		}
	}
	// Bands that are empty throughout would only clutter the legend.
	return slices.DeleteFunc(out, func(s series) bool { return slices.Max(append([]float64{0}, s.ys...)) == 0 })
}

// Sweep is the report of a sweep: its rows as a table, then per scenario
// the cost of each variant (bars with their min and max over seeds), then
// every row's cost against its pending p99.
func Sweep(r *sweep.Result) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("report: no sweep result")
	}
	p := page{Title: "karpsim sweep: " + cmp.Or(r.Name, "(unnamed)"),
		Subtitle: fmt.Sprintf("%d runs, %d failed; * marks each scenario's cheapest variant", len(r.Runs), r.Failed())}
	t := table{Caption: "Rows", Head: []string{"scenario", "variant", "runs", "cost mean", "min", "max", "peak nodes", "pending p50", "pending p99", "disruptions"}}
	var scenarios []string
	for _, row := range r.Rows {
		if !slices.Contains(scenarios, row.Scenario) {
			scenarios = append(scenarios, row.Scenario)
		}
		v := row.Variant
		if row.Best {
			v += " *"
		}
		if row.Failed == row.Runs {
			t.Rows = append(t.Rows, []string{row.Scenario, v, fmt.Sprint(row.Runs), "failed: " + row.Error, "", "", "", "", "", ""})
			continue
		}
		t.Rows = append(t.Rows, []string{row.Scenario, v, fmt.Sprint(row.Runs), fmt.Sprintf("$%.2f", row.CostMean),
			fmt.Sprintf("$%.2f", row.CostMin), fmt.Sprintf("$%.2f", row.CostMax), fmt.Sprint(row.PeakNodes),
			row.PendingP50.Duration.String(), row.PendingP99.Duration.String(), fmt.Sprintf("%.2f", row.Disruptions)})
	}
	p.Tables = append(p.Tables, t)
	var pts []point
	for g, sc := range scenarios {
		var bars []bar
		for _, row := range r.Rows {
			if row.Scenario != sc || row.Failed == row.Runs {
				continue
			}
			bars = append(bars, bar{name: row.Variant, value: row.CostMean, lo: row.CostMin, hi: row.CostMax, best: row.Best})
			pts = append(pts, point{label: row.Variant, x: row.PendingP99.Seconds(), y: row.CostMean, group: g})
		}
		if len(bars) == 0 {
			continue
		}
		title := "Total cost per variant — " + sc
		s, err := barChart(title, "total cost ($)", bars)
		if err != nil {
			return nil, err
		}
		p.Charts = append(p.Charts, chart{title, template.HTML(s)})
	}
	if len(pts) > 0 {
		title := "Cost against pending time: the trade-off to pick from"
		s, err := scatterChart(title, "pending p99 (seconds, mean over seeds)", "total cost ($, mean over seeds)", pts, scenarios)
		if err != nil {
			return nil, err
		}
		p.Charts = append(p.Charts, chart{title, template.HTML(s)})
	}
	return p.render()
}
