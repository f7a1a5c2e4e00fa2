package stats

import (
	"math"
	"testing"
)

// TestTrend, by hand: A at t = 0, 1, 2 gives 10, 12, 11; B at t = 3, 4, 5
// gives 20, 21, 23. Within each side, Σ(t−t̄)(y−ȳ) is 1 and 3 and
// Σ(t−t̄)² 2 and 2, so β = 1; the residuals leave 2 + 2/3 on 3 degrees of
// freedom, se = √(8/3/3/4) and t = 2.1213. Student's t with 3 df has
// F(t) = 1/2 + (x/(1+x²) + atan x)/π with x = t/√3, so p = 0.1240.
func TestTrend(t *testing.T) {
	tr, ok := Trend([]float64{0, 1, 2}, []float64{10, 12, 11}, []float64{3, 4, 5}, []float64{20, 21, 23})
	x := math.Sqrt(1.5) // t/√3 with t = 1/√(2/9)
	want := 1 - 2*(x/(1+x*x)+math.Atan(x))/math.Pi
	if !ok || !near(tr.Slope, 1, 1e-12) || tr.DF != 3 || !near(tr.P, want, 1e-9) {
		t.Errorf("got %+v (ok %v), want slope 1, 3 df, p %v", tr, ok, want)
	}
	// A level step between the sides is no drift: the intercepts take it.
	if tr, _ := Trend([]float64{0, 1, 2}, []float64{10, 12, 11}, []float64{3, 4, 5}, []float64{110, 112, 111}); !near(tr.Slope, 0.5, 1e-12) {
		t.Errorf("step between sides moved the slope: %v", tr.Slope)
	}
	// An exact line: no residual, p 0.
	if tr, _ := Trend([]float64{0, 1}, []float64{1, 2}, []float64{2, 3}, []float64{7, 8}); tr.P != 0 || tr.Slope != 1 {
		t.Errorf("exact line: %+v", tr)
	}
	if _, ok := Trend([]float64{0}, []float64{1}, []float64{1, 2}, []float64{1, 2}); ok {
		t.Error("3 runs: want no test")
	}
	if _, ok := Trend([]float64{0, 0}, []float64{1, 2}, []float64{1, 1}, []float64{1, 2}); ok {
		t.Error("no time spread within a side: want no test")
	}
}
