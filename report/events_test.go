package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/simulator"
)

// simulateWith runs a golden scenario with a configuration.
func simulateWith(t *testing.T, name string, cfg simulator.Config) *simulator.Result {
	t.Helper()
	sc, err := simulator.LoadScenario(filepath.Join("..", "testdata", "scenarios", name+".yaml"))
	require.NoError(t, err)
	r, err := simulator.Run(context.Background(), sc, cfg)
	require.NoError(t, err)
	return r
}

// pageData is the JSON a report embeds: the series its charts draw.
func pageData(t *testing.T, html []byte) []RunData {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="karpsim-data">(.*?)</script>`).FindSubmatch(html)
	require.NotNil(t, m, "the page embeds its data")
	var data struct{ Runs []RunData }
	require.NoError(t, json.Unmarshal(m[1], &data))
	return data.Runs
}

// replayed are a run's counts rebuilt from its timeline alone, as a reader
// of `simulate -o json` would: launches and the decisions that removed
// nodes give the nodes and their cost, ready decisions the ready nodes,
// and the workload and kube-scheduler decisions the pending pods.
type replayed struct {
	nodes, ready, pending, costPerHour []step
}

// step is a value from an instant on, in seconds.
type step struct{ at, v float64 }

func replay(t *testing.T, r *simulator.Result) replayed {
	t.Helper()
	var out replayed
	price := map[string]float64{}
	ready := map[string]bool{}
	nodes, readyN, pending, cost := 0.0, 0.0, 0.0, 0.0
	created := regexp.MustCompile(`: (\d+) pods created, (\d+) deleted$`)
	for _, d := range r.Timeline {
		at := d.At.Seconds()
		switch d.Kind {
		case simulator.KindLaunch:
			for _, n := range d.Nodes {
				price[n] = d.PricePerHour
				nodes++
				cost += d.PricePerHour
			}
		case simulator.KindReady:
			for _, n := range d.Nodes {
				ready[n] = true
				readyN++
			}
		case simulator.KindScale:
			m := created.FindStringSubmatch(d.Reason)
			require.NotNil(t, m, "scale decision %q", d.Reason)
			n, _ := strconv.Atoi(m[1])
			pending += float64(n)
		case simulator.KindArrive:
			pending += float64(d.Pods)
		case simulator.KindDepart:
			if strings.HasSuffix(d.Reason, "while pending") {
				pending--
			}
		case simulator.KindBind:
			pending -= float64(d.Pods)
		}
		if _, n := simulator.RemovedNodes(d); n > 0 {
			for _, name := range d.Nodes {
				nodes--
				cost -= price[name]
				if ready[name] {
					readyN--
				}
			}
			// The pods of the removed nodes go pending, to be replaced.
			pending += float64(d.Pods)
		}
		out.nodes = append(out.nodes, step{at, nodes})
		out.ready = append(out.ready, step{at, readyN})
		out.pending = append(out.pending, step{at, pending})
		out.costPerHour = append(out.costPerHour, step{at, round4(cost)})
	}
	return out
}

// canonical is a step function as its changes: the last value at each
// instant, without repeats, from 0 at the start.
func canonical(steps []step) []step {
	out := []step{{0, 0}}
	for _, s := range steps {
		if last := &out[len(out)-1]; last.at == s.at {
			last.v = s.v
		} else {
			out = append(out, s)
		}
	}
	dedup := out[:1]
	for _, s := range out[1:] {
		if math.Abs(s.v-dedup[len(dedup)-1].v) > 1e-9 {
			dedup = append(dedup, s)
		}
	}
	return dedup
}

func steps(s Series) []step {
	require := func(ok bool) {
		if !ok {
			panic("a step series")
		}
	}
	require(!s.Linear)
	var out []step
	for _, p := range s.Points {
		out = append(out, step{p[0], p[1]})
	}
	return out
}

// checkAgainstEvents asserts that the series a page drew for a run are
// the ones its timeline gives.
func checkAgainstEvents(t *testing.T, r *simulator.Result, d RunData) {
	t.Helper()
	want := replay(t, r)
	assert.Equal(t, canonical(want.nodes), canonical(steps(d.Nodes)), "nodes launched")
	assert.Equal(t, canonical(want.ready), canonical(steps(d.Ready)), "nodes ready")
	assert.Equal(t, canonical(want.pending), canonical(steps(d.Pending)), "pending pods")
	assert.Equal(t, canonical(want.costPerHour), canonical(steps(d.CostPerHour)), "cost per hour")
	// Registered lies between ready and launched, at every instant.
	for _, p := range d.Registered.Points {
		assert.LessOrEqual(t, d.Ready.At(p[0]), p[1], "registered ≥ ready at %v s", p[0])
		assert.LessOrEqual(t, p[1], d.Nodes.At(p[0]), "registered ≤ launched at %v s", p[0])
	}
	// The cost so far is the integral of the cost per hour, ending at the
	// run's total cost.
	cw := canonical(want.costPerHour)
	sum := 0.0
	for i, s := range cw {
		if i > 0 {
			sum += cw[i-1].v * (s.at - cw[i-1].at) / 3600
		}
		assert.InDelta(t, sum, d.Cost.At(s.at), 1e-3, "cost so far at %v s", s.at)
	}
	end := r.Duration.Seconds()
	sum += cw[len(cw)-1].v * (end - cw[len(cw)-1].at) / 3600
	assert.InDelta(t, sum, d.Cost.At(end), 1e-3)
	assert.InDelta(t, r.TotalCost, d.Cost.At(end), 1e-3, "the cost so far ends at the total cost")
	// The bands by type add up to the nodes.
	for _, p := range d.Nodes.Points {
		sum := 0.0
		for _, b := range d.ByType {
			sum += b.At(p[0])
		}
		assert.Equal(t, p[1], sum, "bands by type at %v s", p[0])
	}
	// A marker for every decision that removed nodes, with its method.
	var markers []string
	for _, dec := range r.Timeline {
		if method, n := simulator.RemovedNodes(dec); n > 0 {
			markers = append(markers, fmt.Sprintf("%v %s %d", dec.At.Seconds(), method, n))
		}
	}
	var got []string
	for _, m := range d.Markers {
		got = append(got, fmt.Sprintf("%v %s %d", m.At, m.Method, m.Nodes))
	}
	assert.Equal(t, markers, got)
}

// The daily-traffic report's charts are the run's events: every series
// the page draws (embedded as JSON) equals the one replayed from the
// timeline, and the paths drawn have a corner per change.
func TestDailyTrafficChartsAgreeWithEvents(t *testing.T) {
	r := simulate(t, "daily-traffic", 0)
	html, err := Simulate(r)
	require.NoError(t, err)
	runs := pageData(t, html)
	require.Len(t, runs, 1)
	d := runs[0]
	checkAgainstEvents(t, r, d)

	// What the samples hid: a node from second 1, pending pods gone within
	// a minute, and the c7i-flex.large that lived 27 minutes.
	assert.Equal(t, 1.0, d.Nodes.At(30))
	assert.Equal(t, 5.0, d.Pending.At(30))
	assert.Equal(t, 0.0, d.Pending.At(1800))
	assert.Positive(t, d.CostPerHour.At(1800), "the first node costs from its launch")
	page := string(html)
	assert.Contains(t, page, "c7i-flex.large (spot)")
	assert.Contains(t, page, "<td>default-00003</td>")
	assert.Contains(t, page, "27m24s")
	assert.Contains(t, page, ">Underutilized<")
	assert.Contains(t, page, ">Empty<")
	assert.Contains(t, page, "not from its periodic samples", "the page says what the series are")

	// Each drawn path has as many horizontal runs as its series has
	// points after the first.
	for _, s := range []Series{d.Nodes, d.Ready, d.Pending, d.CostPerHour} {
		m := regexp.MustCompile(`data-series="` + regexp.QuoteMeta(s.Name) + `"[^>]* d="([^"]*)"`).FindStringSubmatch(page)
		require.NotNil(t, m, "a path for %s", s.Name)
		assert.Equal(t, len(s.Points)-1, strings.Count(m[1], "H"), "corners of %s", s.Name)
	}
	// The tooltips name the decisions.
	for _, dec := range r.Timeline {
		if method, n := simulator.RemovedNodes(dec); n > 0 {
			assert.Contains(t, page, "<title>"+clock(dec.At.Duration)+" "+method+": ")
		}
	}
}

// The comparison draws both runs from their events, says what Karpenter
// saves as compare prints it, and sets utilization side by side.
func TestDailyTrafficComparisonAgreesWithEvents(t *testing.T) {
	k := simulateWith(t, "daily-traffic", simulator.Config{MeasureUtilization: true})
	ca := simulateWith(t, "daily-traffic", simulator.Config{MeasureUtilization: true, Autoscaler: simulator.AutoscalerClusterAutoscaler})
	html, err := Compare(Comparison{Karpenter: k, ClusterAutoscaler: ca})
	require.NoError(t, err)
	runs := pageData(t, html)
	require.Len(t, runs, 2)
	checkAgainstEvents(t, k, runs[0])
	checkAgainstEvents(t, ca, runs[1])
	assert.Equal(t, []string{"Karpenter", "Cluster Autoscaler"}, []string{runs[0].Name, runs[1].Name})

	page := string(html)
	saved := ca.TotalCost - k.TotalCost
	assert.Contains(t, page, fmt.Sprintf("KARPENTER SAVES $%.2f (%.1f%%)", saved, saved/ca.TotalCost*100))
	for _, row := range []string{"cpu requested / allocatable", "memory requested / allocatable", "pending p50 / p90 / p99 / max"} {
		assert.Contains(t, page, "<td>"+row+"</td>")
	}
	assert.Contains(t, page, fmt.Sprintf("<td>%.1f%%</td><td>%.1f%%</td>", k.Utilization.CPU*100, ca.Utilization.CPU*100))
	// Series are named for what they are, for each autoscaler.
	for _, name := range []string{"Karpenter: nodes launched", "Cluster Autoscaler: pending pods", "Karpenter: cost so far"} {
		assert.Contains(t, page, `data-series="`+name+`"`)
	}
	// Every value axis labels each tick once.
	for _, fig := range regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAllString(page, -1) {
		var labels []string
		for _, m := range regexp.MustCompile(`<text class="tick" x="58"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(fig, -1) {
			labels = append(labels, m[1])
		}
		sorted := slices.Clone(labels)
		slices.Sort(sorted)
		assert.Equal(t, len(sorted), len(slices.Compact(sorted)), "one label per tick: %v", labels)
	}
	// The node bands of both runs share their axis.
	tops := regexp.MustCompile(`(?s)id="nodes-by-type-\d".*?<text class="tick" x="58"[^>]*>[^<]*</text>(?:<line[^>]*/><text class="tick" x="58"[^>]*>[^<]*</text>)*`).FindAllString(page, -1)
	require.Len(t, tops, 2)
	last := func(s string) string {
		m := regexp.MustCompile(`>([^<]*)</text>$`).FindStringSubmatch(s)
		return m[1]
	}
	assert.Equal(t, last(tops[0]), last(tops[1]))
}
