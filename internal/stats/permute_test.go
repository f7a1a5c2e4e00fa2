package stats

import (
	"slices"
	"testing"
)

// Exact p-values by counting deals by hand: with 3+3 separated runs only
// the observed deal and its mirror reach the observed |difference| (2 of
// 20); with 2+3 runs {1,2} | {3,4,5} the deal {4,5} | {1,2,3} ties it
// (2 of 10).
func TestPermutationRunsExact(t *testing.T) {
	tests := []struct {
		a, b    []float64
		p, pmin float64
	}{
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, 2.0 / 20, 2.0 / 20},
		{[]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70, 2.0 / 70},
		{[]float64{1, 2}, []float64{3, 4, 5}, 2.0 / 10, 1.0 / 10},
		{[]float64{1, 2, 3}, []float64{1, 2, 3}, 1, 2.0 / 20},
	}
	for _, tc := range tests {
		p, pmin := PermutationRuns(tc.a, tc.b, 20000, 1)
		if !near(p, tc.p, 1e-12) || !near(pmin, tc.pmin, 1e-12) {
			t.Errorf("%v vs %v: p=%v min=%v, want %v and %v", tc.a, tc.b, p, pmin, tc.p, tc.pmin)
		}
	}
}

func TestPermutationRunsRandom(t *testing.T) {
	a, b := make([]float64, 10), make([]float64, 10)
	for i := range a {
		a[i], b[i] = float64(i), float64(i+100)
	}
	// C(20, 10) = 184756 deals exceed 999: random deals, the observed one
	// counted once, so fully separated runs give 1/1000.
	p, pmin := PermutationRuns(a, b, 999, 5)
	if p != 1.0/1000 || pmin != 1.0/1000 {
		t.Errorf("separated: p=%v min=%v, want 0.001", p, pmin)
	}
	for i := range b {
		b[i] = float64(i) + 0.5
	}
	p1, _ := PermutationRuns(a, b, 999, 5)
	p2, _ := PermutationRuns(a, b, 999, 5)
	if p1 != p2 || !(p1 > 0.5) {
		t.Errorf("interleaved runs: p=%v then %v, want equal and large", p1, p2)
	}
}

func TestForCombinations(t *testing.T) {
	var got [][]int
	forCombinations(5, 2, func(idx []int) { got = append(got, slices.Clone(idx)) })
	if len(got) != 10 || !slices.Equal(got[0], []int{0, 1}) || !slices.Equal(got[9], []int{3, 4}) {
		t.Errorf("got %v", got)
	}
	for i := 1; i < len(got); i++ {
		if slices.Compare(got[i-1], got[i]) >= 0 {
			t.Errorf("not in lexicographic order at %d: %v", i, got)
		}
	}
	if binomial(20, 10) != 184756 || binomial(6, 3) != 20 {
		t.Errorf("binomial: %v %v", binomial(20, 10), binomial(6, 3))
	}
}
