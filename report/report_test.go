package report

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/internal/chromium"
	"github.com/karpsim/karpsim/simulator"
	"github.com/karpsim/karpsim/sweep"
)

// simulate runs a golden scenario.
func simulate(t *testing.T, name string, seed uint64) *simulator.Result {
	t.Helper()
	sc, err := simulator.LoadScenario(filepath.Join("..", "testdata", "scenarios", name+".yaml"))
	require.NoError(t, err)
	if seed != 0 {
		sc.Seed = seed
	}
	r, err := simulator.Run(context.Background(), sc, simulator.Config{})
	require.NoError(t, err)
	return r
}

// sweepResult runs a small sweep over a golden scenario.
func sweepResult(t *testing.T) *sweep.Result {
	t.Helper()
	path := filepath.Join("..", "testdata", "scenarios", "spot-storm.yaml")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	spec := sweep.Spec{Name: "storms", Scenarios: []string{path}, Seeds: []uint64{1, 2}, Variants: []sweep.Variant{
		{Name: "as-written"}, {Name: "busier", InterruptionsPerHour: 6}, {Name: "bigger", WorkloadScale: 3}}}
	r, err := sweep.Execute(context.Background(), spec, []sweep.Source{{Path: path, Scenario: data}}, sweep.Options{})
	require.NoError(t, err)
	return r
}

// exampleSweep is README's example sweep, merged from its committed parts.
func exampleSweep(t *testing.T) *sweep.Result {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "sweeps", "parts", "nodepool-designs-*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var parts []*sweep.Result
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var part sweep.Result
		require.NoError(t, json.Unmarshal(data, &part))
		parts = append(parts, &part)
	}
	r, err := sweep.Merge(parts...)
	require.NoError(t, err)
	return r
}

// svgs are the charts of a page: its inline SVG elements with a role of
// img (the bars in tables have none).
func svgs(html string) []string {
	return regexp.MustCompile(`(?s)<svg[^>]*role="img".*?</svg>`).FindAllString(html, -1)
}

// figures are the time charts of a page with their captions and legends.
func figures(html string) []string {
	return regexp.MustCompile(`(?s)<figure class="chart".*?</figure>`).FindAllString(html, -1)
}

func TestSimulateReportHasItsSeriesAndAxes(t *testing.T) {
	r := simulate(t, "spot-storm", 0)
	html, err := Simulate(r)
	require.NoError(t, err)
	page := string(html)
	charts := figures(page)
	require.Len(t, charts, 5)
	for _, c := range charts {
		assert.Contains(t, c, "time since start (h:mm)")
		assert.Contains(t, c, "interruption (", "the legend names the disruption method")
		assert.Contains(t, c, `<g class="marker" data-method="interruption"><title>`, "disruptions are marked with their decision")
	}
	assert.Contains(t, charts[0], "Nodes by instance type and capacity type")
	launched := map[string]bool{}
	for _, d := range r.Timeline {
		if d.Kind == simulator.KindLaunch {
			launched[d.InstanceType+" ("+d.CapacityType+")"] = true
		}
	}
	require.NotEmpty(t, launched)
	for kind := range launched {
		assert.Contains(t, charts[0], kind, "every launched type is a band")
	}
	assert.Contains(t, charts[3], "$/hour")
	assert.Contains(t, charts[2], "pods")
	for _, s := range []string{"nodes launched", "nodes registered", "nodes ready"} {
		assert.Contains(t, charts[1], s)
	}
	assert.Contains(t, charts[4], "Cost so far")
	assert.Contains(t, page, fmt.Sprintf("$%.2f", r.TotalCost))
	assert.Contains(t, page, ">Interrupted<", "the decision table gives the reason")
	for _, b := range []string{"By NodePool (node group)", "By zone", "By capacity type", "By instance type"} {
		assert.Contains(t, page, b)
	}
	// Nothing is loaded from the network: no address but the SVG namespace.
	local := strings.NewReplacer(`xmlns="http://www.w3.org/2000/svg"`, "", `xmlns:xlink="http://www.w3.org/1999/xlink"`, "").Replace(page)
	assert.NotContains(t, local, "http://")
	assert.NotContains(t, local, "https://")

	again, err := Simulate(r)
	require.NoError(t, err)
	assert.Equal(t, html, again, "the same result gives the same report")
}

func TestCompareReportDrawsBothRuns(t *testing.T) {
	a, b := simulate(t, "default", 0), simulate(t, "default", 7)
	html, err := Compare(Comparison{Karpenter: a, ClusterAutoscaler: b})
	require.NoError(t, err)
	charts := figures(string(html))
	require.Len(t, charts, 6, "two node charts, then nodes, pending, cost per hour and cost so far on shared axes")
	for _, c := range charts[2:] {
		assert.Contains(t, c, "Karpenter: ")
		assert.Contains(t, c, "Cluster Autoscaler: ")
	}
	_, err = Compare(Comparison{Karpenter: a})
	assert.Error(t, err)
}

// A result from before node lives were recorded is refused with a reason,
// never drawn empty.
func TestReportRefusesResultsWithoutEvents(t *testing.T) {
	r := simulate(t, "default", 0)
	old := *r
	old.Nodes, old.Pending = nil, nil
	_, err := Simulate(&old)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "older karpsim")
	_, err = Compare(Comparison{Karpenter: r, ClusterAutoscaler: &old})
	assert.ErrorContains(t, err, "clusterAutoscaler")
}

func TestSweepReportHasBarsAndTradeOff(t *testing.T) {
	r := sweepResult(t)
	html, err := Sweep(r)
	require.NoError(t, err)
	charts := svgs(string(html))
	require.Len(t, charts, 2)
	for _, v := range []string{"as-written", "busier", "bigger"} {
		assert.Contains(t, charts[0], v)
		assert.Contains(t, charts[1], v)
	}
	assert.Contains(t, charts[0], "total cost ($)")
	assert.Contains(t, charts[1], "pending p99 (seconds, mean over seeds)")
	assert.Contains(t, string(html), " *</td>", "the best variant is marked")
}

// The labels users write are escaped, in the tables and in the SVG.
func TestReportEscapesNames(t *testing.T) {
	r := simulate(t, "default", 0)
	r.Scenario = `<script>alert("x")</script>`
	html, err := Simulate(r)
	require.NoError(t, err)
	assert.NotContains(t, string(html), `<script>alert`)
}

// TestReportsRenderInChromium opens each kind of report in headless
// Chromium, as a person would: the page loads without console errors, its
// script runs, and the screenshot is not blank. With -update the
// screenshots are written to docs/ for README.md.
func TestReportsRenderInChromium(t *testing.T) {
	browser := chromium.Require(t)
	dir := t.TempDir()
	pages := map[string]func() ([]byte, error){
		"simulate": func() ([]byte, error) { return Simulate(simulate(t, "daily-traffic", 0)) },
		"compare": func() ([]byte, error) {
			// As compare runs them: with utilization measured.
			return Compare(Comparison{Karpenter: simulateWith(t, "daily-traffic", simulator.Config{MeasureUtilization: true}),
				ClusterAutoscaler: simulateWith(t, "daily-traffic", simulator.Config{MeasureUtilization: true, Autoscaler: simulator.AutoscalerClusterAutoscaler})})
		},
		"sweep": func() ([]byte, error) { return Sweep(exampleSweep(t)) },
	}
	for name, render := range pages {
		t.Run(name, func(t *testing.T) {
			html, err := render()
			require.NoError(t, err)
			file := filepath.Join(dir, name+".html")
			require.NoError(t, os.WriteFile(file, html, 0o644))
			dom, logs := chromium.Run(t, browser, dir, "--dump-dom", "file://"+file)
			assert.Contains(t, dom, `data-rendered="yes"`, "the page's script ran")
			chromium.NoConsoleErrors(t, logs)
			if name != "sweep" {
				// The decision filter ran: every decision shown, then only
				// the emptiness ones when the link asks for them.
				all := strings.Count(string(html), "<tr data-method=")
				require.Positive(t, all)
				assert.Contains(t, dom, fmt.Sprintf("%d of %d decisions shown", all, all))
				empties := strings.Count(string(html), `<tr data-method="emptiness"`)
				require.Positive(t, empties)
				dom, logs = chromium.Run(t, browser, dir, "--dump-dom", "file://"+file+"#method=emptiness")
				chromium.NoConsoleErrors(t, logs)
				assert.Contains(t, dom, fmt.Sprintf("%d of %d decisions shown", empties, all))
				assert.Len(t, regexp.MustCompile(`<tr data-method="[^"]*" data-removed="[01]" hidden="">`).FindAllString(dom, -1), all-empties, "rows of other methods are hidden")
			}
			shot := filepath.Join(dir, name+".png")
			chromium.Run(t, browser, dir, "--screenshot="+shot, "--window-size=1100,1500", "file://"+file)
			data, err := os.ReadFile(shot)
			require.NoError(t, err)
			img, err := png.Decode(bytes.NewReader(data))
			require.NoError(t, err)
			assert.Greater(t, chromium.InkedFraction(img), 0.02, "the screenshot is blank")
			if *updateScreenshots {
				// Down to its 256 commonest colours and at the best
				// compression: README's images stay small.
				var small bytes.Buffer
				require.NoError(t, (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&small, commonColours(img)))
				require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "report-"+name+".png"), small.Bytes(), 0o644))
			}
		})
	}
}

// commonColours maps an image onto its 256 commonest colours, each pixel
// to the nearest of them: a screenshot's flat fills stay exact and only
// the anti-aliased edges of text move by a shade.
func commonColours(img image.Image) *image.Paletted {
	b := img.Bounds()
	count := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colours := slices.SortedFunc(maps.Keys(count), func(a, b color.RGBA) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a.R, b.R), cmp.Compare(a.G, b.G), cmp.Compare(a.B, b.B), cmp.Compare(a.A, b.A))
	})
	pal := make(color.Palette, 0, 256)
	for _, c := range colours[:min(len(colours), 256)] {
		pal = append(pal, c)
	}
	out := image.NewPaletted(b, pal)
	draw.Draw(out, b, img, b.Min, draw.Src)
	return out
}

var updateScreenshots = flag.Bool("update", false, "write the Chromium screenshots to docs/ for README.md")

// A title with quotes and angle brackets stays inside its attribute.
func TestChartTitleIsEscapedInItsLabel(t *testing.T) {
	c := timeChart{title: `cost of "a<b>"`, unit: "$/hour", end: 3600,
		lines: []line{{s: Series{Name: "run", Points: [][2]float64{{0, 1}, {3600, 2}}}, colour: "#000"}}}
	assert.Contains(t, c.svg(), `aria-label="cost of &#34;a&lt;b&gt;&#34;"`)
}
