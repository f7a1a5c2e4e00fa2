package compare

import (
	"slices"
	"strings"
	"testing"
)

// TestHeadlineOutcomes: the headline names a winner only from primary
// metrics that survive the family-wise correction, says mixed when they
// favour both sides, and no difference or needs more runs otherwise.
func TestHeadlineOutcomes(t *testing.T) {
	same := []float64{1000, 1010, 990}
	tests := []struct {
		name             string
		ttftB, tpotB     float64
		tputB            []float64
		outcome, winner  string
		betterA, betterB []string
	}{
		{"B faster", 70, 20, []float64{1300, 1290, 1310}, HeadlineWinner, "b", nil, []string{"ttft_ms_p50", "output_throughput"}},
		{"A faster", 130, 20, same, HeadlineWinner, "a", []string{"ttft_ms_p50"}, nil},
		{"mixed", 70, 26, same, HeadlineMixed, "", []string{"tpot_ms_p50"}, []string{"ttft_ms_p50"}},
		{"same", 100, 20, []float64{1005, 995, 1000}, HeadlineNoDifference, "", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, ra := mkSide("a", 1, 3, 100, 20, same)
			b, rb := mkSide("b", 21, 3, tc.ttftB, tc.tpotB, tc.tputB)
			rep, err := New(Input{A: a, B: b, RecordsA: ra, RecordsB: rb})
			if err != nil {
				t.Fatal(err)
			}
			h := rep.Headline
			if h == nil || h.Outcome != tc.outcome || h.Winner != tc.winner || h.Procedure != "graph" {
				t.Fatalf("headline %+v, want %s %q by graph", h, tc.outcome, tc.winner)
			}
			for _, want := range tc.betterA {
				if !slices.Contains(h.BetterA, want) {
					t.Errorf("better_a %v lacks %s", h.BetterA, want)
				}
			}
			for _, want := range tc.betterB {
				if !slices.Contains(h.BetterB, want) {
					t.Errorf("better_b %v lacks %s", h.BetterB, want)
				}
			}
			if want := []string{"ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99", "e2e_ms_p50", "e2e_ms_p99", "output_throughput"}; !slices.Equal(h.Primary, want) {
				t.Errorf("primary %v, want %v", h.Primary, want)
			}
			for _, m := range rep.Metrics {
				if m.Primary != slices.Contains(h.Primary, m.Name) || (m.Primary && (m.PAdjusted == nil || *m.PAdjusted < *m.PValue)) {
					t.Errorf("%s: primary %v, adjusted p %v, p %v", m.Name, m.Primary, deref(m.PAdjusted), deref(m.PValue))
				}
			}
			if c := rep.Conclusion; string(c.Outcome) != strings.ReplaceAll(tc.outcome, " ", "_") || c.Winner != tc.winner ||
				!slices.Equal(c.BetterA, nonNil(h.BetterA)) || !slices.Equal(c.BetterB, nonNil(h.BetterB)) {
				t.Errorf("conclusion %+v does not carry the headline %+v", c, h)
			}
			labelsMatchIntervals(t, rep)
		})
	}
}

// TestHeadlineConfounded: blocked runs whose level drifts over time (A's
// runs 100, 110, 120 ms, then B's 160, 170, 180 ms) make every latency row
// call B slower; the drift is visible within each side, so the headline
// says confounded instead of naming A. The same values in counterbalanced
// pairs are not checked for drift: the order cancels it.
func TestHeadlineConfounded(t *testing.T) {
	tput := []float64{1000, 1000, 1000}
	a, ra := levelSide("a", 1, []float64{100, 110, 120}, []float64{20, 22, 24}, tput)
	b, rb := levelSide("b", 11, []float64{160, 170, 180}, []float64{32, 34, 36}, tput)
	startAt(a, 0, 10, 20)
	startAt(b, 30, 40, 50)
	rep, err := New(Input{A: a, B: b, RecordsA: ra, RecordsB: rb})
	if err != nil {
		t.Fatal(err)
	}
	h := rep.Headline
	if h.Outcome != HeadlineConfounded || h.Winner != "" || !slices.Contains(h.Drift, "ttft_ms_p50") || len(h.BetterA) == 0 {
		t.Errorf("headline %+v, want confounded with ttft_ms_p50 drifting", h)
	}
	if !strings.Contains(h.Reason, "interleave the runs") {
		t.Errorf("reason %q", h.Reason)
	}
	startAt(a, 0, 30, 40)
	startAt(b, 10, 20, 50)
	rep, err = New(Input{A: a, B: b, RecordsA: ra, RecordsB: rb})
	if err != nil {
		t.Fatal(err)
	}
	if h := rep.Headline; len(h.Drift) != 0 || h.Outcome == HeadlineConfounded {
		t.Errorf("counterbalanced: headline %+v", h)
	}
}

// TestHeadlineMaxT: with 8 runs a side the runs allow 12870 relabellings,
// and the headline uses the max-T permutation procedure (exact: no more
// relabellings than --resamples).
func TestHeadlineMaxT(t *testing.T) {
	ta, tb := make([]float64, 8), make([]float64, 8)
	for i := range ta {
		ta[i], tb[i] = 1000+float64(i), 1300+float64(i)
	}
	a, ra := mkSide("a", 1, 8, 100, 20, ta)
	b, rb := mkSide("b", 31, 8, 70, 20, tb)
	rep, err := New(Input{A: a, B: b, RecordsA: ra, RecordsB: rb, Resamples: 20000})
	if err != nil {
		t.Fatal(err)
	}
	if h := rep.Headline; h.Procedure != "max-t" || h.Outcome != HeadlineWinner || h.Winner != "b" {
		t.Errorf("headline %+v, want B by max-t", h)
	}
	if m := metric(t, rep, "ttft_ms_p50"); m.PAdjusted == nil || !near(*m.PAdjusted, 2.0/12870) {
		t.Errorf("ttft_ms_p50 adjusted p %v, want 2/12870 (the observed split and its mirror)", deref(m.PAdjusted))
	}
}

// TestRepeatsCountedOnce: for a fixed workload the input and request
// throughputs and the completion time repeat the output throughput, and
// ITL per token repeats ITL when every chunk holds one token.
func TestRepeatsCountedOnce(t *testing.T) {
	a, ra := mkSide("a", 1, 3, 100, 20, []float64{1000, 1010, 990})
	b, rb := mkSide("b", 21, 3, 100, 20, []float64{1005, 995, 1000})
	rep, err := New(Input{A: a, B: b, RecordsA: ra, RecordsB: rb})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"input_throughput": "output_throughput", "request_throughput": "output_throughput",
		"completion_time_s": "output_throughput", "steady_request_throughput": "steady_output_throughput",
		"itl_per_token_ms_p50": "itl_ms_p50", "output_throughput": "", "itl_ms_p50": "", "ttft_ms_p50": ""} {
		if m := metric(t, rep, name); m.SameAs != want {
			t.Errorf("%s: same_as %q, want %q", name, m.SameAs, want)
		}
	}
}

// TestPrimaryGraph: the medians, throughput and goodput share alpha; a
// median passes its share to its p99, which passes it to the other leads.
func TestPrimaryGraph(t *testing.T) {
	g := primaryGraph([]string{"ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "output_throughput"})
	wantW := []float64{1.0 / 3, 0, 1.0 / 3, 1.0 / 3}
	wantE := [][]float64{{0, 1, 0, 0}, {0, 0, 0.5, 0.5}, {0.5, 0, 0, 0.5}, {0.5, 0, 0.5, 0}}
	for i := range wantW {
		if !near(g.Weights[i], wantW[i]) || !slices.EqualFunc(g.Edges[i], wantE[i], func(x, y float64) bool { return near(x, y) }) {
			t.Fatalf("weights %v edges %v, want %v %v", g.Weights, g.Edges, wantW, wantE)
		}
	}
}

// labelsMatchIntervals fails when a row's verdict and its own interval
// disagree: a or b exactly when the interval of B−A excludes 0, on the
// side the interval points to (issue 22, point 7).
func labelsMatchIntervals(t *testing.T, rep *Report) {
	t.Helper()
	for _, m := range rep.Metrics {
		if m.CILow == nil || m.CIHigh == nil {
			continue
		}
		excludes := *m.CILow > 0 || *m.CIHigh < 0
		called := m.Verdict == VerdictA || m.Verdict == VerdictB
		if excludes != called {
			t.Errorf("%s: verdict %q with interval %g..%g", m.Name, m.Verdict, *m.CILow, *m.CIHigh)
			continue
		}
		lower := *m.CIHigh < 0 // B's value is lower
		lowerBetter := strings.Contains(m.Name, "_ms") || strings.HasSuffix(m.Name, "_s")
		if called && (m.Verdict == VerdictB) != (lower == lowerBetter) {
			t.Errorf("%s: verdict %q, but the interval %g..%g favours the other side", m.Name, m.Verdict, *m.CILow, *m.CIHigh)
		}
	}
}
