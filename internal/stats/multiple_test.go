package stats

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestHolm: p = 0.01, 0.04, 0.03, 0.005 sorted are 0.005·4 = 0.02,
// 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 raised to 0.06; NaN counts as 1.
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if !near(got[i], want[i], 1e-12) {
			t.Errorf("Holm = %v, want %v", got, want)
			break
		}
	}
	if got := Holm([]float64{0.001, math.NaN()}); !near(got[0], 0.002, 1e-12) || got[1] != 1 {
		t.Errorf("with NaN: %v", got)
	}
}

// TestGraphIsHolm: equal weights and equal edges between all hypotheses
// give Holm's procedure.
func TestGraphIsHolm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for range 200 {
		m := 1 + rng.IntN(6)
		g := Graph{Weights: make([]float64, m), Edges: make([][]float64, m)}
		p := make([]float64, m)
		for i := range m {
			g.Weights[i] = 1 / float64(m)
			g.Edges[i] = make([]float64, m)
			for j := range m {
				if j != i {
					g.Edges[i][j] = 1 / float64(m-1)
				}
			}
			p[i] = math.Pow(rng.Float64(), 3)
		}
		got, want := g.Adjusted(p), Holm(p)
		for i := range got {
			if !near(got[i], want[i], 1e-12) {
				t.Fatalf("p %v: graph %v, Holm %v", p, got, want)
			}
		}
	}
}

// TestGraphHierarchy, by hand: leads 0 and 2 hold half of alpha each, 0
// passes its share to 1, 1 to 2 and 2 to 0. With p = 0.02, 0.03, 0.5: 0
// falls at 0.02/0.5 = 0.04; 1 then holds 0.5, and falls at 0.06; 2 then
// holds everything, 0.5.
func TestGraphHierarchy(t *testing.T) {
	g := Graph{Weights: []float64{0.5, 0, 0.5}, Edges: [][]float64{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}}
	got := g.Adjusted([]float64{0.02, 0.03, 0.5})
	want := []float64{0.04, 0.06, 0.5}
	for i := range want {
		if !near(got[i], want[i], 1e-12) {
			t.Fatalf("adjusted %v, want %v", got, want)
		}
	}
	// A child that never receives a share is never rejected.
	g = Graph{Weights: []float64{1, 0}, Edges: [][]float64{{0, 0}, {0, 0}}}
	if got := g.Adjusted([]float64{0.01, 0.001}); got[0] != 0.01 || got[1] != 1 {
		t.Errorf("stranded child: %v", got)
	}
}

// TestMaxTExact: 4 runs a side, B above A in every run: the observed
// split and its mirror are the two most extreme of 70, p = 2/70. Copies of
// one metric (perfect correlation) keep that p, where Holm would triple
// it; a second, unrelated metric whose relabellings never reach the first
// one's |t| leaves it too.
func TestMaxTExact(t *testing.T) {
	a, b := []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}
	got, err := MaxT(context.Background(), [][]float64{a, a, a}, [][]float64{b, b, b}, false, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		if !near(p, 2.0/70, 1e-12) {
			t.Errorf("copies: %v, want 2/70 each", got)
		}
	}
	far := []float64{11, 12, 13, 14}
	got, _ = MaxT(context.Background(), [][]float64{a, {3, 1, 4, 2}}, [][]float64{far, {2, 4, 1, 3}}, false, 100, 1)
	if !near(got[0], 2.0/70, 1e-12) || !(got[1] > 0.5) {
		t.Errorf("with a null metric: %v", got)
	}
	// 10 pairs all positive: 2 of 1024 sign patterns are as extreme.
	d0, d1 := make([]float64, 10), make([]float64, 10)
	for i := range d1 {
		d1[i] = 1 + float64(i%3)
	}
	got, _ = MaxT(context.Background(), [][]float64{d0, d0}, [][]float64{d1, d1}, true, 2000, 1)
	if !near(got[0], 2.0/1024, 1e-12) || !near(got[1], 2.0/1024, 1e-12) {
		t.Errorf("pairs: %v, want 2/1024", got)
	}
	if _, err := MaxT(context.Background(), [][]float64{{1}}, [][]float64{{2, 3}}, false, 10, 1); err != ErrTooFew {
		t.Errorf("one run: %v", err)
	}
}

// TestMaxTFamilyWise: 5 correlated metrics (a shared run effect), 8 runs
// a side of identical systems, random relabellings: the chance that any
// adjusted p falls below 0.05 stays at 0.05 within binomial error, and
// max-T rejects at least as often as Holm on the same data when B is
// shifted.
func TestMaxTFamilyWise(t *testing.T) {
	sims := 400
	if testing.Short() {
		sims = 150
	}
	rng := rand.New(rand.NewPCG(5, 5))
	gen := func(shift float64) [][]float64 {
		out := make([][]float64, 5)
		for range 8 {
			u := rng.NormFloat64()
			for j := range out {
				out[j] = append(out[j], shift+u+0.5*rng.NormFloat64())
			}
		}
		return out
	}
	any := func(p []float64) bool {
		for _, v := range p {
			if v < 0.05 {
				return true
			}
		}
		return false
	}
	var null, maxt, holm int
	for s := range sims {
		p, err := MaxT(context.Background(), gen(0), gen(0), false, 400, uint64(s))
		if err != nil {
			t.Fatal(err)
		}
		if any(p) {
			null++
		}
		a, b := gen(0), gen(1.2)
		p, _ = MaxT(context.Background(), a, b, false, 400, uint64(s))
		raw := make([]float64, 5)
		for j := range raw {
			w, _ := WelchT(a[j], b[j], 0.05)
			raw[j] = w.P
		}
		if any(p) {
			maxt++
		}
		if any(Holm(raw)) {
			holm++
		}
	}
	rate := float64(null) / float64(sims)
	t.Logf("A/A: some adjusted p < 0.05 in %.1f%%; shifted: max-T %.1f%%, Holm %.1f%% of %d", 100*rate, 100*float64(maxt)/float64(sims), 100*float64(holm)/float64(sims), sims)
	if rate > 0.05+3*math.Sqrt(0.05*0.95/float64(sims)) {
		t.Errorf("family-wise error %.3f", rate)
	}
	if maxt < holm {
		t.Errorf("max-T rejected in %d, Holm in %d: max-T should use the correlation", maxt, holm)
	}
}
