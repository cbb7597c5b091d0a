package report

import (
	"bytes"
	"html"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
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

// newPlot is a plot with a title and labelled axes; its legend, if any,
// is the page's, outside the plot.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	// Sans, as the page is.
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label} {
		st.Font.Variant = "Sans"
	}
	p.Add(plotter.NewGrid())
	return p
}

// headroom leaves a little room above the highest value.
const headroom = 1.1

// axisTop is the top of a value axis whose data reach top.
func axisTop(top float64) float64 {
	if top <= 0 {
		return 1
	}
	return top * headroom
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
	for g := range groups {
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
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return "", err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign = draw.XLeft
			l.TextStyle[i].Font.Variant = "Sans"
		}
		l.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(-3)}
		p.Add(l)
	}
	// Room on the right for the labels, on top for the legend.
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = max(right, 1)*1.3, axisTop(top)
	return svg(p, chartWidth, 4*vg.Inch)
}
