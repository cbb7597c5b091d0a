package report

import (
	"bytes"
	"html"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The charts' size: wide enough for a day's axis, short enough that three
// fit on a laptop's screen.
const (
	chartWidth  = 9 * vg.Inch
	chartHeight = 3.2 * vg.Inch
)

// palette are the series' colours, chosen to stay apart for common colour
// blindness (Okabe–Ito), then greys.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, {0xE6, 0x9F, 0x00, 0xFF}, {0x00, 0x9E, 0x73, 0xFF}, {0xCC, 0x79, 0xA7, 0xFF},
	{0x56, 0xB4, 0xE9, 0xFF}, {0xD5, 0x5E, 0x00, 0xFF}, {0xF0, 0xE4, 0x42, 0xFF}, {0x99, 0x99, 0x99, 0xFF},
}

func colour(i int) color.RGBA { return palette[i%len(palette)] }

// disruptionColour marks disruptions on time axes.
var disruptionColour = color.RGBA{0xC0, 0x1C, 0x28, 0xFF}

// newPlot is a plot with a title and labelled axes, its legend on top.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Add(plotter.NewGrid())
	return p
}

// headroom leaves the top fifth of a chart to its legend.
const headroom = 1.35

// axisTop is the top of a value axis whose data reach top.
func axisTop(top float64) float64 {
	if top <= 0 {
		return 1
	}
	return top * headroom
}

// hourTicks marks a time axis in hours at a step that gives at most a dozen
// ticks: a quarter hour up to a day.
type hourTicks struct{}

func (hourTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 24.0
	for _, s := range []float64{0.25, 0.5, 1, 2, 3, 4, 6, 12, 24} {
		if (hi-lo)/s <= 12 {
			step = s
			break
		}
	}
	var out []plot.Tick
	for x := math.Ceil(lo/step) * step; x <= hi+1e-9; x += step {
		out = append(out, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)})
	}
	return out
}

// svg renders a plot as an SVG element for inlining in HTML: without the
// XML declaration, with a title for screen readers.
func svg(p *plot.Plot, width, height vg.Length) (string, error) {
	c := vgsvg.New(width, height)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	out := b.String()
	if i := strings.Index(out, "<svg"); i > 0 {
		out = out[i:]
	}
	return strings.Replace(out, ">", ` role="img" aria-label="`+html.EscapeString(p.Title.Text)+`">`, 1), nil
}

// series is one named line over time (hours).
type series struct {
	name string
	xs   []float64
	ys   []float64
}

// lineChart draws series as lines (steps hold their value until the next
// point) and marks the given times with vertical lines.
func lineChart(title, yLabel string, ss []series, marks []float64, markName string) (string, error) {
	p := newPlot(title, "time since start (hours)", yLabel)
	p.X.Tick.Marker = hourTicks{}
	top := 0.0
	for _, s := range ss {
		for _, y := range s.ys {
			top = math.Max(top, y)
		}
	}
	addMarks(p, marks, markName, top)
	for i, s := range ss {
		pts := stepPoints(s.xs, s.ys)
		l, err := plotter.NewLine(pts)
		if err != nil {
			return "", err
		}
		l.Color = colour(i)
		l.Width = vg.Points(1.8)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.Y.Min, p.Y.Max = 0, axisTop(top)
	return svg(p, chartWidth, chartHeight)
}

// stackedChart draws series stacked as filled bands, the first at the
// bottom, and marks the given times.
func stackedChart(title, yLabel string, ss []series, marks []float64, markName string) (string, error) {
	p := newPlot(title, "time since start (hours)", yLabel)
	p.X.Tick.Marker = hourTicks{}
	if len(ss) == 0 {
		return svg(p, chartWidth, chartHeight)
	}
	xs := ss[0].xs
	below := make([]float64, len(xs))
	top := 0.0
	type band struct {
		poly *plotter.Polygon
		name string
	}
	var bands []band
	for i, s := range ss {
		above := make([]float64, len(xs))
		for j := range xs {
			above[j] = below[j] + s.ys[j]
			top = math.Max(top, above[j])
		}
		upper := stepPoints(xs, above)
		lower := stepPoints(xs, below)
		ring := make(plotter.XYs, 0, len(upper)+len(lower))
		ring = append(ring, upper...)
		for k := len(lower) - 1; k >= 0; k-- {
			ring = append(ring, lower[k])
		}
		poly, err := plotter.NewPolygon(ring)
		if err != nil {
			return "", err
		}
		poly.Color = colour(i)
		poly.LineStyle.Width = 0
		bands = append(bands, band{poly, s.name})
		below = above
	}
	for _, b := range bands {
		p.Add(b.poly)
	}
	// The legend lists the top band first, as the eye meets them.
	for i := len(bands) - 1; i >= 0; i-- {
		p.Legend.Add(bands[i].name, bands[i].poly)
	}
	addMarks(p, marks, markName, top)
	p.Y.Min, p.Y.Max = 0, axisTop(top)
	return svg(p, chartWidth, chartHeight)
}

// addMarks draws a dashed vertical line at each time, named once in the
// legend.
func addMarks(p *plot.Plot, marks []float64, name string, top float64) {
	if top == 0 {
		top = 1
	}
	for i, x := range marks {
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
		if err != nil {
			continue
		}
		l.Color = disruptionColour
		l.Width = vg.Points(0.8)
		l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(l)
		if i == 0 {
			p.Legend.Add(name, l)
		}
	}
}

// stepPoints turns samples into a step function: each value holds until the
// next sample.
func stepPoints(xs, ys []float64) plotter.XYs {
	pts := make(plotter.XYs, 0, 2*len(xs))
	for i := range xs {
		if i > 0 {
			pts = append(pts, plotter.XY{X: xs[i], Y: ys[i-1]})
		}
		pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
	}
	return pts
}

// bar is one bar with its range.
type bar struct {
	name          string
	value, lo, hi float64
	best          bool
}

// barChart draws bars with min–max whiskers.
func barChart(title, yLabel string, bars []bar) (string, error) {
	p := newPlot(title, "variant", yLabel)
	values := make(plotter.Values, len(bars))
	names := make([]string, len(bars))
	errs := make(plotter.YErrors, len(bars))
	pts := make(plotter.XYs, len(bars))
	for i, b := range bars {
		values[i] = b.value
		names[i] = b.name
		if b.best {
			names[i] += " *"
		}
		errs[i].Low, errs[i].High = b.value-b.lo, b.hi-b.value
		pts[i] = plotter.XY{X: float64(i), Y: b.value}
	}
	bc, err := plotter.NewBarChart(values, vg.Points(28))
	if err != nil {
		return "", err
	}
	bc.Color = colour(0)
	bc.LineStyle.Width = 0
	p.Add(bc)
	p.Legend.Add("mean over seeds (whiskers: min and max)", bc)
	whiskers := struct {
		plotter.XYs
		plotter.YErrors
	}{pts, errs}
	eb, err := plotter.NewYErrorBars(whiskers)
	if err != nil {
		return "", err
	}
	eb.Color = color.Black
	p.Add(eb)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(bars))-0.4
	top := 0.0
	for _, b := range bars {
		top = max(top, b.hi)
	}
	p.Y.Min, p.Y.Max = 0, axisTop(top)
	return svg(p, chartWidth, chartHeight)
}

// point is one labelled point of a scatter.
type point struct {
	label string
	x, y  float64
	group int
}

// scatterChart draws labelled points, coloured by group; points of a
// group that (nearly) coincide are drawn once with one label for all.
func scatterChart(title, xLabel, yLabel string, pts []point, groups []string) (string, error) {
	p := newPlot(title, xLabel, yLabel)
	top, right := 0.0, 0.0
	for _, pt := range pts {
		top, right = max(top, pt.y), max(right, pt.x)
	}
	near := func(q plotter.XY, pt point) bool {
		return math.Abs(q.X-pt.x) <= 0.02*max(right, 1) && math.Abs(q.Y-pt.y) <= 0.02*max(top, 1e-9)
	}
	for g, name := range groups {
		var xys plotter.XYs
		var labels []string
		for _, pt := range pts {
			if pt.group != g {
				continue
			}
			if i := slices.IndexFunc(xys, func(q plotter.XY) bool { return near(q, pt) }); i >= 0 {
				labels[i] += ", " + pt.label
				continue
			}
			xys = append(xys, plotter.XY{X: pt.x, Y: pt.y})
			labels = append(labels, pt.label)
		}
		if len(xys) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return "", err
		}
		s.Color = colour(g)
		s.Radius = vg.Points(4)
		s.Shape = draw.CircleGlyph{}
		p.Add(s)
		p.Legend.Add(name, s)
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return "", err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign = draw.XLeft
		}
		l.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(-3)}
		p.Add(l)
	}
	// Room on the right for the labels, on top for the legend.
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = max(right, 1)*1.3, axisTop(top)
	return svg(p, chartWidth, 4*vg.Inch)
}
