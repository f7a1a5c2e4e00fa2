package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/output/present"
)

// The forest figure shows every metric of a comparison at once: B over A
// (B/A = 1 + delta_pct/100) with its interval (1 + ci_low/A to
// 1 + ci_high/A, the interval of B−A relative to A), one row per metric
// in the report's order, on a log axis where 1 is no difference and
// halving and doubling lie at equal distances. It needs the metrics only,
// not the records. Points and intervals are coloured by the verdict: A's
// colour where A is better, B's where B is, grey where no verdict was
// drawn. A point outside the axis (B/A below 1/forestSpan or above
// forestSpan) is drawn at its edge as a triangle; an interval reaching
// beyond it (or below 0) ends at the edge.

// ForestName is the forest figure's name (and file name).
const ForestName = "forest"

// forestSpan bounds the axis at 1/forestSpan to forestSpan.
const forestSpan = 100

var colorNone = color.RGBA{R: 120, G: 120, B: 120, A: 255}

// Forest is the forest figure of r, its systems named as every figure
// names them; ok is false when no metric has a ratio.
func Forest(r *compare.Report) (Figure, bool) { return forest(r, present.SideLabels(r)) }

// forestRow is one metric's point and interval, as B/A.
type forestRow struct {
	name   string
	ratio  float64
	lo, hi float64 // NaN when the metric has no interval
	c      color.Color
}

// forestRows turns the metrics into rows; metrics with A = 0 have no
// ratio and are left out.
func forestRows(ms []compare.Metric) []forestRow {
	var rows []forestRow
	for _, m := range ms {
		if m.DeltaPct == nil || !(m.A > 0) {
			continue
		}
		r := forestRow{name: m.Name, ratio: 1 + *m.DeltaPct/100, lo: math.NaN(), hi: math.NaN(), c: colorNone}
		if m.CILow != nil && m.CIHigh != nil {
			r.lo, r.hi = 1+*m.CILow/m.A, 1+*m.CIHigh/m.A
		}
		switch m.Verdict {
		case compare.VerdictA:
			r.c = colorA
		case compare.VerdictB:
			r.c = colorB
		}
		rows = append(rows, r)
	}
	return rows
}

// clip keeps v on the forest axis and reports whether it had to move it.
func clip(v float64) (float64, bool) {
	switch {
	case !(v >= 1.0/forestSpan): // below, zero, negative or NaN
		return 1.0 / forestSpan, true
	case v > forestSpan:
		return forestSpan, true
	}
	return v, false
}

// forest draws the figure; ok is false when no metric has a ratio.
func forest(r *compare.Report, sides [2]string) (Figure, bool) {
	rows := forestRows(r.Metrics)
	if len(rows) == 0 {
		return Figure{}, false
	}
	p := plot.New()
	// The legend names the systems; the title stays short enough to fit
	// above the plot whatever their names.
	p.Title.Text = fmt.Sprintf("B relative to A: every metric, with its %s interval", confidence(r.Alpha))
	p.X.Label.Text = "B/A (1 = no difference; left of 1 B is lower)"
	p.Add(plotter.NewGrid())
	n := len(rows)
	names := make([]string, n)
	lo, hi := 1.0, 1.0
	for i, row := range rows {
		y := float64(n - 1 - i) // the report's first metric on top
		names[n-1-i] = row.name
		x, cx := clip(row.ratio)
		for _, v := range []float64{x, row.lo, row.hi} {
			if w, _ := clip(v); !math.IsNaN(v) {
				lo, hi = min(lo, w), max(hi, w)
			}
		}
		if !math.IsNaN(row.lo) {
			l, _ := clip(row.lo)
			h, _ := clip(row.hi)
			line, _ := plotter.NewLine(plotter.XYs{{X: l, Y: y}, {X: h, Y: y}})
			line.Color, line.Width = row.c, vg.Points(1.5)
			p.Add(line)
		}
		sc, _ := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
		sc.GlyphStyle = draw.GlyphStyle{Color: row.c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		if cx {
			sc.Shape = draw.TriangleGlyph{}
		}
		p.Add(sc)
	}
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	setRatioAxis(&p.X, lo, hi)
	one, _ := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(n) - 0.5}})
	one.Color, one.Width = color.Black, vg.Points(0.8)
	p.Add(one)
	p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3
	leg := plot.NewLegend()
	for _, k := range []struct {
		text string
		c    color.Color
	}{{sides[0] + " better (verdict a)", colorA}, {sides[1] + " better (verdict b)", colorB}, {"no verdict (~ or needs more runs)", colorNone}} {
		l := plotter.NewFunction(func(float64) float64 { return 0 })
		l.Color, l.Width = k.c, vg.Points(2)
		leg.Add(k.text, l)
	}
	leg.Add("triangle: beyond the axis")
	h := vg.Length(math.Max(4, 1.2+0.22*float64(n))) * vg.Inch
	return single(ForestName, p, leg, 10*vg.Inch, h), true
}

// setRatioAxis makes ax a log axis of B/A around 1, from a little below
// lo to a little above hi, with ticks at 1, 2 and 5 times powers of ten
// and, on a narrow axis, at ±10% and ±25%.
func setRatioAxis(ax *plot.Axis, lo, hi float64) {
	lo, hi = min(lo, 0.9), max(hi, 1.1)
	ax.Label.Text += logNote
	ax.Scale = plot.LogScale{}
	ax.Min, ax.Max = lo/1.1, hi*1.1
	ax.Tick.Marker = ratioTicks{}
}

// ratioTicks marks a B/A axis.
type ratioTicks struct{}

// Ticks implements plot.Ticker.
func (ratioTicks) Ticks(lo, hi float64) []plot.Tick {
	cands := []float64{0.8, 0.9, 1.1, 1.25}
	if hi/lo > 20 {
		cands = nil
	}
	for e := -2.0; e <= 2; e++ {
		for _, m := range []float64{1, 2, 5} {
			cands = append(cands, m*math.Pow(10, e))
		}
	}
	var ts []plot.Tick
	for _, v := range cands {
		if v >= lo && v <= hi {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 3, 64)})
		}
	}
	return ts
}

// confidence is the interval's level for significance level alpha (0:
// 0.05): "95%".
func confidence(alpha float64) string {
	if !(alpha > 0) {
		alpha = 0.05
	}
	return strconv.FormatFloat(100*(1-alpha), 'g', 4, 64) + "%"
}
