package report

import (
	"cmp"
	"fmt"
	"html"
	"html/template"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/karpsim/karpsim/simulator"
)

// workloadKinds are the simulator's own events, which the decision table
// leaves out: the workloads and the kube-scheduler, not the autoscaler.
var workloadKinds = map[string]bool{
	simulator.KindBind: true, simulator.KindReady: true, simulator.KindArrive: true, simulator.KindDepart: true,
	simulator.KindScale: true,
}

// methodOf is a decision's disruption method, or its kind for a decision
// that is not a disruption (launch, scale-up).
func methodOf(d simulator.Decision) string { return cmp.Or(d.Method, d.Kind) }

// decisionTable lists the autoscalers' decisions, with a filter by method
// and by text; names are the runs' names, "" for a single run.
func decisionTable(names []string, runs []*simulator.Result) template.HTML {
	methods := map[string]bool{}
	type row struct {
		run     string
		d       simulator.Decision
		delta   string
		removed bool
	}
	var rows []row
	for i, r := range runs {
		price := map[string]float64{}
		for _, n := range r.Nodes {
			price[n.Name] = n.PricePerHour
		}
		for _, d := range r.Timeline {
			if workloadKinds[d.Kind] {
				continue
			}
			methods[methodOf(d)] = true
			rw := row{run: names[i], d: d}
			if _, n := simulator.RemovedNodes(d); n > 0 {
				rw.removed = true
				sum := 0.0
				for _, name := range d.Nodes {
					sum += price[name]
				}
				rw.delta = fmt.Sprintf("−$%.4f", sum)
			} else if d.Kind == simulator.KindLaunch {
				sum := 0.0
				for _, name := range d.Nodes {
					sum += price[name]
				}
				rw.delta = fmt.Sprintf("+$%.4f", sum)
			}
			rows = append(rows, rw)
		}
	}
	var b strings.Builder
	b.WriteString(`<section class="decisions"><h2>Decisions</h2>`)
	b.WriteString(`<div class="filter"><label>method <select><option value="">every decision</option><option value="*removed">every decision that removed nodes</option>`)
	for _, m := range slices.Sorted(maps.Keys(methods)) {
		fmt.Fprintf(&b, `<option value="%s">%s</option>`, html.EscapeString(m), html.EscapeString(m))
	}
	b.WriteString(`</select></label><label>containing <input type="search" placeholder="node, type, reason…"></label><span class="count"></span></div>`)
	b.WriteString(`<div class="scroll"><table><thead><tr>`)
	multi := len(runs) > 1
	if multi {
		b.WriteString(`<th class="l">autoscaler</th>`)
	}
	b.WriteString(`<th class="l">time</th><th class="l">method</th><th class="l">reason</th><th class="l">nodes</th><th>pods</th><th>$/h delta</th><th class="l">detail</th></tr></thead><tbody>`)
	for _, r := range rows {
		removed := "0"
		if r.removed {
			removed = "1"
		}
		fmt.Fprintf(&b, `<tr data-method="%s" data-removed="%s">`, html.EscapeString(methodOf(r.d)), removed)
		if multi {
			fmt.Fprintf(&b, `<td>%s</td>`, html.EscapeString(r.run))
		}
		nodes := strings.Join(r.d.Nodes, ", ")
		if len(r.d.Replacements) > 0 {
			nodes += " → " + strings.Join(r.d.Replacements, ", ")
		}
		if r.d.InstanceType != "" {
			nodes += " (" + strings.TrimSpace(r.d.CapacityType+" "+r.d.InstanceType) + ")"
		}
		fmt.Fprintf(&b, `<td>%s</td><td class="l">%s</td><td class="l">%s</td><td class="l">%s</td><td>%d</td><td>%s</td><td class="reason">%s</td></tr>`,
			clock(r.d.At.Duration), html.EscapeString(methodOf(r.d)), html.EscapeString(reasonOf(r.d)), html.EscapeString(nodes),
			r.d.Pods, r.delta, html.EscapeString(r.d.Reason))
		b.WriteString("\n")
	}
	b.WriteString(`</tbody></table></div></section>`)
	return template.HTML(b.String())
}

// breakdown is one group of nodes: how many launched, for how long, and
// what they cost.
type breakdown struct {
	nodes     int
	nodeHours float64
	cost      float64
}

// breakdowns are the nodes of each run grouped by NodePool (node group for
// the Cluster Autoscaler), zone, capacity type and instance type.
func breakdowns(names []string, runs []*simulator.Result) template.HTML {
	var b strings.Builder
	b.WriteString(`<section><h2>Where the nodes and the money went</h2><div class="grid2">`)
	for _, dim := range []struct {
		title string
		key   func(simulator.NodeLife) string
	}{
		{"By NodePool (node group)", func(n simulator.NodeLife) string { return cmp.Or(n.NodePool, "(none)") }},
		{"By zone", func(n simulator.NodeLife) string { return n.Zone }},
		{"By capacity type", func(n simulator.NodeLife) string { return n.CapacityType }},
		{"By instance type", func(n simulator.NodeLife) string { return n.InstanceType }},
	} {
		fmt.Fprintf(&b, `<table><caption>%s</caption><thead><tr>`, html.EscapeString(dim.title))
		if len(runs) > 1 {
			b.WriteString(`<th class="l">autoscaler</th>`)
		}
		b.WriteString(`<th class="l">group</th><th>nodes</th><th>node-hours</th><th>cost</th><th class="l">share of cost</th></tr></thead><tbody>`)
		for i, r := range runs {
			groups := map[string]*breakdown{}
			total := 0.0
			end := r.Duration.Duration
			for _, n := range r.Nodes {
				g := groups[dim.key(n)]
				if g == nil {
					g = &breakdown{}
					groups[dim.key(n)] = g
				}
				gone := end
				if n.Deleted != nil {
					gone = n.Deleted.Duration
				}
				h := (gone - n.Launched.Duration).Hours()
				g.nodes++
				g.nodeHours += h
				g.cost += h * n.PricePerHour
				total += h * n.PricePerHour
			}
			keys := slices.SortedFunc(maps.Keys(groups), func(a, b string) int {
				return cmp.Or(cmp.Compare(groups[b].cost, groups[a].cost), cmp.Compare(a, b))
			})
			for _, k := range keys {
				g := groups[k]
				b.WriteString("<tr>")
				if len(runs) > 1 {
					fmt.Fprintf(&b, `<td>%s</td>`, html.EscapeString(names[i]))
				}
				share := 0.0
				if total > 0 {
					share = g.cost / total
				}
				fmt.Fprintf(&b, `<td class="l">%s</td><td>%d</td><td>%.1f</td><td>$%.2f</td><td class="l bar">%s%.0f%%</td></tr>`,
					html.EscapeString(k), g.nodes, g.nodeHours, g.cost, meter(share, -1, runColour(i, len(runs))), share*100)
			}
		}
		b.WriteString(`</tbody></table>`)
	}
	b.WriteString(`</div></section>`)
	return template.HTML(b.String())
}

func runColour(i, runs int) string {
	if runs > 1 {
		return runColours[i]
	}
	return paletteHex(0)
}

// meter is a small bar filled to share (0..1), with a tick at peak when
// peak is 0 or more.
func meter(share, peak float64, colour string) string {
	const w, h = 56.0, 10.0
	share = min(max(share, 0), 1)
	out := fmt.Sprintf(`<svg width="%d" height="%d" viewBox="0 0 %d %d"><rect width="%d" height="%d" fill="#eee"/><rect width="%s" height="%d" fill="%s"/>`,
		int(w), int(h), int(w), int(h), int(w), int(h), f1(w*share), int(h), colour)
	if peak >= 0 {
		px := w * min(max(peak, 0), 1)
		out += fmt.Sprintf(`<rect x="%s" width="2" height="%d" fill="#222"/>`, f1(min(px, w-2)), int(h))
	}
	return out + `</svg>`
}

// span is a small bar showing when, within the run, a node lived.
func span(from, to, end time.Duration, colour string) string {
	const w, h = 80.0, 10.0
	if end <= 0 {
		end = 1
	}
	x0, x1 := w*float64(max(from, 0))/float64(end), w*float64(min(to, end))/float64(end)
	return fmt.Sprintf(`<svg width="%d" height="%d" viewBox="0 0 %d %d"><rect width="%d" height="%d" fill="#eee"/><rect x="%s" width="%s" height="%d" fill="%s"/></svg>`,
		int(w), int(h), int(w), int(h), int(w), int(h), f1(x0), f1(max(x1-x0, 1)), int(h), colour)
}

// nodeLives lists every node of a run as eks-node-viewer does, a row
// each: its type and price, when it lived, and what its pods requested of
// its cpu and memory (the bar is the mean from ready to deletion, the tick
// the peak).
func nodeLives(name string, r *simulator.Result) template.HTML {
	var b strings.Builder
	title := "Nodes"
	if name != "" {
		title += " — " + name
	}
	end := r.Duration.Duration
	fmt.Fprintf(&b, `<section><h2>%s</h2><p class="note">%d nodes, in launch order. CPU and memory: what the pods bound to the node requested of its allocatable, the bar the mean from ready to deletion, the tick the peak (DaemonSets left out).</p>`,
		html.EscapeString(title), len(r.Nodes))
	b.WriteString(`<div class="scroll"><table><thead><tr><th class="l">node</th><th class="l">NodePool</th><th class="l">instance type</th><th class="l">capacity, zone</th><th>$/hour</th><th>launched</th><th>lived</th><th class="l">when</th><th>cost</th><th class="l">cpu requested<br>mean / peak</th><th class="l">memory requested<br>mean / peak</th><th class="l">removed by</th></tr></thead><tbody>`)
	for _, n := range r.Nodes {
		gone := end
		if n.Deleted != nil {
			gone = n.Deleted.Duration
		}
		life := gone - n.Launched.Duration
		share := func(v float64, of int64) float64 {
			if of <= 0 {
				return 0
			}
			return v / float64(of)
		}
		cpu, cpuPeak := share(n.MeanRequestedMilliCPU, n.AllocatableMilliCPU), share(float64(n.PeakRequestedMilliCPU), n.AllocatableMilliCPU)
		mem, memPeak := share(n.MeanRequestedMemory, n.AllocatableMemory), share(float64(n.PeakRequestedMemory), n.AllocatableMemory)
		removed := n.Method
		if n.Deleted == nil {
			removed = "(ran to the end)"
		}
		fmt.Fprintf(&b, `<tr><td>%s</td><td class="l">%s</td><td class="l">%s</td><td class="l">%s, %s</td><td>$%.4f</td><td>%s</td><td>%s</td><td class="l bar">%s</td><td>$%.4f</td><td class="l bar">%s%.0f%% / %.0f%%</td><td class="l bar">%s%.0f%% / %.0f%%</td><td class="l">%s</td></tr>`+"\n",
			html.EscapeString(n.Name), html.EscapeString(n.NodePool), html.EscapeString(n.InstanceType), html.EscapeString(n.CapacityType), html.EscapeString(n.Zone),
			n.PricePerHour, clock(n.Launched.Duration), lived(life), span(n.Launched.Duration, gone, end, methodColourOr(n.Method)),
			n.PricePerHour*life.Hours(), meter(cpu, cpuPeak, "#0072B2"), cpu*100, cpuPeak*100, meter(mem, memPeak, "#009E73"), mem*100, memPeak*100,
			html.EscapeString(removed))
	}
	b.WriteString(`</tbody></table></div></section>`)
	return template.HTML(b.String())
}

// methodColourOr colours a node's span by the method that removed it, grey
// for one that ran to the end.
func methodColourOr(m string) string {
	if m == "" {
		return "#888888"
	}
	return methodColour(m)
}
