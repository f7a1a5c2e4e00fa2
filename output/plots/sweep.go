package plots

import (
	"image/color"
	"math"
	"path/filepath"

	"github.com/servecmp/servecmp/output/present"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/servecmp/servecmp/compare"
)

// curveStyle is how one sweep curve is drawn: the side's colour, and a
// dashed line for every curve of a side after its first.
type curveStyle struct {
	name  string
	color color.Color
	dash  []vg.Length
}

// curveStyles names each curve by its system (sides, as
// present.SideLabels gives them) and, when a side has several sweeps, by
// its file too.
func curveStyles(curves []compare.SweepCurve, sides [2]string) []curveStyle {
	seen, count := map[string]int{}, map[string]int{}
	for _, c := range curves {
		count[c.Side]++
	}
	out := make([]curveStyle, len(curves))
	for i, c := range curves {
		name := sides[0]
		if c.Side == "b" {
			name = sides[1]
		}
		if count[c.Side] > 1 {
			name += " (" + filepath.Base(c.Path) + ")"
		}
		st := curveStyle{name: name, color: colorA}
		if c.Side == "b" {
			st.color = colorB
		}
		if seen[c.Side] > 0 {
			st.dash = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		seen[c.Side]++
		out[i] = st
	}
	return out
}

// sweepFigures are the one-metric curves against offered load.
// A latency figure draws the SLO thresholds on its metric and
// percentile (metric, pct) as horizontal lines.
var sweepFigures = []struct {
	name, ylabel string
	get          func(compare.SweepPoint) float64
	metric, pct  string
}{
	{"sweep_output_throughput", "output throughput (tokens/s)", func(p compare.SweepPoint) float64 { return p.OutputThroughput }, "", ""},
	{"sweep_request_throughput", "request throughput (requests/s)", func(p compare.SweepPoint) float64 { return p.RequestThroughput }, "", ""},
	{"sweep_ttft_ms_p50", "TTFT p50 (ms)", func(p compare.SweepPoint) float64 { return p.TTFTP50 }, "ttft_ms", "p50"},
	{"sweep_tpot_ms_p50", "TPOT p50 (ms)", func(p compare.SweepPoint) float64 { return p.TPOTP50 }, "tpot_ms", "p50"},
	{"sweep_e2e_ms_p99", "E2E latency p99 (ms)", func(p compare.SweepPoint) float64 { return p.E2EP99 }, "e2e_ms", "p99"},
}

func sweeps(curves []compare.SweepCurve, sides [2]string, slo []present.SLOLine) ([]Figure, error) {
	var figs []Figure
	for _, fig := range sweepFigures {
		p, leg, err := sweep(curves, sides, fig.ylabel, fig.get)
		if err != nil {
			return nil, err
		}
		for _, s := range slo {
			if s.Bounds(fig.metric, fig.pct) {
				p.Add(sloHLine(s.Ms, p.X.Min, p.X.Max))
				leg.Add(s.Label(), sloHLine(0, 0, 1))
				if s.Ms > p.Y.Max {
					p.Y.Max = s.Ms * 1.05
				}
			}
		}
		figs = append(figs, single(fig.name, p, leg, 7*vg.Inch, 4*vg.Inch))
	}
	return figs, nil
}

// sloHLine is a threshold drawn across a plot at y.
func sloHLine(y, x0, x1 float64) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	l.Color = sloColor
	l.Width = vg.Points(1.2)
	l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	return l
}

// finite reports whether v can be drawn.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func sweep(curves []compare.SweepCurve, sides [2]string, ylabel string, get func(compare.SweepPoint) float64) (*plot.Plot, plot.Legend, error) {
	p := plot.New()
	p.Title.Text = ylabel + " vs offered load"
	p.X.Label.Text = present.OfferedLoadLabel(curves)
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	var xs, ys []float64
	for i, st := range curveStyles(curves, sides) {
		var pts plotter.XYs
		for _, pt := range curves[i].Points {
			if y := get(pt); finite(pt.Offered) && finite(y) {
				pts = append(pts, plotter.XY{X: pt.Offered, Y: y})
				xs, ys = append(xs, pt.Offered), append(ys, y)
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, leg, err
		}
		l.Color, sc.Color, l.Dashes = st.color, st.color, st.dash
		p.Add(l, sc)
		leg.Add(st.name, l, sc)
	}
	quantityAxis(&p.X, xs)
	quantityAxis(&p.Y, ys)
	return p, leg, nil
}

// inFlight estimates the requests in flight at a sweep step: the offered
// concurrency of a closed loop, or by Little's law the request throughput
// times the median end-to-end latency (standing in for the mean) of an
// open loop. It returns 0 when unknown.
func inFlight(kind string, pt compare.SweepPoint) float64 {
	if kind == "concurrency" {
		return pt.Offered
	}
	return pt.RequestThroughput * pt.E2EP50 / 1000
}

// perUser is the output tokens/s one request in flight sees, NaN when the
// requests in flight are unknown.
func perUser(kind string, pt compare.SweepPoint) float64 {
	n := inFlight(kind, pt)
	if !(n > 0) {
		return math.NaN()
	}
	return pt.OutputThroughput / n
}

// glyphs per percentile: filled circles for p50, triangles for p99.
var pctGlyph = map[string]draw.GlyphDrawer{"p50": draw.CircleGlyph{}, "p99": draw.TriangleGlyph{}}
