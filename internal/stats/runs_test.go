package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDecide drives the verdict rule with made-up evidence: the call
// follows the one test's p-value, and an uncalled difference is "needs
// more runs" exactly when the MDD exceeds the threshold.
func TestDecide(t *testing.T) {
	o := RunOptions{}.withDefaults()
	base := func() Evidence {
		return Evidence{Method: "welch-t", Diff: 5, MeanA: 100, P: 0.01, Low: 1, High: 9, PerRunA: make([]float64, 4), PerRunB: make([]float64, 4),
			Power: Power{NA: 4, NB: 4, MDDFrac: 0.05, Recommended: 3}}
	}
	tests := []struct {
		name   string
		edit   func(*Evidence)
		call   Call
		rec    int
		reason string
	}{
		{"significant", func(*Evidence) {}, Higher, 0, "B higher than A: welch-t p=0.01, 95% interval of B−A [1, 9]"},
		{"significant, lower", func(e *Evidence) { e.Diff, e.Low, e.High = -5, -9, -1 }, Lower, 0, "B lower than A"},
		{"not significant, enough runs", func(e *Evidence) { e.P, e.Low = 0.2, -1 }, NotSignificant, 0, "no significant difference (welch-t p=0.2)"},
		{"too few runs", func(e *Evidence) { e.P, e.Power.MDDFrac, e.Power.Recommended, e.Power.Target = 0.2, 0.3, 9, 0.1 },
			NeedsMoreRuns, 9, "9 runs per side would detect 10% of A with power 0.8"},
		{"recommendation below the runs at hand", func(e *Evidence) { e.P, e.Power.MDDFrac, e.Power.Recommended = 0.2, 0.3, 2 }, NeedsMoreRuns, 5, "5 runs per side"},
		{"capped", func(e *Evidence) { e.P, e.Power.MDDFrac, e.Power.Capped = 0.2, 0.3, true }, NeedsMoreRuns, 50, "even 50 runs per side"},
		{"no test", func(e *Evidence) {
			e.Method, e.P, e.Power.MDDFrac, e.Power.Recommended = "none", math.NaN(), math.Inf(1), 0
		},
			NeedsMoreRuns, 2, "no test and no interval"},
		{"no spread, permutation significant", func(e *Evidence) { e.Method, e.P = "permutation", 2.0/70 }, Higher, 0, "no run varies"},
		{"no spread, permutation cannot reach alpha", func(e *Evidence) {
			e.Method, e.P, e.PerRunA, e.PerRunB = "permutation", 0.1, make([]float64, 3), make([]float64, 3)
		}, NeedsMoreRuns, 4, "4 runs per side can reach alpha"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := base()
			tc.edit(&ev)
			v := decide(&ev, o)
			if v.Call != tc.call || v.Recommended != tc.rec || !strings.Contains(v.Reason, tc.reason) {
				t.Errorf("got %v, %d, %q; want %v, %d, reason with %q", v.Call, v.Recommended, v.Reason, tc.call, tc.rec, tc.reason)
			}
		})
	}
}

func TestCompareRunsEdges(t *testing.T) {
	// One run per side: no test, no spread, no interval.
	r, err := CompareRuns([]float64{10}, []float64{20}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Call != NeedsMoreRuns || r.Recommended != 2 || !math.IsNaN(r.P) || !math.IsNaN(r.Low) || r.Method != "none" {
		t.Errorf("one run each: %v, %d, p %v, interval %v, %s", r.Call, r.Recommended, r.P, r.Low, r.Method)
	}
	// One run of A: B's spread stands in for A's.
	r, _ = CompareRuns([]float64{100}, []float64{110, 130, 120}, RunOptions{})
	if want, _ := RecommendRuns(SpreadEstimate{SD: 10, DF: 2}, 20, false, 0.05, 0.8, 50); r.Call != NeedsMoreRuns || r.Recommended != want || !math.IsNaN(r.P) {
		t.Errorf("one run of A: %v, %d runs (want %d), p %v", r.Call, r.Recommended, want, r.P)
	}
	// Enough runs, steady values, no difference: a plain "~".
	r, _ = CompareRuns([]float64{100, 101, 99, 100.5, 99.5}, []float64{100.2, 100.8, 99.1, 100.4, 99.6}, RunOptions{})
	if r.Call != NotSignificant || r.Recommended != 0 || !(r.Power.MDDFrac < 0.1) {
		t.Errorf("steady runs: %v (%s)", r.Call, r.Reason)
	}
	// Separated, steady runs: called.
	r, _ = CompareRuns([]float64{100, 101, 99, 100.5}, []float64{90, 91, 89, 90.5}, RunOptions{})
	if r.Call != Lower || r.Method != "welch-t" || !(r.High < 0) {
		t.Errorf("separated runs: %v by %s, interval [%v, %v]", r.Call, r.Method, r.Low, r.High)
	}
	for _, bad := range []RunOptions{{Power: 1}, {Threshold: -0.1}, {MaxRuns: 1}, {Permutations: -1}} {
		if _, err := CompareRuns([]float64{1, 2}, []float64{3, 4}, bad); err == nil {
			t.Errorf("options %+v: want an error", bad)
		}
	}
	if _, err := CompareRuns(nil, []float64{1}, RunOptions{}); err != ErrTooFew {
		t.Errorf("no runs of A: %v", err)
	}
	if _, err := CompareRuns([]float64{math.NaN()}, []float64{1}, RunOptions{}); err == nil {
		t.Error("NaN: want an error")
	}
	for c, s := range map[Call]string{NotSignificant: "~", Higher: "higher", Lower: "lower", NeedsMoreRuns: "needs more runs"} {
		if c.String() != s {
			t.Errorf("%d.String() = %q", c, c.String())
		}
	}
}

// TestZeroSpread: runs that do not vary give no t statistic, never a tiny
// p-value (issue 20: 1e-300 from two runs a side). The permutation test
// decides, without an interval, and says how many runs it needs.
func TestZeroSpread(t *testing.T) {
	tests := []struct {
		name   string
		a, b   []float64
		paired bool
		p      float64
		call   Call
		rec    int
	}{
		{"2 and 2", []float64{3, 3}, []float64{4, 4}, false, 2.0 / 6, NeedsMoreRuns, 4},
		{"3 and 3", []float64{0.0625, 0.0625, 0.0625}, []float64{1, 1, 1}, false, 0.1, NeedsMoreRuns, 4},
		{"4 and 4", []float64{3, 3, 3, 3}, []float64{4, 4, 4, 4}, false, 2.0 / 70, Higher, 0},
		{"3 pairs", []float64{1, 2, 3}, []float64{2, 3, 4}, true, 0.25, NeedsMoreRuns, 6},
		{"equal", []float64{5, 5, 5}, []float64{5, 5, 5}, false, 1, NotSignificant, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := CompareRuns(tc.a, tc.b, RunOptions{Paired: tc.paired})
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.P, tc.p, 1e-12) || r.Call != tc.call || r.Recommended != tc.rec {
				t.Errorf("p %v, call %v, %d runs (%s); want p %v, %v, %d", r.P, r.Call, r.Recommended, r.Reason, tc.p, tc.call, tc.rec)
			}
			if r.Method == "permutation" && !math.IsNaN(r.Low) {
				t.Errorf("permutation row with an interval [%v, %v]", r.Low, r.High)
			}
		})
	}
}

// TestOneProcedure: over random runs (2 to 7 a side, with ties and
// constant sides), the call, the p-value and the interval always agree: a
// difference is called exactly when p < alpha, and a t interval excludes 0
// exactly then; "needs more runs" never comes with p < alpha.
func TestOneProcedure(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 20))
	draws := 3000
	if testing.Short() || raceEnabled {
		draws = 600
	}
	for i := range draws {
		n := 2 + rng.IntN(6)
		paired := i%2 == 1
		nb := n
		if !paired {
			nb = 2 + rng.IntN(6)
		}
		gen := func(k int, shift float64) []float64 {
			v := make([]float64, k)
			for j := range v {
				v[j] = math.Round(100 + shift + 3*rng.NormFloat64()*float64(rng.IntN(3)))
			}
			return v
		}
		a, b := gen(n, 0), gen(nb, 4*rng.Float64())
		r, err := CompareRuns(a, b, RunOptions{Paired: paired, Seed: uint64(i)})
		if err != nil {
			t.Fatal(err)
		}
		sig := r.P < 0.05
		excl := r.Low > 0 || r.High < 0
		switch {
		case r.Call.Significant() != sig:
			t.Fatalf("%v %v paired %v: call %v with p %v", a, b, paired, r.Call, r.P)
		case strings.HasSuffix(r.Method, "-t") && excl != sig:
			t.Fatalf("%v %v paired %v: p %v with interval [%v, %v]", a, b, paired, r.P, r.Low, r.High)
		case r.Method == "permutation" && !math.IsNaN(r.Low):
			t.Fatalf("%v %v: permutation with an interval", a, b)
		}
	}
}
