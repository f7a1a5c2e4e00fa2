package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The expected values below were computed by hand from the textbook
// formulas (rank sums, tie-corrected variance, continuity correction).
func TestMannWhitneyUHandComputed(t *testing.T) {
	tests := []struct {
		name      string
		x, y      []float64
		u1, z, p  float64
		wantCLESx float64
	}{
		// ranks of x: 1,2,3 -> R1=6, U1=0; var=9/12*7=5.25; z=(0-4.5+0.5)/sqrt(5.25)
		{"separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, -1.7457431218879391, 0.0808555983700523, 0},
		// ranks: 1 | 2,2,2 -> 3 | 3,3 -> 5.5 | 4,4 -> 7.5; R1=12.5, U1=2.5;
		// ties 3,2,2 -> sum(t^3-t)=36; var=16/12*(9-36/56)
		{"ties", []float64{1, 2, 2, 3}, []float64{2, 3, 4, 4}, 2.5, -1.4978617237881953, 0.13416918012812581, 2.5 / 16},
		// symmetric: U1 = U2 = 4.5 -> z = 0, p = 1
		{"identical", []float64{1, 2, 3}, []float64{1, 2, 3}, 4.5, 0, 1, 0.5},
		{"all tied", []float64{7, 7}, []float64{7, 7, 7}, 3, 0, 1, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := MannWhitneyU(tc.x, tc.y)
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.U1, tc.u1, 1e-12) || !near(r.Z, tc.z, 1e-9) || !near(r.P, tc.p, 1e-9) || !near(r.CLES, tc.wantCLESx, 1e-12) {
				t.Errorf("got U1=%v z=%v p=%v cles=%v, want U1=%v z=%v p=%v cles=%v", r.U1, r.Z, r.P, r.CLES, tc.u1, tc.z, tc.p, tc.wantCLESx)
			}
			if !near(r.U1+r.U2, float64(len(tc.x)*len(tc.y)), 1e-9) {
				t.Errorf("U1+U2 = %v", r.U1+r.U2)
			}
		})
	}
	if _, err := MannWhitneyU(nil, []float64{1}); err == nil {
		t.Error("empty sample: want error")
	}
}

func TestWelchHandComputed(t *testing.T) {
	// x: mean 2.5 var 5/3; y: mean 5 var 20/3; se = sqrt(5/12+5/3);
	// t = 2.5/se = sqrt(3); df = (25/12)^2 / ((5/12)^2/3 + (5/3)^2/3) = 4.4118;
	// p from numeric integration of the t density.
	w, err := WelchT([]float64{1, 2, 3, 4}, []float64{2, 4, 6, 8}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if !near(w.T, math.Sqrt(3), 1e-12) || !near(w.DF, 4.411764705882353, 1e-9) || !near(w.P, 0.15158050481388308, 1e-6) {
		t.Errorf("got t=%v df=%v p=%v", w.T, w.DF, w.P)
	}
	if !(w.CILow < 0 && w.CIHigh > 2.5) {
		t.Errorf("CI [%v, %v] should straddle 0 and contain 2.5", w.CILow, w.CIHigh)
	}
	if _, err := WelchT([]float64{1}, []float64{1, 2}, 0.05); err != ErrTooFew {
		t.Errorf("single value: got %v, want ErrTooFew", err)
	}
	c, _ := WelchT([]float64{3, 3}, []float64{3, 3}, 0.05)
	if c.P != 1 {
		t.Errorf("constant equal samples: p=%v, want 1", c.P)
	}
	// No spread: no t statistic, so no p-value and no interval (issue 20:
	// two constant runs a side gave p = 1e-300).
	d, _ := WelchT([]float64{3, 3}, []float64{4, 4}, 0.05)
	if !math.IsNaN(d.P) || !math.IsNaN(d.CILow) || !math.IsNaN(d.CIHigh) || !math.IsInf(d.T, 1) {
		t.Errorf("constant different samples: t=%v p=%v ci=[%v,%v], want no p-value and no interval", d.T, d.P, d.CILow, d.CIHigh)
	}
}

func TestQuantile(t *testing.T) {
	s := []float64{1, 2, 3, 4, 10}
	// type 4: h = p*n; p=0.5 -> h=2.5 -> 2+0.5*(3-2); p=0.9 -> h=4.5 -> 4+0.5*6
	for _, tc := range []struct{ p, want float64 }{{0, 1}, {0.1, 1}, {1, 10}, {0.5, 2.5}, {0.9, 7}, {0.4, 2}} {
		if got := Quantile(s, tc.p); !near(got, tc.want, 1e-12) {
			t.Errorf("Quantile(%v) = %v, want %v", tc.p, got, tc.want)
		}
		if g := stat.Quantile(tc.p, stat.LinInterp, s, nil); !near(g, Quantile(s, tc.p), 1e-12) {
			t.Errorf("p=%v: gonum LinInterp %v differs from Quantile %v", tc.p, g, Quantile(s, tc.p))
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("empty: want NaN")
	}
}

func normal(rng *rand.Rand, n int, mu, sd float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = mu + sd*rng.NormFloat64()
	}
	return out
}

func TestBootstrapKnownShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := normal(rng, 800, 100, 10)
	y := normal(rng, 800, 110, 10)
	iv, err := Bootstrap(x, y, []Stat{0.5, 0.9, Mean}, 2000, 0.05, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range iv {
		if !(v.Low > 5 && v.High < 15 && v.Low <= v.Diff && v.Diff <= v.High) {
			t.Errorf("stat %d: interval %+v should sit around +10 and exclude 0", i, v)
		}
	}
	again, _ := Bootstrap(x, y, []Stat{0.5, 0.9, Mean}, 2000, 0.05, 7)
	if again[0] != iv[0] {
		t.Error("same seed gave a different interval")
	}
}

func TestBootstrapNoShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := normal(rng, 600, 50, 5)
	y := normal(rng, 600, 50, 5)
	iv, err := Bootstrap(x, y, []Stat{0.5, Mean}, 2000, 0.05, 11)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range iv {
		if !(v.Low < 0 && v.High > 0) {
			t.Errorf("stat %d: interval %+v should contain 0", i, v)
		}
	}
}

// The counting resampler must agree with sorting the resample.
func TestResampleMatchesSort(t *testing.T) {
	sorted := []float64{1, 2, 2, 5, 9, 10, 11}
	count := []int{0, 3, 0, 1, 2, 0, 1}
	var res []float64
	for i, c := range count {
		for range c {
			res = append(res, sorted[i])
		}
	}
	for k := range res {
		if got := nth(sorted, count, k); got != res[k] {
			t.Errorf("nth(%d) = %v, want %v", k, got, res[k])
		}
	}
}

// Clustered values (identical within a cluster) carry less information than
// their count suggests: the cluster bootstrap interval must be wider than
// the one that treats every value as independent.
func TestBootstrapClustersWider(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	mk := func() [][]float64 {
		cs := make([][]float64, 40)
		for i := range cs {
			v := 10 + rng.NormFloat64()
			cs[i] = []float64{v, v, v, v, v, v, v, v, v, v}
		}
		return cs
	}
	x, y := mk(), mk()
	flat := func(cs [][]float64) []float64 {
		var out []float64
		for _, c := range cs {
			out = append(out, c...)
		}
		return out
	}
	cl, err := BootstrapClusters(x, y, []Stat{0.5}, 1000, 0.05, 3)
	if err != nil {
		t.Fatal(err)
	}
	naive, _ := Bootstrap(flat(x), flat(y), []Stat{0.5}, 1000, 0.05, 3)
	if cw, nw := cl[0].High-cl[0].Low, naive[0].High-naive[0].Low; cw < 2*nw {
		t.Errorf("cluster interval width %v should be well above the naive %v", cw, nw)
	}
	if cl[0].Diff != naive[0].Diff {
		t.Errorf("point estimates differ: %v vs %v", cl[0].Diff, naive[0].Diff)
	}
}

// nth is the reference: the k-th (0-based) value of the resample described by count.
func nth(sorted []float64, count []int, k int) float64 {
	seen := 0
	for i, c := range count {
		seen += c
		if seen > k {
			return sorted[i]
		}
	}
	return sorted[len(sorted)-1]
}

// The one-walk resampler must agree with expanding and sorting the resample.
func TestPoolResampleMatchesExpansion(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	cs := make([][]float64, 30)
	for i := range cs {
		for range rng.IntN(4) {
			cs[i] = append(cs[i], float64(rng.IntN(50)))
		}
	}
	cs[0] = append(cs[0], 7)
	p := newPool(cs)
	st := []Stat{0, 0.1, 0.5, 0.9, 0.95, 0.99, 1, Mean}
	out := make([]float64, len(st))
	for range 200 {
		p.resample(st, out, rng)
		var exp []float64
		for i, v := range p.vals {
			for range p.weight[i] {
				exp = append(exp, v)
			}
		}
		for k, s := range st {
			if want := s.Of(exp); !near(out[k], want, 1e-9) {
				t.Fatalf("stat %v: got %v, want %v (n=%d)", s, out[k], want, len(exp))
			}
		}
	}
}
