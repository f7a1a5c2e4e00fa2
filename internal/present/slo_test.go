package present

import (
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/compare"
)

// TestCapacityTable: the SLO's capacity table sits in layer 1, one row per
// sweep with its status in words, and the verdict as a note.
func TestCapacityTable(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rep := &compare.Report{GPU: &compare.GPUTime{A: &compare.SideGPU{}, Note: compare.CausalNote}, SLO: &compare.SLOReport{
		Objective: "ttft_ms:p99<=500",
		Capacity: []compare.CapacityRow{
			{Side: "a", Path: "a.json", Kind: "concurrency", CapacityResult: benchmark.CapacityResult{Status: benchmark.CapacityReached, Load: f(8), RequestThroughput: f(3), OutputThroughput: f(90), GoodputRPS: f(2.5), FailedAt: f(16)}},
			{Side: "b", Path: "b.json", Kind: "concurrency", CapacityResult: benchmark.CapacityResult{Status: benchmark.CapacityBelowFirst, FailedAt: f(1)}},
		},
		CapacityVerdict: "a", CapacityReason: "A meets the SLO at concurrency 8, where B no longer does"}}
	ts := Comparison(rep)
	n := layer1Count(rep)
	if ts[n-1].Name != "capacity" || ts[n].Name == "capacity" {
		t.Fatalf("capacity table at %d of %d layer-1 tables", n-1, n)
	}
	c := ts[n-1]
	if len(c.Rows) != 2 || c.Rows[0][1] != "reached" || c.Rows[1][1] != "below the first step" || c.Rows[1][2] != nil {
		t.Errorf("rows %v", c.Rows)
	}
	if !strings.Contains(strings.Join(c.Notes, "\n"), "capacity verdict: a (A meets") {
		t.Errorf("notes %v", c.Notes)
	}
	if h := strings.Join(Headline(rep), "\n"); !strings.Contains(h, "slo: ttft_ms:p99<=500") {
		t.Errorf("headline lacks the SLO:\n%s", h)
	}
}
