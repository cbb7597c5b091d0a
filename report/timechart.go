package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The time charts are SVG drawn here rather than with gonum/plot: their
// markers carry tooltips, their legends sit outside the plot in HTML, and
// their text takes the page's sans font.
const (
	tcWidth  = 960
	tcHeight = 230
	tcLeft   = 64
	tcRight  = 16
	tcBottom = 36
	// tcRow is the height of a row of disruption markers above the plot.
	tcRow = 14
)

// runColours tell the runs of a comparison apart; a single run's lines
// take palette colours.
var runColours = []string{"#0072B2", "#E69F00"}

// methodColours mark each disruption method, apart from the runs' colours.
var methodColours = map[string]string{
	"emptiness":                 "#2E7D32",
	"single-node-consolidation": "#6A3D9A",
	"multi-node-consolidation":  "#B15928",
	"drift":                     "#C01C28",
	"expiration":                "#444444",
	"interruption":              "#E7298A",
	// The Cluster Autoscaler's scale-downs.
	"empty":    "#A6761D",
	"unneeded": "#1B9AAA",
}

func methodColour(m string) string {
	if c, ok := methodColours[m]; ok {
		return c
	}
	return "#17BECF"
}

func hex(c [4]uint8) string { return fmt.Sprintf("#%02X%02X%02X", c[0], c[1], c[2]) }

// paletteHex is the palette as CSS colours.
func paletteHex(i int) string {
	c := colour(i)
	return hex([4]uint8{c.R, c.G, c.B, c.A})
}

// line is one series as a chart draws it.
type line struct {
	s      Series
	colour string
	dashed bool
	// width is the stroke's, in pixels; 0 is 2.
	width float64
}

// markerRow is one run's disruption markers, drawn as a row of glyphs
// above the plot with a faint line down through it.
type markerRow struct {
	run     string
	markers []Marker
	// square draws squares instead of triangles (the second run of a
	// comparison).
	square bool
}

// timeChart is a figure: a title, an HTML legend, and the SVG of the
// series over the run (stacked as bands when stacked is set), the markers
// above. top, when above 0, is the value axis' top (shared axes).
type timeChart struct {
	id, title, unit string
	end             float64
	lines           []line
	stacked         bool
	rows            []markerRow
	top             float64
	// money labels the value axis in dollars.
	money bool
}

// yTicks are the value axis' ticks: a 1, 2 or 5 step giving at most six,
// whole numbers for counts, each label distinct.
func yTicks(top float64, whole bool) (step float64, ticks []float64) {
	if top <= 0 {
		top = 1
	}
	raw := top / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if whole {
		step = math.Max(1, math.Ceil(step))
	}
	for i := 0; ; i++ {
		v := float64(i) * step
		ticks = append(ticks, v)
		if i > 0 && v >= top*(1-1e-12) {
			return step, ticks
		}
	}
}

// decimals is how many decimals tell ticks a step apart.
func decimals(step float64) int {
	for d := 0; d < 12; d++ {
		if x := step * math.Pow(10, float64(d)); x >= 0.999 && math.Abs(x-math.Round(x)) < 1e-6*x {
			return d
		}
	}
	return 12
}

// timeTicks are the time axis' ticks, in seconds, at a step of a quarter
// hour to a year giving at most a dozen, and the step in hours.
func timeTicks(end float64) ([]float64, float64) {
	steps := []float64{0.25, 0.5, 1, 2, 3, 4, 6, 12, 24, 48, 72, 168, 336, 720, 1440, 2160, 4320, 8760}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if end/3600/s <= 12 {
			step = s
			break
		}
	}
	var out []float64
	for h := 0.0; h*3600 <= end+1e-6; h += step {
		out = append(out, h*3600)
	}
	return out, step
}

// timeLabel prints seconds as h:mm, or as days when the ticks are days
// apart.
func timeLabel(t, stepHours float64) string {
	if stepHours >= 24 {
		return strconv.FormatFloat(math.Round(t/86400*10)/10, 'f', -1, 64) + "d"
	}
	m := int64(math.Round(t / 60))
	return fmt.Sprintf("%d:%02d", m/60, m%60)
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// valueTop is the largest value of the lines, summed when stacked.
func (c timeChart) valueTop() float64 {
	top := 0.0
	if c.stacked {
		for i := range c.lines {
			for _, p := range c.lines[i].s.Points {
				sum := 0.0
				for _, l := range c.lines {
					sum += l.s.At(p[0])
				}
				top = math.Max(top, sum)
			}
		}
		return top
	}
	for _, l := range c.lines {
		for _, p := range l.s.Points {
			top = math.Max(top, p[1])
		}
	}
	return top
}

// html renders the figure.
func (c timeChart) html() template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart" id="%s"><figcaption>%s</figcaption>`, html.EscapeString(c.id), html.EscapeString(c.title))
	b.WriteString(`<div class="legend">`)
	for i := range c.lines {
		l := c.lines[i]
		if c.stacked {
			l = c.lines[len(c.lines)-1-i]
		}
		kind := "line"
		if c.stacked {
			kind = "band"
		} else if l.dashed {
			kind = "line dashed"
		}
		fmt.Fprintf(&b, `<span class="key"><i class="%s" style="--c:%s"></i>%s</span>`, kind, l.colour, html.EscapeString(l.s.Name))
	}
	for _, r := range c.rows {
		seen := map[string]int{}
		var order []string
		for _, m := range r.markers {
			if seen[m.Method] == 0 {
				order = append(order, m.Method)
			}
			seen[m.Method] += m.Nodes
		}
		glyph := "tri"
		if r.square {
			glyph = "sq"
		}
		for _, m := range order {
			name := m
			if r.run != "" {
				name = r.run + ": " + m
			}
			fmt.Fprintf(&b, `<span class="key"><i class="%s" style="--c:%s"></i>%s (%d nodes)</span>`, glyph, methodColour(m), html.EscapeString(name), seen[m])
		}
	}
	b.WriteString(`</div>`)
	b.WriteString(c.svg())
	b.WriteString(`</figure>`)
	return template.HTML(b.String())
}

func (c timeChart) svg() string {
	top := c.top
	if top <= 0 {
		top = c.valueTop()
	}
	step, ticks := yTicks(top, !c.money && c.unit != "$/hour")
	axisTop := ticks[len(ticks)-1]
	plotTop := float64(6 + tcRow*len(c.rows))
	height := float64(tcHeight) + plotTop
	plotBottom := height - tcBottom
	x := func(t float64) float64 { return tcLeft + (tcWidth-tcLeft-tcRight)*t/math.Max(c.end, 1) }
	y := func(v float64) float64 { return plotBottom - (plotBottom-plotTop)*v/axisTop }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %s" width="%d" height="%s" role="img" aria-label="%s">`,
		tcWidth, f1(height), tcWidth, f1(height), html.EscapeString(c.title))
	// Grid and value axis.
	dec := decimals(step)
	for _, v := range ticks {
		label := strconv.FormatFloat(v, 'f', dec, 64)
		if c.money {
			label = "$" + label
		}
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s"/>`, tcLeft, tcWidth-tcRight, f1(y(v)), f1(y(v)))
		fmt.Fprintf(&b, `<text class="tick" x="%d" y="%s" text-anchor="end">%s</text>`, tcLeft-6, f1(y(v)+4), label)
	}
	fmt.Fprintf(&b, `<text class="axis" transform="translate(14 %s) rotate(-90)" text-anchor="middle">%s</text>`,
		f1((plotTop+plotBottom)/2), html.EscapeString(c.unit))
	// Time axis.
	tTicks, tStep := timeTicks(c.end)
	for _, t := range tTicks {
		fmt.Fprintf(&b, `<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(x(t)), f1(x(t)), f1(plotTop), f1(plotBottom))
		fmt.Fprintf(&b, `<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`, f1(x(t)), f1(plotBottom+15), timeLabel(t, tStep))
	}
	unit := "h:mm"
	if tStep >= 24 {
		unit = "days"
	}
	fmt.Fprintf(&b, `<text class="axis" x="%s" y="%s" text-anchor="middle">time since start (%s)</text>`, f1((tcLeft+tcWidth-tcRight)/2.0), f1(height-4), unit)
	fmt.Fprintf(&b, `<line class="axisline" x1="%d" x2="%d" y1="%s" y2="%s"/>`, tcLeft, tcWidth-tcRight, f1(plotBottom), f1(plotBottom))
	// Series.
	if c.stacked {
		below := Series{Points: [][2]float64{{0, 0}, {c.end, 0}}}
		for _, l := range c.lines {
			above := addSeries(below, l.s)
			fmt.Fprintf(&b, `<path class="band" data-series="%s" fill="%s" d="%s"/>`, html.EscapeString(l.s.Name), l.colour, bandPath(above, below, x, y))
			below = above
		}
	} else {
		for _, l := range c.lines {
			dash := ""
			if l.dashed {
				dash = ` stroke-dasharray="6 3"`
			}
			if l.width > 0 {
				dash += fmt.Sprintf(` stroke-width="%s"`, f1(l.width))
			}
			fmt.Fprintf(&b, `<path class="series" data-series="%s" stroke="%s"%s d="%s"/>`, html.EscapeString(l.s.Name), l.colour, dash, seriesPath(l.s, x, y))
		}
	}
	// Markers: a row of glyphs per run above the plot, each with a faint
	// line down through it and its decision as a tooltip.
	for i, r := range c.rows {
		cy := 4 + tcRow*float64(i) + tcRow/2
		for _, m := range r.markers {
			mx, col := x(m.At), methodColour(m.Method)
			glyph := fmt.Sprintf(`<path d="M%s %s l-5 -6 h10 z" fill="%s"/>`, f1(mx), f1(cy+3), col)
			if r.square {
				glyph = fmt.Sprintf(`<rect x="%s" y="%s" width="8" height="8" fill="%s"/>`, f1(mx-4), f1(cy-4), col)
			}
			label := m.Label
			if r.run != "" {
				label = r.run + " — " + label
			}
			fmt.Fprintf(&b, `<g class="marker" data-method="%s"><title>%s</title><line x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s"/>%s</g>`,
				html.EscapeString(m.Method), html.EscapeString(label), f1(mx), f1(mx), f1(cy), f1(plotBottom), col, glyph)
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// addSeries adds two step series point by point.
func addSeries(a, b Series) Series {
	var ts []float64
	for _, p := range a.Points {
		ts = append(ts, p[0])
	}
	for _, p := range b.Points {
		ts = append(ts, p[0])
	}
	ts = sortedUnique(ts)
	out := Series{Name: b.Name}
	for _, t := range ts {
		out.Points = append(out.Points, [2]float64{t, a.At(t) + b.At(t)})
	}
	return out
}

func sortedUnique(ts []float64) []float64 {
	out := slices.Clone(ts)
	slices.Sort(out)
	return slices.Compact(out)
}

// seriesPath is a series' SVG path: horizontal then vertical for a step
// series, straight for a linear one.
func seriesPath(s Series, x, y func(float64) float64) string {
	var b strings.Builder
	for i, p := range s.Points {
		switch {
		case i == 0:
			fmt.Fprintf(&b, "M%s %s", f1(x(p[0])), f1(y(p[1])))
		case s.Linear:
			fmt.Fprintf(&b, "L%s %s", f1(x(p[0])), f1(y(p[1])))
		default:
			fmt.Fprintf(&b, "H%sV%s", f1(x(p[0])), f1(y(p[1])))
		}
	}
	return b.String()
}

// bandPath is the area between two step series.
func bandPath(above, below Series, x, y func(float64) float64) string {
	var b strings.Builder
	b.WriteString(seriesPath(above, x, y))
	for i := len(below.Points) - 1; i >= 0; i-- {
		p := below.Points[i]
		if i < len(below.Points)-1 {
			fmt.Fprintf(&b, "V%s", f1(y(p[1])))
		} else {
			fmt.Fprintf(&b, "L%s %s", f1(x(p[0])), f1(y(p[1])))
		}
		fmt.Fprintf(&b, "H%s", f1(x(p[0])))
	}
	b.WriteString("Z")
	return b.String()
}
