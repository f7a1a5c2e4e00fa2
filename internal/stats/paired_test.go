package stats

import (
	"math"
	"testing"
)

// d = 1, 2, 1, 2: mean 1.5, sd √(1/3), t = 1.5/(√(1/3)/2) = 3√3, 3 df.
// The t distribution with 3 df has the closed form
// F(t) = 1/2 + (x/(1+x²) + atan x)/π with x = t/√3 = 3, so
// p = 1 − 2(0.3 + atan 3)/π = 0.0138468. Sign flips: only the two
// patterns with all signs equal reach |Σ| = 6, p = 2/16.
func TestPairedTHandComputed(t *testing.T) {
	a := []float64{10, 12, 11, 13}
	b := []float64{11, 14, 12, 15}
	r, err := PairedT(a, b, 0.05, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	wantP := 1 - 2*(0.3+math.Atan(3))/math.Pi
	if r.N != 4 || !near(r.MeanDiff, 1.5, 1e-12) || !near(r.SDDiff, math.Sqrt(1.0/3), 1e-12) ||
		!near(r.T, 3*math.Sqrt(3), 1e-9) || r.DF != 3 || !near(r.P, wantP, 1e-6) {
		t.Errorf("got %+v, want t=%v p=%v", r, 3*math.Sqrt(3), wantP)
	}
	if r.FlipP != 2.0/16 || r.FlipMin != 2.0/16 {
		t.Errorf("sign flip p=%v min=%v, want 0.125", r.FlipP, r.FlipMin)
	}
	if !(r.CILow > 0 && r.CIHigh > r.CILow && near((r.CILow+r.CIHigh)/2, 1.5, 1e-12)) {
		t.Errorf("interval [%v, %v]", r.CILow, r.CIHigh)
	}
	if _, err := PairedT(a, b[:3], 0.05, 1000, 1); err != ErrTooFew {
		t.Errorf("unequal lengths: %v", err)
	}
	one, err := PairedT([]float64{1}, []float64{2}, 0.05, 1000, 1)
	if err != ErrTooFew || one.FlipP != 1 || one.FlipMin != 1 {
		t.Errorf("one pair: err %v, flip p %v", err, one.FlipP)
	}
	c, _ := PairedT([]float64{1, 2, 3}, []float64{2, 3, 4}, 0.05, 1000, 1)
	if !math.IsNaN(c.P) || !math.IsNaN(c.CILow) || c.FlipP != 2.0/8 {
		t.Errorf("equal differences: p=%v interval [%v, %v] flip p %v; want no t-test, sign flips 0.25", c.P, c.CILow, c.CIHigh, c.FlipP)
	}
	z, _ := PairedT([]float64{1, 2, 3}, []float64{1, 2, 3}, 0.05, 1000, 1)
	if z.P != 1 || z.CILow != 0 || z.CIHigh != 0 {
		t.Errorf("no differences: p=%v interval [%v, %v]", z.P, z.CILow, z.CIHigh)
	}
}

// TestSignFlipMonteCarlo: above 16 pairs the p-value is estimated; all
// differences positive gives the smallest estimate, 1/(flips+1), and a
// fixed seed gives a fixed answer.
func TestSignFlipMonteCarlo(t *testing.T) {
	d := make([]float64, 20)
	for i := range d {
		d[i] = 1 + float64(i%3)
	}
	p, pmin := signFlip(d, 999, 7)
	if p != 1.0/1000 || pmin != 1.0/1000 {
		t.Errorf("all positive: p=%v min=%v, want 0.001", p, pmin)
	}
	for i := range d {
		if i%2 == 1 {
			d[i] = -d[i]
		}
	}
	p1, _ := signFlip(d, 999, 7)
	p2, _ := signFlip(d, 999, 7)
	if p1 != p2 || !(p1 > 0.3) {
		t.Errorf("balanced signs: p=%v then %v, want equal and large", p1, p2)
	}
}

// TestPairedVersusUnpaired: runs that share a large drift per pair (the
// level moves from 80 to 160 between pairs) with B 5% above A in every
// pair. Unpaired, the drift swamps the difference; paired, it cancels.
func TestPairedVersusUnpaired(t *testing.T) {
	a := []float64{100, 140, 80, 120, 160, 90}
	b := make([]float64, len(a))
	for i, v := range a {
		b[i] = v*1.05 + 0.3*float64(i%2)
	}
	un, err := CompareRuns(a, b, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pa, err := CompareRuns(a, b, RunOptions{Paired: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("unpaired: %s", un.Reason)
	t.Logf("paired: %s", pa.Reason)
	if un.Call.Significant() || un.Method != "welch-t" {
		t.Errorf("unpaired: %v by %s, want no verdict", un.Call, un.Method)
	}
	if pa.Call != Higher || pa.Method != "paired-t" {
		t.Errorf("paired: %v by %s, want higher by paired-t", pa.Call, pa.Method)
	}
	if !(pa.Power.MDD < un.Power.MDD/5) {
		t.Errorf("paired MDD %v should be far below unpaired %v", pa.Power.MDD, un.Power.MDD)
	}
	if _, err := CompareRuns(a, b[:5], RunOptions{Paired: true}); err == nil {
		t.Error("paired with unequal run counts: want an error")
	}
}
