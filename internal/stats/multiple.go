package stats

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
)

// This file holds the family-wise procedures: the claim that at least one
// of several metrics differs keeps its error rate at alpha however many
// metrics there are and however they are correlated.
//
//   - Holm's step-down procedure on the metrics' own p-values is valid
//     under any correlation, and needs nothing but the p-values.
//   - The Westfall–Young step-down max-T permutation procedure deals the
//     run labels anew (or flips the signs of the pairs) for all metrics at
//     once, so the metrics' correlation carries into the null distribution
//     of the largest |t|; with correlated metrics (mean, p50 and p90 of
//     one latency move together) it rejects more than Holm at the same
//     level. A permutation test can only reach p = 1/(number of
//     relabellings), so it needs enough runs: 3 and 3 runs have 20.

// Holm returns Holm's step-down adjusted p-values of p, in p's order:
// with p sorted ascending, adj_(k) = max over i ≤ k of min(1, (m−i+1)·p_(i)).
// A NaN p-value (no test) counts as 1. A metric is significant at
// family-wise level alpha when its adjusted p-value is below alpha.
func Holm(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	val := func(i int) float64 {
		if math.IsNaN(p[i]) {
			return 1
		}
		return p[i]
	}
	slices.SortStableFunc(idx, func(x, y int) int {
		switch {
		case val(x) < val(y):
			return -1
		case val(x) > val(y):
			return 1
		}
		return 0
	})
	out := make([]float64, m)
	running := 0.0
	for k, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-k)*val(i)))
		out[i] = running
	}
	return out
}

// Relabellings is the number of ways to deal the run labels: C(nA+nB, nA)
// for independent runs, 2^n sign patterns for n pairs.
func Relabellings(nA, nB int, paired bool) float64 {
	if paired {
		return math.Pow(2, float64(nA))
	}
	return binomial(nA+nB, nA)
}

// MaxT returns the Westfall–Young step-down max-T adjusted p-values of m
// metrics measured on the same runs: a[j][r] and b[j][r] are metric j's
// value in run r of A and of B (pair r when paired; every metric needs
// every run). The statistic is Welch's t (the paired t when paired), its
// standard error floored at 1e-12 of the values' scale so that runs that
// do not vary give a large finite t. All relabellings are enumerated when
// there are at most perms of them; else the observed one and perms seeded
// random ones are drawn. ctx, when not nil, stops the loop; the error is
// then ctx's.
func MaxT(ctx context.Context, a, b [][]float64, paired bool, perms int, seed uint64) ([]float64, error) {
	m := len(a)
	if m == 0 || len(b) != m {
		return nil, ErrTooFew
	}
	nA, nB := len(a[0]), len(b[0])
	for j := range a {
		if len(a[j]) != nA || len(b[j]) != nB || nA < 2 || nB < 2 || (paired && nA != nB) {
			return nil, ErrTooFew
		}
	}
	st := newMaxTStats(a, b, paired)
	obs := st.observed()
	order := make([]int, m) // metrics by |t| descending
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case obs[x] > obs[y]:
			return -1
		case obs[x] < obs[y]:
			return 1
		}
		return 0
	})
	hits := make([]int, m)
	tstar := make([]float64, m)
	count := 0
	visit := func(labels []bool) {
		st.tStats(labels, tstar)
		q := 0.0
		for k := m - 1; k >= 0; k-- {
			j := order[k]
			q = math.Max(q, tstar[j])
			if q >= obs[j]*(1-1e-9) {
				hits[k]++
			}
		}
		count++
	}
	if err := st.relabel(ctx, perms, seed, visit); err != nil {
		return nil, err
	}
	out := make([]float64, m)
	running := 0.0
	for k, j := range order {
		running = math.Max(running, float64(hits[k])/float64(count))
		out[j] = running
	}
	return out, nil
}

// maxTStats holds the metrics' values for fast relabelled t statistics:
// each metric centred (so sums of squares keep their precision), with its
// total sum and sum of squares and its scale.
type maxTStats struct {
	paired bool
	nA, nB int
	vals   [][]float64 // per metric: A's runs then B's (paired: the differences b−a)
	sum    []float64
	sq     []float64
	floor  []float64 // smallest standard error counted, per metric
}

func newMaxTStats(a, b [][]float64, paired bool) *maxTStats {
	st := &maxTStats{paired: paired, nA: len(a[0]), nB: len(b[0])}
	for j := range a {
		var v []float64
		if paired {
			for r := range a[j] {
				v = append(v, b[j][r]-a[j][r])
			}
		} else {
			v = append(append(v, a[j]...), b[j]...)
			mean, _ := MeanSD(v)
			for i := range v {
				v[i] -= mean
			}
		}
		scale := 0.0
		for r := range a[j] {
			scale = math.Max(scale, math.Max(math.Abs(a[j][r]), math.Abs(b[j][r])))
		}
		var sum, sq float64
		for _, x := range v {
			sum += x
			sq += x * x
		}
		st.vals, st.sum, st.sq = append(st.vals, v), append(st.sum, sum), append(st.sq, sq)
		st.floor = append(st.floor, math.Max(1e-12*scale, math.SmallestNonzeroFloat64))
	}
	return st
}

// observed is |t| of each metric with the labels as they are.
func (st *maxTStats) observed() []float64 {
	labels := make([]bool, len(st.vals[0]))
	if !st.paired {
		for i := st.nA; i < len(labels); i++ {
			labels[i] = true
		}
	}
	out := make([]float64, len(st.vals))
	st.tStats(labels, out)
	return out
}

// tStats writes |t| of every metric under labels: for independent runs,
// labels[i] says value i is B's; for pairs, that difference i flips sign.
func (st *maxTStats) tStats(labels []bool, out []float64) {
	for j, v := range st.vals {
		if st.paired {
			var s float64
			for i, x := range v {
				if labels[i] {
					x = -x
				}
				s += x
			}
			n := float64(len(v))
			mean := s / n
			variance := math.Max(0, (st.sq[j]-s*s/n)/(n-1))
			out[j] = math.Abs(mean) / math.Max(math.Sqrt(variance/n), st.floor[j])
			continue
		}
		var sB, qB float64
		for i, x := range v {
			if labels[i] {
				sB += x
				qB += x * x
			}
		}
		nA, nB := float64(st.nA), float64(st.nB)
		sA, qA := st.sum[j]-sB, st.sq[j]-qB
		vA := math.Max(0, (qA-sA*sA/nA)/(nA-1))
		vB := math.Max(0, (qB-sB*sB/nB)/(nB-1))
		se := math.Max(math.Sqrt(vA/nA+vB/nB), st.floor[j])
		out[j] = math.Abs(sB/nB-sA/nA) / se
	}
}

// relabel calls visit with the observed labels and then every other
// relabelling (all of them when there are at most perms), or perms
// seeded random ones.
func (st *maxTStats) relabel(ctx context.Context, perms int, seed uint64, visit func([]bool)) error {
	n := len(st.vals[0])
	labels := make([]bool, n)
	if Relabellings(st.nA, st.nB, st.paired) <= float64(perms) {
		seen, done := 0, false
		stopped := func() bool {
			seen++
			done = done || (seen%cancelEvery == 0 && ctxErr(ctx) != nil)
			return done
		}
		if st.paired {
			for mask := range 1 << n {
				if stopped() {
					break
				}
				for i := range labels {
					labels[i] = mask&(1<<i) != 0
				}
				visit(labels)
			}
			return ctxErr(ctx)
		}
		forCombinations(n, st.nB, func(idx []int) {
			if stopped() {
				return
			}
			clear(labels)
			for _, i := range idx {
				labels[i] = true
			}
			visit(labels)
		})
		return ctxErr(ctx)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909))
	visit(st.identity(labels))
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for r := range perms {
		if r%cancelEvery == 0 && ctxErr(ctx) != nil {
			return ctxErr(ctx)
		}
		if st.paired {
			for i := range labels {
				labels[i] = rng.Uint64()&1 == 1
			}
		} else {
			clear(labels)
			for i := range st.nB { // a partial Fisher–Yates shuffle deals B's places
				k := i + rng.IntN(n-i)
				perm[i], perm[k] = perm[k], perm[i]
				labels[perm[i]] = true
			}
		}
		visit(labels)
	}
	return nil
}

// identity sets labels to the observed labelling.
func (st *maxTStats) identity(labels []bool) []bool {
	clear(labels)
	if !st.paired {
		for i := st.nA; i < len(labels); i++ {
			labels[i] = true
		}
	}
	return labels
}
