package xlsx

import (
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/servecmp/servecmp/output/present"

	"github.com/xuri/excelize/v2"

	"github.com/servecmp/servecmp/compare"
)

// Sweep sheet columns (1-based).
const (
	swOffered   = 4
	swOutput    = 6
	swTTFTP99   = 8
	swTPOTP50   = 9
	swCurve     = 13
	swChartsCol = 15
)

func (b *book) sweep(r *compare.Report) error {
	const s = "Sweep"
	if err := b.header(s, "side", "path", "kind", "offered", "request_throughput (req/s)", "output_throughput (tok/s)",
		"ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "e2e_ms_p50", "e2e_ms_p99", "saturation_at", "curve"); err != nil {
		return err
	}
	n := 2
	var spans [][2]int // first and last row of each curve
	for _, c := range r.Sweeps {
		first := n
		name := strings.ToUpper(c.Side) + " " + filepath.Base(c.Path)
		for _, p := range c.Points {
			b.row(s, n, strings.ToUpper(c.Side), c.Path, c.Kind, p.Offered, p.RequestThroughput, p.OutputThroughput,
				p.TTFTP50, p.TTFTP99, p.TPOTP50, p.E2EP50, p.E2EP99, c.SaturationAt, name)
			n++
		}
		if n > first {
			spans = append(spans, [2]int{first, n - 1})
		}
	}
	for c := 4; c <= 11; c++ {
		b.style(s, c, 2, n-1, b.num)
	}
	if len(spans) == 0 {
		b.row(s, 2, "no sweep results given (benchmark --sweep-concurrency / --sweep-rate)")
		return nil
	}
	ymax := 0.0
	for _, c := range r.Sweeps {
		for _, p := range c.Points {
			ymax = max(ymax, p.OutputThroughput)
		}
	}
	sloRows := b.sloBlock(s, n+1, max(ymax*1.1, 1))
	for i, ch := range []struct {
		title, xTitle string
		xCol          int
		metric, pct   string // the SLOs this chart's x axis shows
	}{
		{"Output throughput vs offered load", present.OfferedLoadLabel(r.Sweeps), swOffered, "", ""},
		{"Output throughput vs TPOT p50 across the sweep", "TPOT p50 (ms)", swTPOTP50, "tpot_ms", "p50"},
		{"Output throughput vs TTFT p99 across the sweep", "TTFT p99 (ms)", swTTFTP99, "ttft_ms", "p99"},
	} {
		var lines []excelize.ChartSeries
		var lineX []float64
		for k, o := range b.slo {
			if o.Bounds(ch.metric, ch.pct) {
				lines = append(lines, b.sloSeries(s, sloRows[k], o))
				lineX = append(lineX, o.Ms)
			}
		}
		c := b.sweepChart(s, spans, r.Sweeps, ch.title, ch.xTitle, ch.xCol, lineX)
		c.Series = append(c.Series, lines...)
		b.charts = append(b.charts, pendingChart{s, cell(swChartsCol, 2+22*i), c})
	}
	return nil
}

// sweepChart plots output throughput against column xCol, one series per
// sweep curve: straight lines through filled markers in the side's colour,
// y from 0, x from 0 or logarithmic when its values (and extraX, the SLO
// lines to come) span two decades.
func (b *book) sweepChart(s string, spans [][2]int, curves []compare.SweepCurve, name, xTitle string, xCol int, extraX []float64) *excelize.Chart {
	var series []excelize.ChartSeries
	xs := slices.Clone(extraX)
	seen := map[string]int{}
	for i, sp := range spans {
		side := curves[i].Side
		rgb := sideColors[0]
		if side == "b" {
			rgb = sideColors[1]
		}
		line := excelize.LineOptions{Type: excelize.LineSolid, Width: 1.5}
		if seen[side] > 0 {
			line.Dash = excelize.LineDashDash
		}
		seen[side]++
		series = append(series, excelize.ChartSeries{
			Name:       ref(s, swCurve, sp[0], swCurve, sp[0]),
			Categories: ref(s, xCol, sp[0], xCol, sp[1]),
			Values:     ref(s, swOutput, sp[0], swOutput, sp[1]),
			Fill:       solid(rgb),
			Line:       line,
			Marker: excelize.ChartMarker{Symbol: "circle", Size: 6, Fill: solid(rgb),
				Border: excelize.LineOptions{Type: excelize.LineSolid, Width: 0.75, Fill: solid(rgb)}},
		})
		for _, p := range curves[i].Points {
			xs = append(xs, sweepX(p, xCol))
		}
	}
	x := excelize.ChartAxis{Title: title(xTitle), MajorGridLines: true, Minimum: ptr(0.0)}
	if lo, hi := positiveRange(xs); lo > 0 && hi/lo >= 100 {
		x.Minimum, x.LogBase = ptr(math.Pow(10, math.Floor(math.Log10(lo)))), 10
	}
	return &excelize.Chart{
		Type:      excelize.Scatter,
		Series:    series,
		Title:     title(name),
		XAxis:     x,
		YAxis:     excelize.ChartAxis{Title: title("output tokens/s"), MajorGridLines: true, Minimum: ptr(0.0)},
		Legend:    excelize.ChartLegend{Position: "right"},
		Dimension: excelize.ChartDimension{Width: 680, Height: 400},
	}
}

// sweepX is the value of column col at a sweep point.
func sweepX(p compare.SweepPoint, col int) float64 {
	switch col {
	case swTPOTP50:
		return p.TPOTP50
	case swTTFTP99:
		return p.TTFTP99
	}
	return p.Offered
}

// positiveRange returns the smallest positive and the largest value of vs.
func positiveRange(vs []float64) (lo, hi float64) {
	for _, v := range vs {
		if v > 0 && !math.IsInf(v, 0) && (lo == 0 || v < lo) {
			lo = v
		}
		if !math.IsNaN(v) {
			hi = max(hi, v)
		}
	}
	return lo, hi
}
