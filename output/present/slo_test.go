package present

import (
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/compare"
)

// TestCapacityTable: the SLO's capacity table sits in layer 1, one row per
// sweep with its status in words, and the verdict as a note.
func TestCapacityTable(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rep := &compare.Report{GPU: &compare.GPUTime{A: &compare.SideGPU{}, Note: compare.CausalNote}, SLO: &compare.SLOReport{
		Objective: "ttft_ms:p99<=500",
		Capacity: []compare.CapacityRow{
			{Side: "a", Path: "a.json", Kind: "concurrency", CapacityResult: result.CapacityResult{Status: result.CapacityReached, Load: f(8), RequestThroughput: f(3), OutputThroughput: f(90), GoodputRPS: f(2.5), FailedAt: f(16)}},
			{Side: "b", Path: "b.json", Kind: "concurrency", CapacityResult: result.CapacityResult{Status: result.CapacityBelowFirst, FailedAt: f(1)}},
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

// TestBenchmarkTextSLO: a result run with an SLO shows it, its goodput and
// each threshold's outcome, and a sweep its capacity.
func TestBenchmarkTextSLO(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	slo, _ := result.ParseSLO("ttft_ms:p99<=500,e2e_ms<=2000")
	res := &result.Result{Sweep: &result.Sweep{Kind: result.ModeConcurrency, Steps: []result.SweepStep{{Value: 4}},
		Capacity: &result.CapacityResult{Status: result.CapacityReached, Load: f(4), RequestThroughput: f(2), OutputThroughput: f(64), FailedAt: f(8)}}}
	res.Summary.SLOResult = &result.SLOResult{SLO: slo, Requests: 10, Met: 9, GoodputRPS: 4.5, Attainment: f(0.9),
		Thresholds: []result.ThresholdResult{{Threshold: slo[0], Value: f(612), Pass: false}}}
	var b strings.Builder
	if err := WriteBenchmarkText(&b, res); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(b.String()), " ")
	for _, w := range []string{"slo ttft_ms:p99<=500,e2e_ms<=2000", "goodput 4.500 req/s, 9 of 10 requests met the SLO (90.0%)",
		"ttft_ms:p99<=500 FAIL: 612.00 ms", "capacity 4 (reached; 2.00 req/s, 64.0 output tok/s there), missed at 8"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, b.String())
		}
	}
}
