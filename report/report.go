// Package report turns results into one self-contained HTML file that a
// person reads at a glance: a simulation's nodes by instance type, nodes,
// pending pods, cost and disruptions over time, its decisions, where its
// nodes and money went, and a row per node; two runs of a comparison on
// shared axes with what Karpenter saves; a sweep's cost per variant and its
// cost against pending time. The time charts are step functions of a run's
// events (simulator.Result's Nodes and Pending), drawn here as inline SVG
// and embedded as JSON; the sweep's charts are drawn with gonum.org/v1/plot.
// The file loads nothing from the network.
//
// Each function takes results as values and returns the page as bytes: it
// reads and writes no file, so the caller decides where the page goes.
package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"maps"
	"math"
	"slices"
	"strconv"
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

// page is what the template lays out: its tables, then its sections, then
// its charts; Data is the JSON embedded for tools and tests.
type page struct {
	Title    string
	Subtitle string
	Note     string
	Tables   []table
	Sections []template.HTML
	Charts   []chart
	Data     template.JS
}

type table struct {
	Caption string
	Head    []string
	Rows    [][]string
}

type chart struct {
	Caption string
	// Legend is the chart's legend, in HTML beside the plot.
	Legend template.HTML
	SVG    template.HTML
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="karpsim">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", "Liberation Sans", "DejaVu Sans", Arial, sans-serif; margin: 1.5rem auto; max-width: 68rem; padding: 0 1rem; color: #1a1a1a; background: #fff; }
svg text { font-family: inherit; }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 0.5rem; }
p.sub { color: #555; margin-top: 0; }
p.note { color: #333; font-size: 0.9rem; max-width: 60rem; }
p.headline { font-size: 1.3rem; font-weight: 600; margin: 0.8rem 0; }
p.headline.saves { color: #0b6e3d; } p.headline.costs { color: #a11; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.85rem; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.4rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: right; vertical-align: middle; }
th:first-child, td:first-child, td.l, th.l { text-align: left; }
td.reason { text-align: left; max-width: 26rem; color: #333; }
figure { margin: 0 0 1.6rem; }
figcaption { font-weight: 600; margin-bottom: 0.2rem; }
svg { max-width: 100%; height: auto; }
.legend { display: flex; flex-wrap: wrap; gap: 0.2rem 1rem; font-size: 0.8rem; margin-bottom: 0.2rem; color: #333; }
.key i { display: inline-block; width: 14px; height: 10px; margin-right: 0.3rem; vertical-align: baseline; }
.key i.band { background: var(--c); }
.key i.line { height: 0; border-top: 3px solid var(--c); vertical-align: middle; }
.key i.line.dashed { border-top-style: dashed; }
.key i.tri { width: 0; height: 0; border-left: 6px solid transparent; border-right: 6px solid transparent; border-top: 9px solid var(--c); }
.key i.sq { width: 9px; height: 9px; background: var(--c); }
svg .grid { stroke: #e3e3e3; stroke-width: 1; }
svg .axisline { stroke: #888; }
svg .tick { font-size: 11px; fill: #444; }
svg .axis { font-size: 12px; fill: #222; }
svg .series { fill: none; stroke-width: 2; }
svg .band { stroke: none; }
svg .marker line { stroke-width: 1; opacity: 0.35; }
svg .marker:hover line { opacity: 1; stroke-width: 2; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(30rem, 1fr)); gap: 0 1.5rem; }
.filter { font-size: 0.85rem; margin: 0.3rem 0; display: flex; gap: 0.8rem; align-items: center; flex-wrap: wrap; }
.filter select, .filter input { font: inherit; padding: 0.1rem 0.3rem; }
.scroll { max-height: 32rem; overflow: auto; border: 1px solid #eee; }
.scroll td, .scroll th, .grid2 td { white-space: nowrap; }
.scroll table { font-size: 0.8rem; } .scroll td, .scroll th { padding: 0.2rem 0.4rem; }
.scroll td.reason { white-space: normal; min-width: 16rem; }
.grid2 > table { align-self: start; }
.scroll table { margin: 0; width: 100%; }
.scroll thead th { position: sticky; top: 0; background: #f6f6f6; }
.bar { white-space: nowrap; }
.bar svg { vertical-align: middle; margin-right: 0.3rem; max-width: none; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="sub">{{.Subtitle}}</p>
{{if .Note}}<p class="note">{{.Note}}</p>
{{end}}{{range .Tables}}<table>
<caption>{{.Caption}}</caption>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}{{range .Sections}}{{.}}
{{end}}{{range .Charts}}<figure>
{{if .Legend}}<div class="legend">{{.Legend}}</div>
{{end}}{{.SVG}}
</figure>
{{end}}{{if .Data}}<script type="application/json" id="karpsim-data">{{.Data}}</script>
{{end}}<script>
(function () {
  for (const box of document.querySelectorAll(".decisions")) {
    const method = box.querySelector("select"), text = box.querySelector("input"), count = box.querySelector(".count");
    const rows = Array.from(box.querySelectorAll("tbody tr"));
    const apply = function () {
      const m = method.value, t = text.value.trim().toLowerCase();
      let shown = 0;
      for (const r of rows) {
        const ok = (m === "" || r.dataset.method === m || (m === "*removed" && r.dataset.removed === "1")) &&
          (t === "" || r.textContent.toLowerCase().includes(t));
        r.hidden = !ok;
        if (ok) shown++;
      }
      count.textContent = shown + " of " + rows.length + " decisions shown";
    };
    // A link may choose the method: report.html#method=emptiness.
    const m = /^#method=(.+)$/.exec(location.hash);
    if (m && Array.from(method.options).some(function (o) { return o.value === decodeURIComponent(m[1]); })) {
      method.value = decodeURIComponent(m[1]);
    }
    method.addEventListener("change", apply);
    text.addEventListener("input", apply);
    apply();
  }
  document.documentElement.dataset.rendered = "yes";
})();
</script>
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

// seriesNote says on the page what the series are.
const seriesNote = "Every chart is drawn from the run's events, not from its periodic samples: each series is an exact step " +
	"function that changes at the instant of a launch, registration, readiness, binding, deletion or interruption, as the " +
	"simulator recorded them (its node lives and pending levels); the cost so far is their integral. The markers above a chart " +
	"are the decisions that removed nodes, one colour per disruption method; hover one to see the decision. The series drawn " +
	"are embedded in the page as JSON (script#karpsim-data)."

// checkEvents refuses a result without the node lives and pending levels
// the charts are drawn from: one written by an older karpsim.
func checkEvents(name string, r *simulator.Result) error {
	if r.Pending == nil || (len(r.Nodes) == 0 && (r.Launches > 0 || r.Final.Nodes > 0)) {
		return fmt.Errorf("report: the %s result has no node lives or pending levels (nodes, pending): it was written by an older karpsim; run it again", name)
	}
	return nil
}

// Simulate is the report of one simulation.
func Simulate(r *simulator.Result) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("report: no simulation result")
	}
	if err := checkEvents("simulation", r); err != nil {
		return nil, err
	}
	p := page{Title: "karpsim simulation: " + cmp.Or(r.Scenario, "(unnamed)"),
		Subtitle: fmt.Sprintf("seed %d, %v from %s", r.Seed, r.Duration.Duration, r.Start.UTC().Format(time.RFC3339)),
		Note:     seriesNote}
	name := "Karpenter"
	if r.Autoscaler == string(simulator.AutoscalerClusterAutoscaler) {
		name = "Cluster Autoscaler"
	}
	d := runData(name, r)
	p.Sections = append(p.Sections, tableHTML(summaryTable("Summary", []string{name}, []*simulator.Result{r}, []RunData{d})))
	rows := []markerRow{{markers: d.Markers}}
	var byType []line
	for i, s := range d.ByType {
		byType = append(byType, line{s: s, colour: paletteHex(i)})
	}
	charts := []timeChart{
		{id: "nodes-by-type", title: "Nodes by instance type and capacity type", unit: "nodes", lines: byType, stacked: true},
		{id: "nodes", title: "Nodes launched, registered and ready", unit: "nodes", lines: []line{
			{s: d.Nodes, colour: paletteHex(4), width: 5}, {s: d.Registered, colour: paletteHex(1), dashed: true, width: 2.5}, {s: d.Ready, colour: paletteHex(0), width: 1.5}}},
		{id: "pending", title: "Pending pods", unit: "pods", lines: []line{{s: d.Pending, colour: paletteHex(5)}}},
		{id: "cost-per-hour", title: "Cost per hour", unit: "$/hour", money: true, lines: []line{{s: d.CostPerHour, colour: paletteHex(0)}}},
		{id: "cost", title: "Cost so far", unit: "$", money: true, lines: []line{{s: d.Cost, colour: paletteHex(0)}}},
	}
	for _, c := range charts {
		c.end, c.rows = d.End, rows
		p.Sections = append(p.Sections, c.html())
	}
	p.Sections = append(p.Sections, decisionTable([]string{""}, []*simulator.Result{r}))
	p.Sections = append(p.Sections, breakdowns([]string{""}, []*simulator.Result{r}))
	p.Sections = append(p.Sections, nodeLives("", r))
	data, err := json.Marshal(map[string][]RunData{"runs": {d}})
	if err != nil {
		return nil, err
	}
	p.Data = template.JS(data)
	return p.render()
}

// Compare is the report of one scenario under both autoscalers, on shared
// axes.
func Compare(c Comparison) ([]byte, error) {
	if c.Karpenter == nil || c.ClusterAutoscaler == nil {
		return nil, fmt.Errorf("report: a comparison needs both results (karpenter and clusterAutoscaler)")
	}
	for _, r := range []struct {
		name string
		r    *simulator.Result
	}{{"karpenter", c.Karpenter}, {"clusterAutoscaler", c.ClusterAutoscaler}} {
		if err := checkEvents(r.name, r.r); err != nil {
			return nil, err
		}
	}
	runs := []*simulator.Result{c.Karpenter, c.ClusterAutoscaler}
	names := []string{"Karpenter", "Cluster Autoscaler"}
	k := c.Karpenter
	p := page{Title: "karpsim comparison: " + cmp.Or(k.Scenario, "(unnamed)"),
		Subtitle: fmt.Sprintf("seed %d, %v from %s; Karpenter against the Cluster Autoscaler on the same workload", k.Seed, k.Duration.Duration, k.Start.UTC().Format(time.RFC3339)),
		Note:     seriesNote}
	data := []RunData{runData(names[0], runs[0]), runData(names[1], runs[1])}
	p.Sections = append(p.Sections, savingsHeadline(runs[0], runs[1]))
	p.Sections = append(p.Sections, tableHTML(compareTable(runs, data)))
	rows := []markerRow{{run: names[0], markers: data[0].Markers}, {run: names[1], markers: data[1].Markers, square: true}}
	// The node bands of both runs share their value axis.
	top := 0.0
	var bandCharts []timeChart
	for i, d := range data {
		var byType []line
		for j, s := range d.ByType {
			byType = append(byType, line{s: s, colour: paletteHex(j)})
		}
		ch := timeChart{id: "nodes-by-type-" + strconv.Itoa(i), title: "Nodes by instance type and capacity type — " + names[i],
			unit: "nodes", lines: byType, stacked: true, rows: rows[i : i+1]}
		top = max(top, ch.valueTop())
		bandCharts = append(bandCharts, ch)
	}
	both := func(f func(RunData) Series) []line {
		var ls []line
		for i, d := range data {
			s := f(d)
			s.Name = names[i] + ": " + s.Name
			ls = append(ls, line{s: s, colour: runColours[i]})
		}
		return ls
	}
	charts := append(bandCharts,
		timeChart{id: "nodes", title: "Nodes launched", unit: "nodes", lines: both(func(d RunData) Series { return d.Nodes }), rows: rows},
		timeChart{id: "pending", title: "Pending pods", unit: "pods", lines: both(func(d RunData) Series { return d.Pending }), rows: rows},
		timeChart{id: "cost-per-hour", title: "Cost per hour", unit: "$/hour", money: true, lines: both(func(d RunData) Series { return d.CostPerHour }), rows: rows},
		timeChart{id: "cost", title: "Cost so far", unit: "$", money: true, lines: both(func(d RunData) Series { return d.Cost }), rows: rows},
	)
	for i, ch := range charts {
		ch.end = max(data[0].End, data[1].End)
		if i < len(bandCharts) {
			ch.top = top
		}
		p.Sections = append(p.Sections, ch.html())
	}
	p.Sections = append(p.Sections, decisionTable(names, runs))
	p.Sections = append(p.Sections, breakdowns(names, runs))
	for i, r := range runs {
		p.Sections = append(p.Sections, nodeLives(names[i], r))
	}
	js, err := json.Marshal(map[string][]RunData{"runs": data})
	if err != nil {
		return nil, err
	}
	p.Data = template.JS(js)
	return p.render()
}

// savingsHeadline is what Karpenter saves over the Cluster Autoscaler, as
// compare prints it: the Cluster Autoscaler's cost less Karpenter's, and
// that as a share of the Cluster Autoscaler's.
func savingsHeadline(k, ca *simulator.Result) template.HTML {
	saved, pct := savings(k, ca)
	if saved >= 0 {
		return template.HTML(fmt.Sprintf(`<p class="headline saves">KARPENTER SAVES $%.2f (%.1f%%) over the Cluster Autoscaler: $%.2f against $%.2f.</p>`,
			saved, pct, k.TotalCost, ca.TotalCost))
	}
	return template.HTML(fmt.Sprintf(`<p class="headline costs">KARPENTER COSTS $%.2f (%.1f%%) more than the Cluster Autoscaler: $%.2f against $%.2f.</p>`,
		-saved, -pct, k.TotalCost, ca.TotalCost))
}

// savings is the Cluster Autoscaler's cost less Karpenter's, and its share
// of the Cluster Autoscaler's in percent to a tenth (0 when that is 0).
func savings(k, ca *simulator.Result) (float64, float64) {
	saved := round4(ca.TotalCost - k.TotalCost)
	pct := 0.0
	if ca.TotalCost > 0 {
		pct = math.Round((ca.TotalCost-k.TotalCost)/ca.TotalCost*1000) / 10
	}
	return saved, pct
}

// summaryTable has a column per run.
func summaryTable(caption string, names []string, runs []*simulator.Result, data []RunData) table {
	t := table{Caption: caption, Head: append([]string{""}, names...)}
	row := func(label string, f func(i int, r *simulator.Result) string) {
		cells := []string{label}
		for i, r := range runs {
			cells = append(cells, f(i, r))
		}
		t.Rows = append(t.Rows, cells)
	}
	row("total cost", func(_ int, r *simulator.Result) string { return fmt.Sprintf("$%.2f", r.TotalCost) })
	row("peak nodes", func(i int, _ *simulator.Result) string { return fmt.Sprint(seriesMax(data[i].Nodes)) })
	row("final nodes", func(_ int, r *simulator.Result) string {
		return fmt.Sprintf("%d ($%.4f/hour)", r.Final.Nodes, r.Final.CostPerHour)
	})
	row("launches", func(_ int, r *simulator.Result) string {
		return fmt.Sprintf("%d (%d failed)", r.Launches, r.LaunchFailures)
	})
	row("pods bound", func(_ int, r *simulator.Result) string {
		return fmt.Sprintf("%d (%d still pending)", r.PendingTime.Count, r.PendingTime.StillPending)
	})
	row("pending p50 / p90 / p99 / max", func(_ int, r *simulator.Result) string {
		pt := r.PendingTime
		return fmt.Sprintf("%v / %v / %v / %v", pt.P50.Duration, pt.P90.Duration, pt.P99.Duration, pt.Max.Duration)
	})
	row("nodes disrupted", func(_ int, r *simulator.Result) string { return disruptionsCell(r) })
	if all(runs, func(r *simulator.Result) bool { return r.Utilization != nil }) {
		row("cpu requested / allocatable", func(_ int, r *simulator.Result) string { return fmt.Sprintf("%.1f%%", r.Utilization.CPU*100) })
		row("memory requested / allocatable", func(_ int, r *simulator.Result) string {
			return fmt.Sprintf("%.1f%%", r.Utilization.Memory*100)
		})
	}
	return t
}

func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

func disruptionsCell(r *simulator.Result) string {
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(r.DisruptionsByMethod)) {
		parts = append(parts, fmt.Sprintf("%s %d", m, r.DisruptionsByMethod[m]))
	}
	return cmp.Or(strings.Join(parts, ", "), "none")
}

func seriesMax(s Series) int {
	top := 0.0
	for _, p := range s.Points {
		top = max(top, p[1])
	}
	return int(top)
}

// compareTable is the two runs side by side with what Karpenter saves, as
// compare prints them: a positive saving is in Karpenter's favour.
func compareTable(runs []*simulator.Result, data []RunData) table {
	t := summaryTable("Side by side", []string{"Karpenter", "Cluster Autoscaler"}, runs, data)
	t.Head = append(t.Head, "Karpenter saves")
	k, ca := runs[0], runs[1]
	saved, pct := savings(k, ca)
	extra := map[string]string{
		"total cost": fmt.Sprintf("%s (%.1f%%)", dollars(saved), pct),
		"peak nodes": fmt.Sprint(seriesMax(data[1].Nodes) - seriesMax(data[0].Nodes)),
	}
	kp, cp := k.PendingTime, ca.PendingTime
	var pending []string
	for _, d := range [][2]time.Duration{{cp.P50.Duration, kp.P50.Duration}, {cp.P90.Duration, kp.P90.Duration},
		{cp.P99.Duration, kp.P99.Duration}, {cp.Max.Duration, kp.Max.Duration}} {
		pending = append(pending, (d[0] - d[1]).String())
	}
	extra["pending p50 / p90 / p99 / max"] = strings.Join(pending, " / ")
	if k.Utilization != nil && ca.Utilization != nil {
		extra["cpu requested / allocatable"] = fmt.Sprintf("%+.1f points", (k.Utilization.CPU-ca.Utilization.CPU)*100)
		extra["memory requested / allocatable"] = fmt.Sprintf("%+.1f points", (k.Utilization.Memory-ca.Utilization.Memory)*100)
	}
	for i := range t.Rows {
		t.Rows[i] = append(t.Rows[i], extra[t.Rows[i][0]])
	}
	return t
}

// dollars prints an amount that may be negative: -$0.07.
func dollars(v float64) string {
	if v < 0 {
		return fmt.Sprintf("-$%.2f", -v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// tableHTML renders a table of text cells.
func tableHTML(t table) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, "<table>\n<caption>%s</caption>\n<thead><tr>", html.EscapeString(t.Caption))
	for _, h := range t.Head {
		fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead>\n<tbody>")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>")
	return template.HTML(b.String())
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
		p.Charts = append(p.Charts, chart{Caption: title, SVG: template.HTML(s),
			Legend: template.HTML(fmt.Sprintf(`<span class="key"><i class="band" style="--c:%s"></i>mean over seeds; whiskers: min and max</span>`, paletteHex(0)))})
	}
	if len(pts) > 0 {
		title := "Cost against pending time: the trade-off to pick from"
		s, err := scatterChart(title, "pending p99 (seconds, mean over seeds)", "total cost ($, mean over seeds)", pts, scenarios)
		if err != nil {
			return nil, err
		}
		var legend strings.Builder
		for g, sc := range scenarios {
			fmt.Fprintf(&legend, `<span class="key"><i class="sq" style="--c:%s"></i>%s</span>`, paletteHex(g), html.EscapeString(sc))
		}
		p.Charts = append(p.Charts, chart{Caption: title, SVG: template.HTML(s), Legend: template.HTML(legend.String())})
	}
	return p.render()
}
