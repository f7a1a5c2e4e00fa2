package compare

import (
	"maps"
	"math"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
)

func mustSLO(t *testing.T, s string) result.SLO {
	t.Helper()
	slo, err := result.ParseSLO(s)
	if err != nil {
		t.Fatal(err)
	}
	return slo
}

// TestGoodputVerdict: B's TTFT is lower, so more of its requests meet
// ttft_ms<=90: B has the higher goodput and attainment, computed from the
// records run by run.
func TestGoodputVerdict(t *testing.T) {
	a, ra := mkSide("a", 1, 3, 100, 20, []float64{1000, 1010, 990})
	b, rb := mkSide("b", 11, 3, 70, 20, []float64{1000, 1010, 990})
	slo := mustSLO(t, "ttft_ms<=90")
	rep, err := New(Input{A: a, B: b, RecordsA: ra, RecordsB: rb, SLO: slo})
	if err != nil {
		t.Fatal(err)
	}
	if rep.SLO == nil || rep.SLO.Objective != "ttft_ms<=90" || rep.SLO.Source != "input" {
		t.Fatalf("slo %+v", rep.SLO)
	}
	var want float64
	for i := range a {
		want += result.EvaluateSLO(ra[i].Records, a[i].Result.Summary.DurationS, slo).GoodputRPS / 3
	}
	g := metric(t, rep, MetricGoodput)
	if g.Verdict != "b" || math.Abs(g.A-want) > 1e-9 || g.NA != 3 || g.Unit != "req/s" {
		t.Errorf("goodput %+v, want verdict b and A %g", g, want)
	}
	if m := metric(t, rep, MetricAttainment); m.Verdict != "b" || m.B != 1 || !(m.A > 0 && m.A < 0.6) {
		t.Errorf("attainment %+v", m)
	}
	// Without an SLO the report has no SLO part and no goodput rows.
	rep, _ = New(Input{A: a, B: b, RecordsA: ra, RecordsB: rb})
	for _, m := range rep.Metrics {
		if m.Name == MetricGoodput || m.Name == MetricAttainment {
			t.Errorf("row %s without an SLO", m.Name)
		}
	}
	if rep.SLO != nil {
		t.Errorf("slo %+v without an SLO", rep.SLO)
	}
}

// TestGoodputFromResults: without records and without an SLO given, the
// SLO every result was run with is used, with the goodput they carry.
func TestGoodputFromResults(t *testing.T) {
	a, _ := mkSide("a", 1, 2, 100, 20, []float64{1000, 1010})
	b, _ := mkSide("b", 11, 2, 100, 20, []float64{1000, 1010})
	slo := mustSLO(t, "ttft_ms:p99<=500")
	for i, run := range append(a, b...) {
		att := 1.0
		run.Result.Summary.SLOResult = &result.SLOResult{SLO: slo, GoodputRPS: float64(10 + i), Attainment: &att}
	}
	rep, err := New(Input{A: a, B: b})
	if err != nil {
		t.Fatal(err)
	}
	if rep.SLO == nil || rep.SLO.Source != "results" {
		t.Fatalf("slo %+v", rep.SLO)
	}
	if g := metric(t, rep, MetricGoodput); g.A != 10.5 || g.B != 12.5 {
		t.Errorf("goodput %+v, want 10.5 and 12.5", g)
	}
	// Results run with different SLOs give none.
	b[0].Result.Summary.SLOResult.SLO = mustSLO(t, "ttft_ms:p99<=400")
	if rep, _ = New(Input{A: a, B: b}); rep.SLO != nil {
		t.Errorf("slo %+v from results that disagree", rep.SLO)
	}
}

// sloSweep is a sweep result whose steps at loads met the SLO as pass says.
func sloSweep(path string, slo result.SLO, loads []float64, pass []bool) Run {
	sw := &result.Sweep{Kind: result.ModeConcurrency, Values: loads}
	for i, l := range loads {
		r := &result.SLOResult{SLO: slo, Pass: pass[i], GoodputRPS: l}
		sw.Steps = append(sw.Steps, result.SweepStep{Value: l, Summary: result.Summary{RequestThroughput: 2 * l, RequestsOK: 10, SLOResult: r}})
	}
	res := &result.Result{Schema: result.Schema, Sweep: sw, Summary: sw.Steps[len(sw.Steps)-1].Summary}
	return Run{Path: path, Result: res}
}

func TestCapacityInReport(t *testing.T) {
	slo := mustSLO(t, "ttft_ms:p99<=500")
	loads := []float64{1, 4, 16}
	a := sloSweep("a.json", slo, loads, []bool{true, false, false})
	b := sloSweep("b.json", slo, loads, []bool{true, true, false})
	rep, err := New(Input{A: []Run{a}, B: []Run{b}, SLO: slo})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.SLO.Capacity
	if len(c) != 2 || *c[0].Load != 1 || *c[1].Load != 4 || *c[1].RequestThroughput != 8 || c[1].Status != result.CapacityReached {
		t.Fatalf("capacity %+v", c)
	}
	if rep.SLO.CapacityVerdict != "b" {
		t.Errorf("verdict %q (%s), want b", rep.SLO.CapacityVerdict, rep.SLO.CapacityReason)
	}
	// A sweep run with another SLO has no capacity under this one.
	rep, _ = New(Input{A: []Run{a}, B: []Run{b}, SLO: mustSLO(t, "ttft_ms:p99<=100")})
	if len(rep.SLO.Capacity) != 0 || rep.SLO.CapacityVerdict != "" {
		t.Errorf("capacity %+v under an SLO the sweeps were not run with", rep.SLO)
	}
}

func TestCapacityVerdict(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	row := func(load, failed *float64) CapacityRow {
		return CapacityRow{Kind: "concurrency", CapacityResult: result.CapacityResult{Load: load, FailedAt: failed}}
	}
	tests := []struct {
		name string
		a, b CapacityRow
		want string
	}{
		{"a higher", row(f(8), f(16)), row(f(4), f(8)), "a"},
		{"b higher", row(f(4), f(8)), row(f(8), nil), "b"},
		{"same steps", row(f(4), f(8)), row(f(4), f(8)), "~"},
		{"both not reached", row(f(16), nil), row(f(16), nil), "~"},
		{"below the first step on a", row(nil, f(1)), row(f(1), f(4)), "b"},
		{"both below the first step", row(nil, f(1)), row(nil, f(1)), "~"},
		{"different kinds", row(f(8), nil), CapacityRow{Kind: "rate", CapacityResult: result.CapacityResult{Load: f(1)}}, ""},
	}
	for _, tc := range tests {
		if got, reason := capacityVerdict(tc.a, tc.b); got != tc.want || reason == "" {
			t.Errorf("%s: %q (%s), want %q", tc.name, got, reason, tc.want)
		}
	}
}

func TestSLOLines(t *testing.T) {
	got := SLOLines(mustSLO(t, "ttft_ms:p99<=500,tpot_ms:p50<=20,tpot_ms:p99<=50,e2e_ms<=2000,ttft_ms<=900,itl_ms:p99<=80"))
	want := map[string]float64{"ttft_ms_p99": 500, "tpot_ms_p50": 20, "ttft_ms": 900}
	if !maps.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}
