package present

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// SLOLine is one latency objective drawn on a chart: a metric ("ttft_ms",
// "tpot_ms"), a percentile ("p50", "p99" or "" for any) and the threshold
// in ms. The plots and the workbook draw the same lines.
type SLOLine struct {
	Metric, Pct string
	Ms          float64
}

// Label names the line in a legend ("SLO TTFT p99 ≤ 500 ms").
func (s SLOLine) Label() string {
	name := strings.ToUpper(strings.TrimSuffix(s.Metric, "_ms"))
	if s.Pct != "" {
		name += " " + s.Pct
	}
	return fmt.Sprintf("SLO %s ≤ %g ms", name, s.Ms)
}

// Bounds reports whether the line bounds metric at percentile pct.
func (s SLOLine) Bounds(metric, pct string) bool {
	return s.Metric == metric && (s.Pct == "" || s.Pct == pct)
}

// sloPercentiles are the percentiles the sweep points carry per metric:
// an SLO on another percentile has no points to be read against.
var sloPercentiles = map[string][]string{"ttft_ms": {"", "p50", "p99"}, "tpot_ms": {"", "p50"}}

// ParseSLOLines checks and orders the lines of m (keys "ttft_ms",
// "ttft_ms_p50", "ttft_ms_p99", "tpot_ms", "tpot_ms_p50"; values in ms).
func ParseSLOLines(m map[string]float64) ([]SLOLine, error) {
	var out []SLOLine
	for k, v := range m {
		metric, pct := k, ""
		if i := strings.LastIndex(k, "_p"); i > 0 && k[i+2:] != "" && strings.Trim(k[i+2:], "0123456789") == "" {
			metric, pct = k[:i], k[i+1:]
		}
		if !slices.Contains(sloPercentiles[metric], pct) {
			return nil, fmt.Errorf("SLO %q: want ttft_ms, ttft_ms_p50, ttft_ms_p99, tpot_ms or tpot_ms_p50 (the percentiles sweep results carry)", k)
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("SLO %q: threshold %v ms, want a positive number", k, v)
		}
		out = append(out, SLOLine{Metric: metric, Pct: pct, Ms: v})
	}
	slices.SortFunc(out, func(a, b SLOLine) int { return strings.Compare(a.Metric+a.Pct, b.Metric+b.Pct) })
	return out, nil
}
