package result

import (
	"testing"
)

// TestApplySLO re-judges a measured sweep against a new SLO from its
// records, and clears the outcome with no SLO.
func TestApplySLO(t *testing.T) {
	rec := func(step int, ttft float64) Record {
		return Record{Step: step, OK: true, TTFTMs: ttft, E2EMs: ttft + 10, ChunkTimesMs: []float64{ttft}}
	}
	recs := []Record{rec(0, 10), rec(0, 20), rec(1, 30), rec(1, 90), rec(2, 200), rec(2, 300)}
	res := &Result{Sweep: &Sweep{Kind: ModeConcurrency, Values: []float64{1, 2, 4}}}
	for i, v := range res.Sweep.Values {
		res.Sweep.Steps = append(res.Sweep.Steps, SweepStep{Value: v, Summary: Summary{DurationS: 2, RequestThroughput: float64(i + 1)}})
	}
	slo, _ := ParseSLO("ttft_ms:p50<=60")
	ApplySLO(res, recs, slo)
	c := res.Sweep.Capacity
	if c == nil || c.Status != CapacityReached || *c.Load != 2 || *c.FailedAt != 4 || *c.GoodputRPS != 0.5 {
		t.Fatalf("capacity %+v", c)
	}
	if res.Summary.SLOResult != res.Sweep.Steps[2].Summary.SLOResult || res.Summary.SLOResult.Met != 0 {
		t.Fatalf("top summary %+v", res.Summary.SLOResult)
	}
	ApplySLO(res, recs, nil)
	if res.Sweep.Capacity != nil || res.Summary.SLOResult != nil || res.Sweep.Steps[0].Summary.SLOResult != nil {
		t.Fatal("an SLO outcome remains without an SLO")
	}
	run := &Result{Summary: Summary{DurationS: 1}}
	ApplySLO(run, recs[:2], slo)
	if s := run.Summary.SLOResult; s == nil || s.Met != 2 || s.GoodputRPS != 2 || !s.Pass {
		t.Fatalf("run %+v", s)
	}
}
