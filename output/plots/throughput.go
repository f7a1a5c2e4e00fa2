package plots

import (
	"image/color"
	"strconv"

	"github.com/servecmp/servecmp/output/present"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/servecmp/servecmp/compare"
)

// tlSeries is one latency percentile on the x axis of a
// throughput–latency panel.
type tlSeries struct {
	pct    string
	x      func(compare.SweepPoint) float64
	dashed bool
}

// tlColumns are the panels' x axes. The sweep points carry TPOT at p50
// only, so the TPOT column has no p99 series.
var tlColumns = []struct {
	metric, label string
	series        []tlSeries
}{
	{"tpot_ms", "TPOT (ms)", []tlSeries{{"p50", func(p compare.SweepPoint) float64 { return p.TPOTP50 }, false}}},
	{"ttft_ms", "TTFT (ms)", []tlSeries{
		{"p50", func(p compare.SweepPoint) float64 { return p.TTFTP50 }, false},
		{"p99", func(p compare.SweepPoint) float64 { return p.TTFTP99 }, true},
	}},
}

// tlRows are the panels' y axes: total output throughput, and the share
// one request in flight sees (see perUser).
var tlRows = []struct {
	label string
	y     func(kind string, p compare.SweepPoint) float64
}{
	{"output tokens/s, total", func(_ string, p compare.SweepPoint) float64 { return p.OutputThroughput }},
	{"output tokens/s per user", perUser},
}

// sloColor draws the SLO thresholds.
var sloColor = color.RGBA{R: 90, G: 90, B: 90, A: 255}

// throughputLatency draws output throughput (total, and per user) against
// TPOT and TTFT across each sweep, one line per curve and percentile,
// every point labelled with its offered load, with the SLO thresholds.
func throughputLatency(curves []compare.SweepCurve, sides [2]string, slo []present.SLOLine) (Figure, error) {
	styles := curveStyles(curves, sides)
	f := Figure{Name: "throughput_latency", W: 11 * vg.Inch, H: 8 * vg.Inch, Legend: plot.NewLegend()}
	for _, row := range tlRows {
		var panels []*plot.Plot
		for _, col := range tlColumns {
			p, err := tlPanel(curves, styles, row.label, row.y, col.label, col.series, sloFor(slo, col.metric))
			if err != nil {
				return Figure{}, err
			}
			panels = append(panels, p)
		}
		f.Panels = append(f.Panels, panels)
	}
	for _, st := range styles {
		l := plotter.NewFunction(func(float64) float64 { return 0 })
		l.Color, l.Dashes = st.color, st.dash
		f.Legend.Add(st.name, l)
	}
	for _, k := range []struct{ pct, text string }{{"p50", "p50: circles, solid"}, {"p99", "p99: triangles, dotted"}} {
		sc := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3), Shape: pctGlyph[k.pct]}}
		f.Legend.Add(k.text, sc)
	}
	for _, s := range slo {
		f.Legend.Add(s.Label(), sloLine(0, 0, 1))
	}
	f.Legend.Add("labels: offered " + curves[0].Kind)
	return f, nil
}

// sloFor returns the thresholds that apply to metric.
func sloFor(slo []present.SLOLine, metric string) []present.SLOLine {
	var out []present.SLOLine
	for _, s := range slo {
		if s.Metric == metric {
			out = append(out, s)
		}
	}
	return out
}

func sloLine(x, y0, y1 float64) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x, Y: y0}, {X: x, Y: y1}})
	l.Color = sloColor
	l.Width = vg.Points(1.2)
	l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	return l
}

// tlPanel draws one y metric against one latency column.
func tlPanel(curves []compare.SweepCurve, styles []curveStyle, ylabel string, y func(string, compare.SweepPoint) float64,
	xlabel string, series []tlSeries, slo []present.SLOLine) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = ylabel + " vs " + xlabel
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Add(plotter.NewGrid())
	var xs, ys []float64
	labels := newLabelLayer()
	for i, c := range curves {
		for _, s := range series {
			pts, texts := tlPoints(c, y, s.x)
			if len(pts) == 0 {
				continue
			}
			if err := addSeries(p, pts, styles[i], s); err != nil {
				return nil, err
			}
			labels.add(pts, texts, styles[i].color)
			for _, pt := range pts {
				xs, ys = append(xs, pt.X), append(ys, pt.Y)
			}
		}
	}
	for _, s := range slo {
		xs = append(xs, s.Ms)
	}
	quantityAxis(&p.X, xs)
	quantityAxis(&p.Y, ys)
	for _, s := range slo {
		p.Add(sloLine(s.Ms, p.Y.Min, p.Y.Max))
	}
	p.Add(labels) // last: clear of every point and of each other
	return p, nil
}

// tlPoints returns the drawable points of a curve and their offered-load
// labels.
func tlPoints(c compare.SweepCurve, y func(string, compare.SweepPoint) float64, x func(compare.SweepPoint) float64) (plotter.XYs, []string) {
	var pts plotter.XYs
	var labels []string
	for _, pt := range c.Points {
		px, py := x(pt), y(c.Kind, pt)
		if !finite(px) || !finite(py) || px <= 0 {
			continue
		}
		pts = append(pts, plotter.XY{X: px, Y: py})
		labels = append(labels, strconv.FormatFloat(pt.Offered, 'g', 4, 64))
	}
	return pts, labels
}

// addSeries draws one curve's points for one percentile (their labels
// go to the panel's labelLayer).
func addSeries(p *plot.Plot, pts plotter.XYs, st curveStyle, s tlSeries) error {
	l, sc, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	l.Color, sc.Color, sc.Shape = st.color, st.color, pctGlyph[s.pct]
	l.Dashes = st.dash
	if s.dashed {
		l.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	}
	p.Add(l, sc)
	return nil
}
