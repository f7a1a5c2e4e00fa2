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

// TestCapacityReasons: below the first step always says why; a step
// missed through failed requests says they count as misses, with the
// value of the successful ones, and the table notes how failures count;
// a plain miss above capacity keeps the short status.
func TestCapacityReasons(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	slo, _ := result.ParseSLO("ttft_ms:p99<=3000")
	byFailures := result.ThresholdResult{Threshold: slo[0], Samples: 16, Failed: 1, ValueOK: f(249.4)}
	slow := result.ThresholdResult{Threshold: slo[0], Samples: 16, Value: f(3412)}
	for _, tc := range []struct {
		c    result.CapacityResult
		want string
	}{
		{result.CapacityResult{Status: result.CapacityBelowFirst, FailedAt: f(1), Missed: []result.ThresholdResult{byFailures}, FailedRequests: 1},
			"below the first step (missed at 1: ttft_ms:p99<=3000, 1 of 16 requests failed and count as misses; the successful ones alone: 249.4 ms)"},
		{result.CapacityResult{Status: result.CapacityBelowFirst, FailedAt: f(1), Missed: []result.ThresholdResult{slow}},
			"below the first step (missed at 1: ttft_ms:p99<=3000 was 3412 ms)"},
		{result.CapacityResult{Status: result.CapacityReached, Load: f(2), FailedAt: f(4), Missed: []result.ThresholdResult{slow}}, "reached"},
		{result.CapacityResult{Status: result.CapacityReached, Load: f(2), FailedAt: f(4), Missed: []result.ThresholdResult{byFailures}, FailedRequests: 1},
			"reached (missed at 4: ttft_ms:p99<=3000, 1 of 16 requests failed and count as misses; the successful ones alone: 249.4 ms)"},
	} {
		if got := capacityStatus(tc.c); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
	rows := []compare.CapacityRow{{Side: "b", Path: "b.json", Kind: "concurrency", CapacityResult: result.CapacityResult{
		Status: result.CapacityBelowFirst, FailedAt: f(1), Missed: []result.ThresholdResult{byFailures}, FailedRequests: 1}}}
	tab := sloTable(&compare.SLOReport{Objective: slo.String(), Capacity: rows})
	if !strings.Contains(strings.Join(tab.Notes, "\n"), FailuresAsMisses) {
		t.Errorf("notes %q", tab.Notes)
	}
	rows[0].FailedRequests, rows[0].Missed = 0, []result.ThresholdResult{slow}
	if tab = sloTable(&compare.SLOReport{Objective: slo.String(), Capacity: rows}); strings.Contains(strings.Join(tab.Notes, "\n"), FailuresAsMisses) {
		t.Errorf("notes without failures %q", tab.Notes)
	}
}
