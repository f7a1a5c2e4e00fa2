package present

import (
	"fmt"
	"io"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/output/table"
)

// sloTable lists each sweep's capacity under the comparison's SLO, with
// the capacity verdict as a note.
func sloTable(s *compare.SLOReport) *table.Table {
	t := &table.Table{Name: "capacity", Title: "Capacity under the SLO " + s.Objective + " (highest offered load whose sweep step met it)",
		Columns: []table.Column{textCol("side"), {Name: "status", Footnote: true}, num("load", table.Count), {Name: "request_throughput", Unit: "req/s", Digits: 4, Drop: 2},
			num("output_throughput", "tok/s"), num("goodput_rps", "req/s"), {Name: "failed_at", Unit: table.Count, Digits: 4, Drop: 1},
			textCol("kind"), {Name: "path", Footnote: true}}}
	for _, c := range s.Capacity {
		t.Add(strings.ToUpper(c.Side), capacityStatus(c.CapacityResult), orNil(c.Load), orNil(c.RequestThroughput),
			orNil(c.OutputThroughput), orNil(c.GoodputRPS), orNil(c.FailedAt), c.Kind, c.Path)
	}
	if len(s.Capacity) == 0 {
		t.Notes = append(t.Notes, "no sweep carries the SLO's outcome: capacity needs sweeps run with the same SLO")
	}
	for _, c := range s.Capacity {
		if c.FailedRequests > 0 {
			t.Notes = append(t.Notes, FailuresAsMisses)
			break
		}
	}
	if s.CapacityVerdict != "" {
		t.Notes = append(t.Notes, fmt.Sprintf("capacity verdict: %s (%s)", s.CapacityVerdict, s.CapacityReason))
	}
	return t
}

// FailuresAsMisses says how a capacity counts failed requests.
const FailuresAsMisses = "failed requests count as misses: each adds +Inf to its step's latency sample, " +
	"so a p99 fails once more than about 1% of a step's requests fail, however fast the others were"

// capacityStatus says a capacity's status in words, and why the SLO was
// missed where that is not plain from the sweep's figures: always below
// the first step, and wherever failed requests took part.
func capacityStatus(c result.CapacityResult) string {
	var s string
	switch c.Status {
	case result.CapacityNotReached:
		s = "not reached (met at every step)"
		if c.RecoveredAbove {
			s += "; met again above"
		}
		return s
	case result.CapacityBelowFirst:
		s = "below the first step"
	default:
		s = "reached"
	}
	if why := missReason(c); why != "" && (c.Status == result.CapacityBelowFirst || c.FailedRequests > 0) {
		s += fmt.Sprintf(" (missed at %g: %s)", *c.FailedAt, why)
	}
	if c.RecoveredAbove {
		s += "; met again above"
	}
	return s
}

// missReason says why the step at a capacity's FailedAt missed the SLO:
// each missed threshold with its value, or with its failed requests and
// the value of the successful ones when the failures decided it.
func missReason(c result.CapacityResult) string {
	var parts []string
	for _, tr := range c.Missed {
		th := tr.Threshold.String()
		switch {
		case tr.MissedByFailures():
			parts = append(parts, fmt.Sprintf("%s, %d of %d requests failed and count as misses; the successful ones alone: %.4g ms",
				th, tr.Failed, tr.Samples, *tr.ValueOK))
		case tr.Value == nil:
			parts = append(parts, fmt.Sprintf("%s, %d of %d requests failed and count as misses", th, tr.Failed, tr.Samples))
		case tr.Failed > 0:
			parts = append(parts, fmt.Sprintf("%s was %.4g ms with %d failed request(s) counted as misses", th, *tr.Value, tr.Failed))
		default:
			parts = append(parts, fmt.Sprintf("%s was %.4g ms", th, *tr.Value))
		}
	}
	return strings.Join(parts, "; ")
}

// writeSLOResult adds a benchmark summary's SLO lines (tab-separated key
// and value): the objective, goodput and attainment, and each
// distribution threshold's value and outcome. Nothing without an SLO.
func writeSLOResult(w io.Writer, r *result.SLOResult) {
	if r == nil {
		return
	}
	att := "-"
	if r.Attainment != nil {
		att = fmt.Sprintf("%.1f%%", 100**r.Attainment)
	}
	fmt.Fprintf(w, "slo\t%s\n", r.SLO)
	fmt.Fprintf(w, "goodput\t%.3f req/s, %d of %d requests met the SLO (%s)\n", r.GoodputRPS, r.Met, r.Requests, att)
	for _, t := range r.Thresholds {
		v, verdict := "-", "FAIL"
		if t.Value != nil {
			v = fmt.Sprintf("%.2f ms", *t.Value)
		}
		if t.Pass {
			verdict = "pass"
		}
		fmt.Fprintf(w, "  %s\t%s: %s\n", t.Threshold, verdict, v)
	}
}

// writeCapacity adds a sweep's capacity line; nothing without one.
func writeCapacity(w io.Writer, c *result.CapacityResult) {
	if c == nil {
		return
	}
	line := capacityStatus(*c)
	if c.Load != nil {
		line = fmt.Sprintf("%g (%s; %.2f req/s, %.1f output tok/s there)", *c.Load, line, *c.RequestThroughput, *c.OutputThroughput)
	}
	if c.FailedAt != nil && !strings.Contains(line, "(missed at") {
		line += fmt.Sprintf(", missed at %g", *c.FailedAt)
	}
	fmt.Fprintf(w, "capacity\t%s\n", line)
}
