package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
)

// telemetered gives run its GPU telemetry: mean power w over the run's
// duration on gpus GPUs, complete or not, with the clock events named.
func telemetered(run Run, w float64, gpus int, complete bool, events ...string) Run {
	s := &run.Result.Summary
	tel := &result.GPUTelemetry{WindowEndS: s.DurationS, Complete: complete, Throttled: len(events) > 0, ThrottleReasons: events,
		Contract: result.GPUContract{GPUType: "H100", GPUCount: gpus, Nodes: 1}, Power: []result.PowerSample{{0, w}, {s.DurationS, w}}}
	for i := range gpus {
		j := w * s.DurationS / float64(gpus)
		tel.GPUs = append(tel.GPUs, result.GPUStats{GPUID: result.GPUID{Index: fmt.Sprint(i)}, EnergyJ: &j, Source: result.EnergyFromCounter})
	}
	run.Result.GPUTelemetry = tel
	s.Energy = tel.Energy(s.OutputTokens, s.RequestsOK)
	return run
}

// energySides builds three runs a side at the same speed whose GPUs draw
// wa and wb watts, with per-run jitter.
func energySides(wa, wb float64) ([]Run, []Run) {
	ra, _ := mkSide("a", 1, 3, 50, 10, []float64{1000, 1010, 990})
	rb, _ := mkSide("b", 11, 3, 50, 10, []float64{1000, 995, 1005})
	jitter := []float64{1, 1.01, 0.99}
	for i := range ra {
		ra[i] = telemetered(ra[i], wa*jitter[i], 2, true)
		rb[i] = telemetered(rb[i], wb*jitter[2-i], 2, true)
	}
	return ra, rb
}

// TestEnergyRows: the energy rows take one value per run with the
// run-aware verdict, a lower energy per token is better, and the
// conclusion names the energy difference only beside its own significant
// verdict, without counting it as speed.
func TestEnergyRows(t *testing.T) {
	ra, rb := energySides(400, 300)
	rep, err := New(Input{A: ra, B: rb})
	if err != nil {
		t.Fatal(err)
	}
	e := metric(t, rep, MetricEnergyPerToken)
	if e.Verdict != VerdictB || e.NA != 3 || e.Unit != "J/tok" || e.DeltaPct == nil || *e.DeltaPct > -20 || *e.DeltaPct < -30 {
		t.Fatalf("energy per token row %+v", e)
	}
	p := metric(t, rep, "mean_power_w")
	if p.Verdict != VerdictB || !nearRel(p.A, 400, 0.01) || !nearRel(p.B, 300, 0.01) {
		t.Errorf("mean power row %+v", p)
	}
	g := metric(t, rep, "output_throughput_per_gpu")
	if !nearRel(g.A, metric(t, rep, "output_throughput").A/2, 1e-9) {
		t.Errorf("tokens/s per GPU %v, throughput %v", g.A, metric(t, rep, "output_throughput").A)
	}
	c := rep.Conclusion
	for _, n := range append(append(c.BetterA, c.BetterB...), append(c.Same, c.NeedMoreRuns...)...) {
		if IsEnergyMetric(n) {
			t.Errorf("the conclusion counts energy row %s as speed: %+v", n, c)
		}
	}
	if !strings.Contains(c.Sentence, "B uses 25% less energy per output token") || c.Outcome == OutcomeWinner {
		t.Errorf("sentence %q (outcome %s)", c.Sentence, c.Outcome)
	}
	if rep.Energy == nil || len(rep.Energy.Runs) != 6 || len(rep.Energy.Runs[0].Power) != 2 {
		t.Errorf("energy report %+v", rep.Energy)
	}
}

func nearRel(got, want, rel float64) bool { return got >= want*(1-rel) && got <= want*(1+rel) }

// TestWithEnergy: the clause for each outcome and direction, and none
// without a significant energy verdict.
func TestWithEnergy(t *testing.T) {
	row := func(v Verdict, a, b float64) []Metric {
		return []Metric{{Name: "ttft_ms_p50", Verdict: VerdictB}, {Name: MetricEnergyPerToken, Verdict: v, A: a, B: b}}
	}
	for _, tc := range []struct {
		name, sentence string
		o              Outcome
		winner         string
		ms             []Metric
		want           string
	}{
		{"faster and less", "B is faster: better on 1 of 1 metrics, worse on none.", OutcomeWinner, "b", row(VerdictB, 0.4, 0.288),
			"B is faster and uses 28% less energy per output token: better on 1 of 1 metrics, worse on none."},
		{"faster but more", "B is faster: better on 1 of 1 metrics, worse on none.", OutcomeWinner, "b", row(VerdictA, 0.3, 0.36),
			"B is faster but uses 20% more energy per output token: better on 1 of 1 metrics, worse on none."},
		{"a faster and less", "A is faster: x.", OutcomeWinner, "a", row(VerdictA, 0.3, 0.4), "A is faster and uses 25% less energy per output token: x."},
		{"no difference", "NO DIFFERENCE FOUND: x.", OutcomeNoDifference, "", row(VerdictB, 0.4, 0.3), "NO DIFFERENCE FOUND: x. B uses 25% less energy per output token."},
		{"not significant", "B is faster: x.", OutcomeWinner, "b", row(VerdictSame, 0.4, 0.3), "B is faster: x."},
		{"needs more runs", "B is faster: x.", OutcomeWinner, "b", row(NeedsMoreRuns, 0.4, 0.3), "B is faster: x."},
		{"not comparable", "NOT COMPARABLE: x.", OutcomeNotComparable, "", row(VerdictB, 0.4, 0.3), "NOT COMPARABLE: x."},
		{"no energy row", "B is faster: x.", OutcomeWinner, "b", row(VerdictB, 0.4, 0.3)[:1], "B is faster: x."},
	} {
		if got := withEnergy(tc.sentence, tc.o, tc.winner, tc.ms); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestEnergyWarnings: a side that throttled in any run is warned of, an
// incomplete run is left out of the energy rows, and a side without
// telemetry gets no energy rows and a note.
func TestEnergyWarnings(t *testing.T) {
	ra, rb := energySides(400, 300)
	rb[1] = telemetered(rb[1], 300, 2, true, "sw_power_cap")
	ra[2] = telemetered(ra[2], 900, 2, false)
	rep, err := New(Input{A: ra, B: rb})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(rep.Warnings, "\n")
	if !strings.Contains(w, "B's GPUs throttled in 1 of 3 run(s) (sw_power_cap: b2.json)") || strings.Contains(w, "A's GPUs throttled") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	if !strings.Contains(w, "A: GPU energy incomplete in a3.json") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	if e := metric(t, rep, MetricEnergyPerToken); e.NA != 2 || e.NB != 3 {
		t.Errorf("incomplete run counted: n_a %d n_b %d", e.NA, e.NB)
	}
	plainA, _ := mkSide("a", 1, 3, 50, 10, []float64{1000, 1010, 990})
	rep, err = New(Input{A: plainA, B: rb})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Metrics {
		if IsEnergyMetric(m.Name) {
			t.Errorf("energy row %s without telemetry on A", m.Name)
		}
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "energy rows need GPU telemetry on both sides") {
		t.Errorf("notes %q", rep.Notes)
	}
}

// TestGPUContractDifference: a GPU model or count that differs (learned
// from the exporters into the manifest) makes the sides not comparable
// unless declared; a different driver is a difference only.
func TestGPUContractDifference(t *testing.T) {
	for _, tc := range []struct {
		name        string
		set         func(*result.Manifest)
		intentional []string
		comparable  bool
		field       string
	}{
		{"model", func(m *result.Manifest) { m.GPUType = "NVIDIA A100-SXM4-80GB" }, nil, false, "manifest.gpu_type"},
		{"count", func(m *result.Manifest) { m.GPUCount = 2 }, nil, false, "manifest.gpu_count"},
		{"count declared", func(m *result.Manifest) { m.GPUCount = 2 }, []string{"resources"}, true, "manifest.gpu_count"},
		{"driver", func(m *result.Manifest) { m.DriverVersion = "560.1" }, nil, true, "manifest.driver_version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ra, rb := energySides(400, 300)
			for _, r := range rb {
				tc.set(&r.Result.Manifest)
			}
			rep, err := New(Input{A: ra, B: rb, Intentional: tc.intentional})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, d := range rep.Differences {
				found = found || d.Field == tc.field
			}
			if rep.Comparable != tc.comparable || !found || (rep.Conclusion.Outcome == OutcomeNotComparable) == tc.comparable {
				t.Errorf("comparable %v (want %v), differences %+v, conclusion %s", rep.Comparable, tc.comparable, rep.Differences, rep.Conclusion.Outcome)
			}
		})
	}
}
