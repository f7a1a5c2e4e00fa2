package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// This file answers "were there enough runs?": the minimum detectable
// difference (MDD) of a t-test on per-run values, and the number of runs
// per side that would bring it down to a target. Values and MDDs are in the
// unit of the per-run values; fractions are of A's mean.

// MDD returns the minimum detectable difference of a two-sided two-sample
// t-test at level alpha with the given power, for per-run values of
// standard deviation sdA over nA runs and sdB over nB runs:
//
//	MDD = (t(1−alpha/2, ν) + t(power, ν)) · √(sdA²/nA + sdB²/nB)
//
// with ν the Welch–Satterthwaite degrees of freedom. It is +Inf when a side
// has fewer than two runs (no spread to go by) and 0 when both spreads are
// 0.
func MDD(sdA, sdB float64, nA, nB int, alpha, power float64) float64 {
	if nA < 2 || nB < 2 {
		return math.Inf(1)
	}
	va, vb := sdA*sdA/float64(nA), sdB*sdB/float64(nB)
	if va+vb == 0 {
		return 0
	}
	df := (va + vb) * (va + vb) / (va*va/float64(nA-1) + vb*vb/float64(nB-1))
	return tSum(df, alpha, power) * math.Sqrt(va+vb)
}

// MDDPaired is MDD for n paired runs whose per-pair differences B−A have
// standard deviation sdDiff: (t(1−alpha/2, n−1) + t(power, n−1)) · sdDiff/√n.
func MDDPaired(sdDiff float64, n int, alpha, power float64) float64 {
	if n < 2 {
		return math.Inf(1)
	}
	if sdDiff == 0 {
		return 0
	}
	return tSum(float64(n-1), alpha, power) * sdDiff / math.Sqrt(float64(n))
}

// tSum is t(1−alpha/2, df) + t(power, df) of Student's t.
func tSum(df, alpha, power float64) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return t.Quantile(1-alpha/2) + t.Quantile(power)
}

// RecommendRuns returns the smallest number of runs per side, from 2 to
// maxRuns, whose MDD (same spreads sdA and sdB on both sides) is at most
// target, in the unit of the spreads. When even maxRuns is not enough it
// returns maxRuns and capped = true.
func RecommendRuns(sdA, sdB, target, alpha, power float64, maxRuns int) (n int, capped bool) {
	return smallestRuns(func(n int) float64 { return MDD(sdA, sdB, n, n, alpha, power) }, target, maxRuns)
}

// RecommendPairs is RecommendRuns for paired runs: the smallest number of
// pairs whose MDDPaired is at most target.
func RecommendPairs(sdDiff, target, alpha, power float64, maxRuns int) (n int, capped bool) {
	return smallestRuns(func(n int) float64 { return MDDPaired(sdDiff, n, alpha, power) }, target, maxRuns)
}

// smallestRuns returns the first n in 2..maxRuns with mdd(n) <= target,
// by bisection: mdd falls as n grows (the standard error shrinks and the
// t quantiles with it).
func smallestRuns(mdd func(n int) float64, target float64, maxRuns int) (int, bool) {
	maxRuns = max(maxRuns, 2)
	if !(mdd(maxRuns) <= target) {
		return maxRuns, true
	}
	lo, hi := 1, maxRuns // mdd(lo) > target (or lo < 2), mdd(hi) <= target
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if mdd(mid) <= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, false
}

// Power says how large a difference the runs at hand could detect.
type Power struct {
	Alpha, Power float64
	// NA and NB are the runs per side (pairs for a paired design: both
	// are the number of pairs).
	NA, NB int
	// MDD is the minimum detectable difference in the unit of the values;
	// +Inf when a side has fewer than two runs.
	MDD float64
	// MDDFrac is MDD as a fraction of |mean of A's per-run values|; +Inf
	// when that mean is 0.
	MDDFrac float64
	// Target is the difference, as a fraction of A's mean, that the
	// recommendation aims to detect: max(|observed B−A|/|A|, threshold).
	Target float64
	// Recommended is the smallest number of runs per side (pairs when
	// paired) whose MDD is at most Target, assuming the observed spread;
	// 0 when no side has two runs to measure a spread from.
	Recommended int
	// Capped is true when Recommended stopped at the cap (Options.MaxRuns).
	Capped bool
}

// Enough reports whether the runs can detect a difference of the
// threshold fraction of A's mean: MDDFrac <= threshold.
func (p Power) Enough(threshold float64) bool {
	return p.MDDFrac <= threshold
}

// unpairedPower fills Power for independent runs. When only one side has
// two runs or more, its spread stands in for both in the recommendation.
func unpairedPower(ev *Evidence, o RunOptions) Power {
	nA, nB := len(ev.PerRunA), len(ev.PerRunB)
	p := Power{Alpha: o.Alpha, Power: o.Power, NA: nA, NB: nB}
	p.MDD = MDD(ev.SDA, ev.SDB, nA, nB, o.Alpha, o.Power)
	scale := math.Abs(ev.MeanA)
	p.MDDFrac = runFrac(p.MDD, scale)
	p.Target = math.Max(runFrac(math.Abs(ev.Diff), scale), o.Threshold)
	sdA, sdB := ev.SDA, ev.SDB
	switch {
	case nA < 2 && nB < 2:
		return p
	case nA < 2:
		sdA = sdB
	case nB < 2:
		sdB = sdA
	}
	p.Recommended, p.Capped = RecommendRuns(sdA, sdB, p.Target*scale, o.Alpha, o.Power, o.MaxRuns)
	return p
}

// pairedPower fills Power for n pairs with per-pair differences of
// standard deviation sdDiff.
func pairedPower(ev *Evidence, sdDiff float64, o RunOptions) Power {
	n := len(ev.PerRunA)
	p := Power{Alpha: o.Alpha, Power: o.Power, NA: n, NB: n}
	p.MDD = MDDPaired(sdDiff, n, o.Alpha, o.Power)
	scale := math.Abs(ev.MeanA)
	p.MDDFrac = runFrac(p.MDD, scale)
	p.Target = math.Max(runFrac(math.Abs(ev.Diff), scale), o.Threshold)
	if n >= 2 {
		p.Recommended, p.Capped = RecommendPairs(sdDiff, p.Target*scale, o.Alpha, o.Power, o.MaxRuns)
	}
	return p
}

// runFrac is v/scale, +Inf when scale is 0 and v is not.
func runFrac(v, scale float64) float64 {
	if scale == 0 {
		if v == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return v / scale
}
