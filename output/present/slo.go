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
		Columns: []table.Column{textCol("side"), textCol("status"), num("load", table.Count), {Name: "request_throughput", Unit: "req/s", Digits: 4, Drop: 2},
			num("output_throughput", "tok/s"), num("goodput_rps", "req/s"), {Name: "failed_at", Unit: table.Count, Digits: 4, Drop: 1},
			textCol("kind"), {Name: "path", Footnote: true}}}
	for _, c := range s.Capacity {
		t.Add(strings.ToUpper(c.Side), capacityStatus(c.CapacityResult), orNil(c.Load), orNil(c.RequestThroughput),
			orNil(c.OutputThroughput), orNil(c.GoodputRPS), orNil(c.FailedAt), c.Kind, c.Path)
	}
	if len(s.Capacity) == 0 {
		t.Notes = append(t.Notes, "no sweep carries the SLO's outcome: capacity needs sweeps run with the same SLO")
	}
	if s.CapacityVerdict != "" {
		t.Notes = append(t.Notes, fmt.Sprintf("capacity verdict: %s (%s)", s.CapacityVerdict, s.CapacityReason))
	}
	return t
}

// capacityStatus says a capacity's status in words.
func capacityStatus(c result.CapacityResult) string {
	switch c.Status {
	case result.CapacityNotReached:
		s := "not reached (met at every step)"
		if c.RecoveredAbove {
			s += "; met again above"
		}
		return s
	case result.CapacityBelowFirst:
		return "below the first step"
	}
	if c.RecoveredAbove {
		return "reached; met again above"
	}
	return "reached"
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
	if c.FailedAt != nil {
		line += fmt.Sprintf(", missed at %g", *c.FailedAt)
	}
	fmt.Fprintf(w, "capacity\t%s\n", line)
}
