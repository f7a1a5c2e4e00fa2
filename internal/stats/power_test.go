package stats

import (
	"math"
	"testing"
)

// The expected MDDs are computed by hand from printed t-tables:
// t(0.975, 4) = 2.7764451, t(0.80, 4) = 0.9409646, t(0.95, 4) = 2.1318468,
// t(0.90, 4) = 1.5332063, and z(0.975) + z(0.80) = 1.9599640 + 0.8416212.
func TestMDDHandComputed(t *testing.T) {
	const t4 = 2.7764451 + 0.9409646 // alpha 0.05, power 0.8, 4 df
	tests := []struct {
		name         string
		sdA, sdB     float64
		nA, nB       int
		alpha, power float64
		want, relTol float64
	}{
		// SE = √(1/3+1/3); ν = (2/3)² / ((1/3)²/2·2) = 4
		{name: "3+3 runs, sd 1", sdA: 1, sdB: 1, nA: 3, nB: 3, alpha: 0.05, power: 0.8, want: t4 * math.Sqrt(2.0/3), relTol: 1e-6},
		// sdB = 0: ν = nA−1 = 4, SE = 2/√5
		{name: "one side constant", sdA: 2, sdB: 0, nA: 5, nB: 4, alpha: 0.05, power: 0.8, want: t4 * 2 / math.Sqrt(5), relTol: 1e-6},
		{name: "alpha 0.1 power 0.9", sdA: 1, sdB: 1, nA: 3, nB: 3, alpha: 0.1, power: 0.9, want: (2.1318468 + 1.5332063) * math.Sqrt(2.0/3), relTol: 1e-6},
		// many runs: the t quantiles tend to z
		{name: "large n", sdA: 1, sdB: 1, nA: 10000, nB: 10000, alpha: 0.05, power: 0.8, want: (1.9599640 + 0.8416212) * math.Sqrt(2.0/10000), relTol: 1e-4},
		{name: "one run", sdA: 1, sdB: 1, nA: 1, nB: 3, alpha: 0.05, power: 0.8, want: math.Inf(1)},
		{name: "no spread", sdA: 0, sdB: 0, nA: 3, nB: 3, alpha: 0.05, power: 0.8, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MDD(tc.sdA, tc.sdB, tc.nA, tc.nB, tc.alpha, tc.power)
			if got != tc.want && !(math.Abs(got-tc.want) <= tc.relTol*math.Abs(tc.want)) {
				t.Errorf("MDD = %.9g, want %.9g", got, tc.want)
			}
		})
	}
	// Paired: sd of the differences 1 over 5 pairs, ν = 4, SE = 1/√5.
	if got, want := MDDPaired(1, 5, 0.05, 0.8), t4/math.Sqrt(5); math.Abs(got-want) > 1e-6*want {
		t.Errorf("MDDPaired = %.9g, want %.9g", got, want)
	}
	if !math.IsInf(MDDPaired(1, 1, 0.05, 0.8), 1) || MDDPaired(0, 4, 0.05, 0.8) != 0 {
		t.Error("MDDPaired: one pair should be +Inf and no spread 0")
	}
}

// TestRecommendRuns checks that the recommendation is the smallest run
// count whose MDD meets the target, and that it never falls when the
// spread grows or the target shrinks.
func TestRecommendRuns(t *testing.T) {
	const alpha, power, maxRuns = 0.05, 0.8, 50
	prev := 0
	for _, sd := range []float64{0.5, 1, 2, 3, 5, 8, 13, 20} {
		n, capped := RecommendRuns(sd, sd, 10, alpha, power, maxRuns)
		if n < prev {
			t.Errorf("sd %v: %d runs, fewer than %d for a smaller spread", sd, n, prev)
		}
		prev = n
		if capped {
			if n != maxRuns || MDD(sd, sd, maxRuns, maxRuns, alpha, power) <= 10 {
				t.Errorf("sd %v: capped at %d but MDD(max) = %v", sd, n, MDD(sd, sd, maxRuns, maxRuns, alpha, power))
			}
			continue
		}
		if MDD(sd, sd, n, n, alpha, power) > 10 || (n > 2 && MDD(sd, sd, n-1, n-1, alpha, power) <= 10) {
			t.Errorf("sd %v: %d runs is not the smallest count with MDD <= 10", sd, n)
		}
	}
	if prev != maxRuns {
		t.Errorf("sd 20 should hit the cap, got %d", prev)
	}
	prev = 0
	for _, target := range []float64{20, 10, 5, 3, 2, 1} {
		n, _ := RecommendRuns(4, 2, target, alpha, power, maxRuns)
		if n < prev {
			t.Errorf("target %v: %d runs, fewer than %d for a larger target", target, n, prev)
		}
		prev = n
	}
	// Pairs: sd of the differences 1, target 1, by the tables:
	// 10 pairs give (2.2622+0.8834)/√10 = 0.995, 9 give
	// (2.3060+0.8889)/√9 = 1.065.
	if n, capped := RecommendPairs(1, 1, alpha, power, maxRuns); n != 10 || capped {
		t.Errorf("RecommendPairs = %d (capped %v), want 10", n, capped)
	}
	if n, capped := RecommendRuns(0, 0, 1, alpha, power, maxRuns); n != 2 || capped {
		t.Errorf("no spread: %d runs (capped %v), want 2", n, capped)
	}
}
