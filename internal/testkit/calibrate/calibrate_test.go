package calibrate

import (
	"context"
	"math"
	"testing"
)

// bound is the largest rate consistent with a true rate p over n
// comparisons: p plus three binomial standard deviations.
func bound(p float64, n int) float64 { return p + 3*math.Sqrt(p*(1-p)/float64(n)) }

// scale is how many comparisons a scenario of the fast test draws: fewer
// with -short, fewer still under the race detector.
func scale(n int) int {
	switch {
	case raceEnabled:
		return max(n/8, 20)
	case testing.Short():
		return max(n/4, 20)
	}
	return n
}

// TestCalibrationAA simulates two identical systems through written
// result and records files and the real comparison (3 runs a side,
// interleaved with 20% run-to-run spread and blocked with 2%). The
// headline may name a winner (or say mixed) in at most 5% of the
// comparisons, every row may call a difference in at most 5%, and the 95%
// intervals must hold the true difference, 0, in at least 93%, all within
// binomial error. Before issue 20 the headline named a winner in 16–26%.
func TestCalibrationAA(t *testing.T) {
	for _, o := range []struct {
		order  Order
		spread float64
	}{{OrderInterleaved, 0.20}, {OrderBlocked, 0.02}} {
		w := world(3, o.order, o.spread)
		w.Requests = 100
		s := Scenario{Name: "A/A 3 runs " + o.order.Name, World: w, Comparisons: scale(200)}
		tl, err := Simulate(context.Background(), s, Options{Dir: t.TempDir(), Seed: 20})
		if err != nil {
			t.Fatal(err)
		}
		claims := Rate(tl.Claimed(), tl.N)
		row, worst := tl.WorstRow()
		cover, low, lowRow := tl.Coverage()
		t.Logf("%s %.0f%%: headline claims %.1f%%, worst row %s %.1f%%, intervals cover 0 in %.1f%% (lowest %s %.1f%%), %d comparisons",
			s.Name, 100*o.spread, 100*claims, row, 100*worst, 100*cover, lowRow, 100*low, tl.N)
		if claims > bound(0.05, tl.N) {
			t.Errorf("%s: headline claims a difference in %.3f of A/A comparisons", s.Name, claims)
		}
		if worst > bound(0.05, tl.N) {
			t.Errorf("%s: row %s calls a difference in %.3f of A/A comparisons", s.Name, row, worst)
		}
		if low < 0.93-3*math.Sqrt(0.93*0.07/float64(tl.N)) {
			t.Errorf("%s: row %s's 95%% interval holds 0 in only %.3f", s.Name, lowRow, low)
		}
	}
}

// TestCalibrationAB: B's TTFT is 20% longer and nothing else differs, 3
// interleaved runs a side with 2% run-to-run spread (400 requests a run).
// The headline must name A faster in at least 80% of the comparisons
// (within binomial error), never B, and the rows of decode speed (TPOT,
// ITL), which did not change, may call a difference in at most 5%.
func TestCalibrationAB(t *testing.T) {
	w := world(3, OrderInterleaved, 0.02)
	w.TTFTEffect = 0.20
	s := Scenario{Name: "A/B TTFT +20%", World: w, Comparisons: scale(60)}
	tl, err := Simulate(context.Background(), s, Options{Dir: t.TempDir(), Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	found := Rate(tl.Headline["a"], tl.N)
	wrong := Rate(tl.Headline["b"]+tl.Headline["mixed"], tl.N)
	t.Logf("%s: headline names A in %.1f%%, B or mixed in %.1f%% of %d", s.Name, 100*found, 100*wrong, tl.N)
	if found < 0.8-3*math.Sqrt(0.8*0.2/float64(tl.N)) || wrong > bound(0.05, tl.N) {
		t.Errorf("headline found the difference in %.3f, wrong in %.3f", found, wrong)
	}
	for _, name := range tl.RowNames() {
		if r := tl.Rows[name]; unchanged(name) && Rate(r.CalledA+r.CalledB, r.N) > bound(0.05, r.N) {
			t.Errorf("%s (unchanged) called in %.3f", name, Rate(r.CalledA+r.CalledB, r.N))
		}
	}
}

// TestCalibrationCanFail keeps the calibration tests honest: the same A/A
// simulation with compare run at alpha 0.5, a procedure known to claim
// far too often, must break the 5% bound the tests above hold, and
// Checks must say so.
func TestCalibrationCanFail(t *testing.T) {
	w := world(3, OrderInterleaved, 0.02)
	w.Requests = 100
	s := Scenario{Name: "A/A 3 runs interleaved 2%", World: w, Comparisons: scale(80)}
	tl, err := Simulate(context.Background(), s, Options{Dir: t.TempDir(), Seed: 22, Alpha: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	claims := Rate(tl.Claimed(), tl.N)
	t.Logf("alpha 0.5: headline claims %.1f%% of %d", 100*claims, tl.N)
	if claims <= bound(0.05, tl.N) {
		t.Errorf("alpha 0.5: headline claims only %.3f; the calibration could not catch a miscalibrated procedure", claims)
	}
	cs := Checks([]*Tally{tl}, nil)
	if len(cs) == 0 || cs[0].Pass {
		t.Errorf("Checks passes an A/A headline claiming %.3f: %+v", claims, cs)
	}
}
