package stats

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// This file answers "were there enough runs?" for the t-tests on per-run
// values: the minimum detectable difference (MDD) of the runs at hand, and
// the number of runs per side that would detect a target difference.
//
// Both take the uncertainty of the spread into account. The run-to-run
// standard deviation s is estimated from few runs (ν degrees of freedom),
// and the true σ may well be twice s when ν is 2. Plugging s in as if it
// were σ promises a power the runs do not have: rerunning with the count it
// recommends found the difference in 57% of the cases instead of 80%
// (issue 20). Here the power is the *assured* power: the power of the
// t-test averaged over what the runs say σ may be, σ² = ν·s²/W with
// W ~ χ²(ν) (the distribution of σ given s under a flat prior on log σ).
// A design is said to detect a difference d with power P when this
// average reaches P.
//
// Values and MDDs are in the unit of the per-run values; fractions are of
// A's mean.

// nodes is how many quantiles of each χ² stand in for it in the averages.
const nodes = 32

// chiNodes returns √(V/df) at the midpoint quantiles (i−½)/nodes of
// V ~ χ²(df): the spread of a t statistic's denominator.
func chiNodes(df int) []float64 {
	if v, ok := chiCache.Load(df); ok {
		return v.([]float64)
	}
	chi := distuv.ChiSquared{K: float64(df)}
	out := make([]float64, nodes)
	for i := range out {
		out[i] = math.Sqrt(chi.Quantile((float64(i)+0.5)/nodes) / float64(df))
	}
	chiCache.Store(df, out)
	return out
}

var chiCache sync.Map // df → []float64

// normalCDF is Φ.
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// tQuantile is the q-quantile of Student's t with df degrees of freedom.
func tQuantile(q, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(q)
}

// assuredPower is the power of a two-sided t-test at level alpha with df
// degrees of freedom to detect a difference e standard errors large, where
// the standard error is computed from a spread estimated on nu degrees of
// freedom and σ given that estimate is uncertain as the package comment
// says. e is in units of the standard error the estimated spread gives.
func assuredPower(e float64, nu, df int, alpha float64) float64 {
	c := tQuantile(1-alpha/2, float64(df))
	ws, vs := chiNodes(nu), chiNodes(df)
	var sum float64
	for _, w := range ws {
		ncp := e * w // σ̂/σ = √(W/ν)
		for _, v := range vs {
			sum += normalCDF(ncp-c*v) + normalCDF(-ncp-c*v)
		}
	}
	return sum / float64(len(ws)*len(vs))
}

// assuredK is the smallest difference, in standard errors of the
// estimated spread, that a t-test with df degrees of freedom detects with
// assured power (spread estimated on nu degrees of freedom). It is +Inf
// when no difference reaches that power (never, for power < 1).
func assuredK(nu, df int, alpha, power float64) float64 {
	key := [4]float64{float64(nu), float64(df), alpha, power}
	if v, ok := kCache.Load(key); ok {
		return v.(float64)
	}
	hi := 1.0
	for assuredPower(hi, nu, df, alpha) < power {
		hi *= 2
		if hi > 1e9 {
			kCache.Store(key, math.Inf(1))
			return math.Inf(1)
		}
	}
	lo := 0.0
	for range 50 {
		mid := (lo + hi) / 2
		if assuredPower(mid, nu, df, alpha) >= power {
			hi = mid
		} else {
			lo = mid
		}
	}
	kCache.Store(key, hi)
	return hi
}

var kCache sync.Map // [nu, df, alpha, power] → float64

// SpreadEstimate is a run-to-run standard deviation and the degrees of
// freedom it was estimated on.
type SpreadEstimate struct {
	SD float64
	DF int
}

// pooledSpread is the pooled standard deviation of two sides' per-run
// values, √((s_A²(n_A−1) + s_B²(n_B−1))/(n_A+n_B−2)), on n_A+n_B−2
// degrees of freedom; a side with one run adds nothing. DF 0: no spread.
func pooledSpread(sdA, sdB float64, nA, nB int) SpreadEstimate {
	var ss float64
	df := 0
	if nA >= 2 {
		ss += sdA * sdA * float64(nA-1)
		df += nA - 1
	}
	if nB >= 2 {
		ss += sdB * sdB * float64(nB-1)
		df += nB - 1
	}
	if df == 0 {
		return SpreadEstimate{}
	}
	return SpreadEstimate{SD: math.Sqrt(ss / float64(df)), DF: df}
}

// MDD is the minimum detectable difference of a t-test whose standard
// error is sp.SD·scale, on df degrees of freedom, with assured power
// (package comment): k(ν, df)·sp.SD·scale. It is +Inf without a spread
// estimate or a test (df < 1) and 0 when the spread is 0.
func MDD(sp SpreadEstimate, scale float64, df int, alpha, power float64) float64 {
	if sp.DF < 1 || df < 1 {
		return math.Inf(1)
	}
	if sp.SD == 0 {
		return 0
	}
	return assuredK(sp.DF, df, alpha, power) * sp.SD * scale
}

// RecommendRuns returns the smallest number of runs per side, from 2 to
// maxRuns, with which a t-test detects target (in the unit of the values)
// with assured power, the spread being sp: for independent runs a test of
// 2n−2 degrees of freedom and standard error σ·√(2/n); for pairs (sp the
// spread of the per-pair differences) n−1 and σ/√n. When even maxRuns is
// not enough it returns maxRuns and capped = true.
func RecommendRuns(sp SpreadEstimate, target float64, paired bool, alpha, power float64, maxRuns int) (n int, capped bool) {
	maxRuns = max(maxRuns, 2)
	mdd := func(n int) float64 {
		if paired {
			return MDD(sp, 1/math.Sqrt(float64(n)), n-1, alpha, power)
		}
		return MDD(sp, math.Sqrt(2/float64(n)), 2*n-2, alpha, power)
	}
	if !(mdd(maxRuns) <= target) {
		return maxRuns, true
	}
	lo, hi := 1, maxRuns // mdd(lo) > target (or lo < 2), mdd(hi) <= target
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if mid >= 2 && mdd(mid) <= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, false
}

// Power says how large a difference the runs at hand could detect, and
// how many runs would detect the target.
type Power struct {
	Alpha, Power float64
	// NA and NB are the runs per side (pairs for a paired design: both
	// are the number of pairs).
	NA, NB int
	// MDD is the minimum detectable difference with assured power, in the
	// unit of the values; +Inf without a test.
	MDD float64
	// MDDFrac is MDD as a fraction of |mean of A's per-run values|; +Inf
	// when that mean is 0.
	MDDFrac float64
	// Target is the difference, as a fraction of A's mean, that the
	// recommendation aims to detect: max(|observed B−A|/|A|, threshold).
	Target float64
	// Recommended is the smallest number of runs per side (pairs when
	// paired) that detects Target with assured power; 0 when no side has
	// two runs to measure a spread from.
	Recommended int
	// Capped is true when Recommended stopped at the cap (Options.MaxRuns).
	Capped bool
}

// Enough reports whether the runs can detect a difference of the
// threshold fraction of A's mean: MDDFrac <= threshold.
func (p Power) Enough(threshold float64) bool {
	return p.MDDFrac <= threshold
}

// unpairedPower fills Power for independent runs (Welch's t-test): the
// MDD of the runs at hand, and the runs per side for the target, from the
// pooled spread of both sides (one side's alone when the other has a
// single run).
func unpairedPower(ev *Evidence, o RunOptions) Power {
	nA, nB := len(ev.PerRunA), len(ev.PerRunB)
	p := Power{Alpha: o.Alpha, Power: o.Power, NA: nA, NB: nB, MDD: math.Inf(1)}
	sp := pooledSpread(ev.SDA, ev.SDB, nA, nB)
	if nA >= 2 && nB >= 2 {
		p.MDD = MDD(sp, math.Sqrt(1/float64(nA)+1/float64(nB)), nA+nB-2, o.Alpha, o.Power)
	}
	return fillTarget(p, ev, sp, false, o)
}

// pairedPower fills Power for n pairs with per-pair differences of
// standard deviation sdDiff.
func pairedPower(ev *Evidence, sdDiff float64, o RunOptions) Power {
	n := len(ev.PerRunA)
	p := Power{Alpha: o.Alpha, Power: o.Power, NA: n, NB: n, MDD: math.Inf(1)}
	var sp SpreadEstimate
	if n >= 2 {
		sp = SpreadEstimate{SD: sdDiff, DF: n - 1}
		p.MDD = MDD(sp, 1/math.Sqrt(float64(n)), n-1, o.Alpha, o.Power)
	}
	return fillTarget(p, ev, sp, true, o)
}

// fillTarget sets MDDFrac, Target and the recommendation.
func fillTarget(p Power, ev *Evidence, sp SpreadEstimate, paired bool, o RunOptions) Power {
	scale := math.Abs(ev.MeanA)
	p.MDDFrac = runFrac(p.MDD, scale)
	p.Target = math.Max(runFrac(math.Abs(ev.Diff), scale), o.Threshold)
	if sp.DF >= 1 {
		p.Recommended, p.Capped = RecommendRuns(sp, p.Target*scale, paired, o.Alpha, o.Power, o.MaxRuns)
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
