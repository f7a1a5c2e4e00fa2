package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/servecmp/servecmp/compare"
)

// latencyNames spell the latency samples for people: a short name for
// titles, the axis label, and the noun for one sample (a request, or a gap
// between two streamed chunks).
var latencyNames = map[string]struct{ short, axis, noun string }{
	"ttft_ms":          {"TTFT", "TTFT", "requests"},
	"tpot_ms":          {"TPOT", "TPOT", "requests"},
	"itl_ms":           {"ITL", "ITL, gap between streamed chunks", "gaps"},
	"itl_per_token_ms": {"ITL per token", "ITL per token", "gaps"},
	"e2e_ms":           {"E2E latency", "E2E latency", "requests"},
}

// latencyName returns the title name, axis label and noun of a sample.
func latencyName(name string) (short, axis, noun string) {
	if n, ok := latencyNames[name]; ok {
		return n.short, n.axis, n.noun
	}
	s := strings.TrimSuffix(name, "_ms")
	return s, s, "requests"
}

// ecdf returns the empirical CDF of vs as a step-free polyline, thinned to
// about 2000 points.
func ecdf(vs []float64) plotter.XYs {
	sorted := vs
	if !slices.IsSorted(vs) {
		sorted = slices.Sorted(slices.Values(vs))
	}
	n := len(sorted)
	step := max(1, n/2000)
	pts := make(plotter.XYs, 0, n/step+1)
	for i := 0; i < n; i += step {
		pts = append(pts, plotter.XY{X: sorted[i], Y: float64(i+1) / float64(n)})
	}
	if pts[len(pts)-1].Y != 1 {
		pts = append(pts, plotter.XY{X: sorted[n-1], Y: 1})
	}
	return pts
}

// quantile returns the q-quantile (nearest rank) of vs.
func quantile(vs []float64, q float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// cdfAxis sets the x axis of a CDF of pooled and returns a note for the
// title ("" when none), and the floor below which values are drawn at the
// left edge (0 on a linear axis).
//
// The axis is logarithmic when the values span two decades above a
// reference low value: the smallest positive value, or a tenth of the
// median when that is larger, so that a few near-zero values (chunks that
// arrived together) do not stretch the axis over empty decades. Otherwise
// it is linear from 0, ending just past p99 when the maximum lies beyond
// twice p99.
func cdfAxis(ax *plot.Axis, pooled []float64) (note string, floor float64) {
	lo, hi := positiveRange(pooled)
	ref := max(lo, quantile(pooled, 0.5)/10)
	if ref > 0 && hi/ref >= decades {
		setLog(ax, ref, hi)
		if slices.ContainsFunc(pooled, func(v float64) bool { return v < ax.Min }) {
			note = fmt.Sprintf("log axis; values under %g ms drawn at %g ms", ax.Min, ax.Min)
		}
		return note, ax.Min
	}
	p99 := quantile(pooled, 0.99)
	if p99 > 0 && hi > 2*p99 {
		fromZero(ax, p99)
		return fmt.Sprintf("axis ends past p99 = %.3g ms; max %.3g ms", p99, hi), 0
	}
	fromZero(ax, hi)
	return "", 0
}

func cdf(s compare.LatencySample, sides [2]string) (Figure, error) {
	short, label, noun := latencyName(s.Name)
	p := plot.New()
	p.Title.Text = "CDF of " + short + ", pooled " + noun
	p.Y.Label.Text = "fraction of " + noun
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	pooled := append(slices.Clone(s.A), s.B...)
	if len(pooled) == 0 {
		return Figure{}, fmt.Errorf("plots: %s: no samples", s.Name)
	}
	// The axis is chosen once more after the lines are added (adding
	// widens it to the data); this first pass tells the log floor.
	var first plot.Axis
	note, floor := cdfAxis(&first, pooled)
	p.X.Label.Text = label + " (ms)"
	if note != "" {
		p.Title.Text += "\n" + note
	}
	var leg plot.Legend = plot.NewLegend()
	for _, side := range []struct {
		name string
		v    []float64
		c    color.Color
	}{{sides[0], s.A, colorA}, {sides[1], s.B, colorB}} {
		if len(side.v) == 0 {
			continue
		}
		v := side.v
		if floor > 0 {
			v = clampLog(v, floor)
		}
		l, err := plotter.NewLine(ecdf(v))
		if err != nil {
			return Figure{}, err
		}
		l.Color = side.c
		l.Width = vg.Points(1.5)
		p.Add(l)
		leg.Add(fmt.Sprintf("%s (n=%d)", side.name, len(side.v)), l)
	}
	cdfAxis(&p.X, pooled)
	p.Y.Min, p.Y.Max = 0, 1
	return single("cdf_"+s.Name, p, leg, 7*vg.Inch, 4*vg.Inch), nil
}
