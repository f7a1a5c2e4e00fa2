package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHierWeightedQuantile: a draw given as weights per sorted value must
// give the statistics Quantile and the mean give on the expanded sample.
func TestHierWeightedQuantile(t *testing.T) {
	h := newHierSide([][]float64{{5, 1, 9, 3}, {2, 8}, {7}})
	tests := []struct {
		name   string
		weight []int32 // over the sorted values 1 2 3 5 7 8 9
	}{
		{"each once", []int32{1, 1, 1, 1, 1, 1, 1}},
		{"repeats and gaps", []int32{0, 3, 1, 0, 2, 0, 4}},
		{"one value", []int32{0, 0, 0, 5, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			copy(h.weight, tc.weight)
			h.accumulate()
			var expanded []float64
			for i, w := range tc.weight {
				for range w {
					expanded = append(expanded, h.vals[i])
				}
			}
			for _, s := range []Stat{Mean, 0, 0.1, 0.25, 0.5, 0.9, 0.99, 1} {
				if got, want := h.weighted(len(expanded), s), s.Of(expanded); !near(got, want, 1e-12) {
					t.Errorf("stat %v: %v, want %v", float64(s), got, want)
				}
			}
		})
	}
}

// TestHierarchicalIntervalWidens: the same request noise with and without
// a run effect (runs of B sitting at 0.6x, 1x, 1.4x, …). Without one, the
// hierarchical interval is about as wide as the pooled bootstrap's (a
// little wider: resampling runs and then requests counts the request noise
// twice, which errs on the safe side); with one, it is several times wider,
// where the pooled bootstrap barely moves.
func TestHierarchicalIntervalWidens(t *testing.T) {
	gen := func(levels []float64, seed uint64) [][]float64 {
		rng := rand.New(rand.NewPCG(seed, 1))
		out := make([][]float64, len(levels))
		for r, l := range levels {
			for range 150 {
				out[r] = append(out[r], l*math.Exp(0.4*rng.NormFloat64()))
			}
		}
		return out
	}
	flatA, flatB := []float64{100, 100, 100, 100, 100}, []float64{100, 100, 100, 100, 100}
	a0, b0 := gen(flatA, 1), gen(flatB, 2)
	a1, b1 := gen([]float64{60, 100, 140, 80, 120}, 1), gen([]float64{140, 60, 100, 120, 80}, 2)
	width := func(a, b [][]float64) (hier, pooled float64) {
		cs, err := CompareRequests(a, b, RunOptions{Stats: []Stat{0.5}, Resamples: 1000, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		ivs, err := pooledBootstrap(flatRuns(a), flatRuns(b), []Stat{0.5}, 1000, 0.05, 4)
		if err != nil {
			t.Fatal(err)
		}
		return cs[0].Boot.High - cs[0].Boot.Low, ivs[0].High - ivs[0].Low
	}
	h0, p0 := width(a0, b0)
	h1, p1 := width(a1, b1)
	t.Logf("median B−A interval width: no run effect hierarchical %.3g pooled %.3g; run effect hierarchical %.3g pooled %.3g", h0, p0, h1, p1)
	if !(h0 >= 0.9*p0 && h0 <= 2*p0) {
		t.Errorf("no run effect: hierarchical width %v against pooled %v, want within 0.9x–2x", h0, p0)
	}
	if !(h1 > 3*p1) || !(p1 < 2*p0) {
		t.Errorf("run effect: hierarchical width %v, pooled %v (pooled without run effect %v)", h1, p1, p0)
	}
}

func TestCompareRequestsDeterministic(t *testing.T) {
	a, b := issue12Latency()
	o := RunOptions{Seed: 9, Resamples: 300}
	r1, _ := CompareRequests(a, b, o)
	r2, _ := CompareRequests(a, b, o)
	o.Seed = 10
	r3, _ := CompareRequests(a, b, o)
	for i := range r1 {
		if r1[i].Boot != r2[i].Boot || r1[i].RatioLow != r2[i].RatioLow || r1[i].Reason != r2[i].Reason {
			t.Errorf("stat %v: same seed, different result", float64(r1[i].Stat))
		}
	}
	if r1[1].Boot == r3[1].Boot {
		t.Error("a different seed should move the bootstrap interval")
	}
	if got := r1[1]; !(got.RatioLow < got.Ratio && got.Ratio < got.RatioHigh) || !near(got.Ratio, got.B/got.A, 1e-12) {
		t.Errorf("ratio %v outside [%v, %v]", got.Ratio, got.RatioLow, got.RatioHigh)
	}
}

// TestCompareRequestsInputs: empty runs are dropped (with their partner
// when paired), and bad input is an error.
func TestCompareRequestsInputs(t *testing.T) {
	a := [][]float64{{1, 2, 3}, {}, {2, 3, 4}}
	b := [][]float64{{2, 3, 4}, {5, 6}, {3, 4, 5}}
	cs, err := CompareRequests(a, b, RunOptions{Stats: []Stat{0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if got := cs[0]; len(got.PerRunA) != 2 || len(got.PerRunB) != 3 {
		t.Errorf("unpaired: %d and %d runs, want 2 and 3", len(got.PerRunA), len(got.PerRunB))
	}
	// Type-4 medians: {1,2,3} → 1.5, {2,3,4} → 2.5, {3,4,5} → 3.5.
	cs, err = CompareRequests(a, b, RunOptions{Stats: []Stat{0.5}, Paired: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := cs[0]; !slices.Equal(got.PerRunA, []float64{1.5, 2.5}) || !slices.Equal(got.PerRunB, []float64{2.5, 3.5}) {
		t.Errorf("paired: %v and %v, want the partner of the empty run dropped", got.PerRunA, got.PerRunB)
	}
	bad := []struct {
		name string
		a, b [][]float64
		o    RunOptions
	}{
		{"empty side", [][]float64{{}}, b, RunOptions{}},
		{"NaN", [][]float64{{1, math.NaN()}}, b, RunOptions{}},
		{"paired counts", a[:2], b, RunOptions{Paired: true}},
		{"alpha", a, b, RunOptions{Alpha: 1.5}},
		{"stat", a, b, RunOptions{Stats: []Stat{2}}},
		{"overlap", a, b, RunOptions{MaxOverlap: -1}},
	}
	for _, tc := range bad {
		if _, err := CompareRequests(tc.a, tc.b, tc.o); err == nil {
			t.Errorf("%s: want an error", tc.name)
		}
	}
}
