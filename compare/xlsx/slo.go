package xlsx

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/xuri/excelize/v2"
)

// slo is one latency objective: a metric ("ttft_ms", "tpot_ms"), a
// percentile ("p50", "p99" or "" for any) and the threshold in ms.
type slo struct {
	metric, pct string
	ms          float64
}

func (s slo) label() string {
	name := strings.ToUpper(strings.TrimSuffix(s.metric, "_ms"))
	if s.pct != "" {
		name += " " + s.pct
	}
	return fmt.Sprintf("SLO %s ≤ %g ms", name, s.ms)
}

// bounds reports whether the objective bounds the metric at percentile
// pct, the x axis of a chart.
func (s slo) bounds(metric, pct string) bool {
	return s.metric == metric && (s.pct == "" || s.pct == pct)
}

// sloPercentiles are the percentiles the sweep points carry per metric.
var sloPercentiles = map[string][]string{"ttft_ms": {"", "p50", "p99"}, "tpot_ms": {"", "p50"}}

// parseSLO checks and orders the objectives (keys as plots.Options.SLO).
func parseSLO(m map[string]float64) ([]slo, error) {
	var out []slo
	for k, v := range m {
		metric, pct := k, ""
		if i := strings.LastIndex(k, "_p"); i > 0 && k[i+2:] != "" && strings.Trim(k[i+2:], "0123456789") == "" {
			metric, pct = k[:i], k[i+1:]
		}
		if !slices.Contains(sloPercentiles[metric], pct) {
			return nil, fmt.Errorf("xlsx: SLO %q: want ttft_ms, ttft_ms_p50, ttft_ms_p99, tpot_ms or tpot_ms_p50 (the percentiles sweep results carry)", k)
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("xlsx: SLO %q: threshold %v ms, want a positive number", k, v)
		}
		out = append(out, slo{metric: metric, pct: pct, ms: v})
	}
	slices.SortFunc(out, func(a, b slo) int { return strings.Compare(a.metric+a.pct, b.metric+b.pct) })
	return out, nil
}

// sloBlock writes the objectives below the sweep table from row n on: a
// header, then two rows per objective holding the ends of its vertical
// line, from 0 to ymax. It returns the first row of each objective.
func (b *book) sloBlock(s string, n int, ymax float64) []int {
	if len(b.slo) == 0 {
		return nil
	}
	b.row(s, n, "SLO line", "x (ms)", "y (output tok/s)")
	b.f.SetCellStyle(s, cell(1, n), cell(3, n), b.head)
	var rows []int
	for i, o := range b.slo {
		r := n + 1 + 2*i
		b.row(s, r, o.label(), o.ms, 0.0)
		b.row(s, r+1, nil, o.ms, ymax)
		rows = append(rows, r)
	}
	return rows
}

// sloSeries is the vertical line of objective o, whose ends sloBlock
// wrote from row r.
func (b *book) sloSeries(s string, r int, o slo) excelize.ChartSeries {
	return excelize.ChartSeries{
		Name:       ref(s, 1, r, 1, r),
		Categories: ref(s, 2, r, 2, r+1),
		Values:     ref(s, 3, r, 3, r+1),
		Fill:       solid(sloColor),
		Line:       excelize.LineOptions{Type: excelize.LineSolid, Width: 1.25, Dash: excelize.LineDashDash},
		Marker:     excelize.ChartMarker{Symbol: "none"},
	}
}

// sloColor draws the objectives.
const sloColor = "5A5A5A"
