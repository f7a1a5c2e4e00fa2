package stats

import (
	"math"
	"strings"
	"testing"
)

// TestDecide drives the verdict rule with made-up evidence: every guard
// alone must stop a call, and an uncalled difference is "needs more runs"
// exactly when the MDD exceeds the threshold.
func TestDecide(t *testing.T) {
	o := RunOptions{}.withDefaults()
	base := func() Evidence {
		return Evidence{Method: "welch-t", Diff: 5, MeanA: 100, P: 0.01, Low: 1, High: 9,
			PermP: 0.03, PermMin: 0.03, Overlap: 0.1,
			Power: Power{NA: 4, NB: 4, MDDFrac: 0.05, Recommended: 3}}
	}
	tests := []struct {
		name   string
		edit   func(*Evidence)
		boot   *Interval
		call   Call
		rec    int
		reason string
	}{
		{"all agree", func(*Evidence) {}, nil, Higher, 0, "B higher than A"},
		{"all agree, lower", func(e *Evidence) { e.Diff, e.Low, e.High = -5, -9, -1 }, nil, Lower, 0, "B lower than A"},
		{"t-test not significant", func(e *Evidence) { e.P = 0.2 }, nil, NotSignificant, 0, "no significant difference;"},
		{"permutation disagrees", func(e *Evidence) { e.PermP = 0.2 }, nil, NotSignificant, 0, "permutation p=0.2"},
		{"permutation cannot reach alpha", func(e *Evidence) { e.PermP, e.PermMin = 0.1, 0.1 }, nil, Higher, 0, "B higher"},
		{"runs overlap", func(e *Evidence) { e.Overlap = 0.4 }, nil, NotSignificant, 0, "40% of run pairs"},
		{"bootstrap includes 0", func(*Evidence) {}, &Interval{Low: -1, High: 9}, NotSignificant, 0, "hierarchical bootstrap interval [-1, 9]"},
		{"bootstrap on the other side", func(*Evidence) {}, &Interval{Low: -9, High: -1}, NotSignificant, 0, "does not exclude 0"},
		{"bootstrap agrees", func(*Evidence) {}, &Interval{Low: 2, High: 8}, Higher, 0, "hierarchical bootstrap interval [2, 8]"},
		{"too few runs", func(e *Evidence) { e.P, e.Power.MDDFrac, e.Power.Recommended = 0.2, 0.3, 9 }, nil, NeedsMoreRuns, 9, "9 runs per side would detect"},
		{"recommendation below the runs at hand", func(e *Evidence) { e.Overlap, e.Power.MDDFrac = 0.5, 0.3 }, nil, NeedsMoreRuns, 5, "(per-run values overlap"},
		{"capped", func(e *Evidence) { e.P, e.Power.MDDFrac, e.Power.Capped = 0.2, 0.3, true }, nil, NeedsMoreRuns, 50, "even 50 runs per side"},
		{"no spread measured", func(e *Evidence) { e.P, e.Power.MDDFrac, e.Power.Recommended = math.NaN(), math.Inf(1), 0 }, nil, NeedsMoreRuns, 2, "run at least 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := base()
			tc.edit(&ev)
			v := decide(&ev, tc.boot, o)
			if v.Call != tc.call || v.Recommended != tc.rec || !strings.Contains(v.Reason, tc.reason) {
				t.Errorf("got %v, %d, %q; want %v, %d, reason with %q", v.Call, v.Recommended, v.Reason, tc.call, tc.rec, tc.reason)
			}
		})
	}
}

func TestCompareRunsEdges(t *testing.T) {
	// One run per side: no test, no spread.
	r, err := CompareRuns([]float64{10}, []float64{20}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Call != NeedsMoreRuns || r.Recommended != 2 || !math.IsNaN(r.P) {
		t.Errorf("one run each: %v, %d, p %v", r.Call, r.Recommended, r.P)
	}
	// One run of A: B's spread stands in for A's.
	r, _ = CompareRuns([]float64{100}, []float64{110, 130, 120}, RunOptions{})
	if want, _ := RecommendRuns(10, 10, 20, 0.05, 0.8, 50); r.Call != NeedsMoreRuns || r.Recommended != want {
		t.Errorf("one run of A: %v, %d runs, want %d", r.Call, r.Recommended, want)
	}
	// Enough runs, steady values, no difference: a plain "~".
	r, _ = CompareRuns([]float64{100, 101, 99, 100.5, 99.5}, []float64{100.2, 100.8, 99.1, 100.4, 99.6}, RunOptions{})
	if r.Call != NotSignificant || r.Recommended != 0 || !(r.Power.MDDFrac < 0.1) {
		t.Errorf("steady runs: %v (%s)", r.Call, r.Reason)
	}
	// Separated, steady runs: called.
	r, _ = CompareRuns([]float64{100, 101, 99, 100.5}, []float64{90, 91, 89, 90.5}, RunOptions{})
	if r.Call != Lower || r.Overlap != 0 || r.PermP != 2.0/70 {
		t.Errorf("separated runs: %v, overlap %v, permutation p %v", r.Call, r.Overlap, r.PermP)
	}
	for _, bad := range []RunOptions{{Power: 1}, {Threshold: -0.1}, {MaxRuns: 1}, {Resamples: -1}} {
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
}

// TestRunOverlap: 40 runs a side, B a shift of 8 above A's 0..39. Welch
// and the permutation test call it, but a third of the run pairs point the
// other way: the overlap guard stops the call unless it is loosened.
func TestRunOverlap(t *testing.T) {
	a, b := make([]float64, 40), make([]float64, 40)
	for i := range a {
		a[i], b[i] = float64(i), float64(i+8)
	}
	r, _ := CompareRuns(a, b, RunOptions{})
	if !(r.P < 0.05 && r.PermP < 0.05) || r.Call.Significant() || !(r.Overlap > 0.25) {
		t.Errorf("p %v, permutation p %v, overlap %v: call %v", r.P, r.PermP, r.Overlap, r.Call)
	}
	// 8 ahead in 40 values: pairs (i, j) with j+8 < i number 32·31/2, ties
	// (j+8 = i) 32 counting one half: (496+16)/1600.
	if !near(r.Overlap, 512.0/1600, 1e-12) {
		t.Errorf("overlap %v, want 0.32", r.Overlap)
	}
	if r, _ := CompareRuns(a, b, RunOptions{MaxOverlap: 0.4}); r.Call != Higher {
		t.Errorf("overlap allowed: %v (%s)", r.Call, r.Reason)
	}
	for c, s := range map[Call]string{NotSignificant: "~", Higher: "higher", Lower: "lower", NeedsMoreRuns: "needs more runs"} {
		if c.String() != s {
			t.Errorf("%d.String() = %q", c, c.String())
		}
	}
}
