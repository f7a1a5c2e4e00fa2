// Package stats holds the statistics servecmp's comparison needs beyond
// gonum, with the run as the unit of evidence (runs.go, RUNS.md): Welch's
// unequal-variance t-test, paired and sign-flip tests over runs, the
// run-order design, power and the runs a difference needs, a hierarchical
// bootstrap (runs, then requests within a run), type-4 quantiles and the
// mean and standard deviation of a sample.
//
// The package knows nothing about serving: samples are plain float64 values
// in whatever unit the caller uses, and every function is deterministic for
// a given input (resampling takes its seed). NaN values are not allowed
// in samples; callers drop them first.
package stats

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ErrTooFew is returned when a sample is too small for the test.
var ErrTooFew = errors.New("stats: sample too small")

// Welch is the result of a two-sided Welch t-test.
type Welch struct {
	MeanX, MeanY float64
	SDX, SDY     float64 // sample standard deviations (n-1)
	T            float64 // (MeanY-MeanX)/SE
	DF           float64 // Welch–Satterthwaite degrees of freedom
	P            float64 // two-sided p-value
	// CILow, CIHigh bound the confidence interval of MeanY-MeanX at the
	// level asked for.
	CILow, CIHigh float64
}

// WelchT runs Welch's two-sided t-test of mean(y) against mean(x) and
// returns the confidence interval of mean(y)-mean(x) at level 1-alpha.
// Each sample needs at least two values. When both samples have zero
// variance the t statistic is undefined: the p-value is 1 and the
// interval the point 0 if the means are equal, and both are NaN
// otherwise (no spread is no evidence of certainty; a permutation test
// over the values is the test left, see CompareRuns).
func WelchT(x, y []float64, alpha float64) (Welch, error) {
	if len(x) < 2 || len(y) < 2 {
		return Welch{}, ErrTooFew
	}
	mx, vx := stat.MeanVariance(x, nil)
	my, vy := stat.MeanVariance(y, nil)
	nx, ny := float64(len(x)), float64(len(y))
	w := Welch{MeanX: mx, MeanY: my, SDX: math.Sqrt(vx), SDY: math.Sqrt(vy)}
	diff := my - mx
	ax, ay := vx/nx, vy/ny
	se := math.Sqrt(ax + ay)
	if se == 0 {
		w.P, w.CILow, w.CIHigh = 1, 0, 0
		if diff != 0 {
			w.T, w.P, w.CILow, w.CIHigh = math.Copysign(math.Inf(1), diff), math.NaN(), math.NaN(), math.NaN()
		}
		return w, nil
	}
	w.T = diff / se
	w.DF = (ax + ay) * (ax + ay) / (ax*ax/(nx-1) + ay*ay/(ny-1))
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: w.DF}
	w.P = math.Min(1, 2*dist.Survival(math.Abs(w.T)))
	q := dist.Quantile(1 - alpha/2)
	w.CILow, w.CIHigh = diff-q*se, diff+q*se
	return w, nil
}

// Quantile returns the p-quantile (0 <= p <= 1) of the sorted sample by
// linear interpolation of the empirical distribution function
// (Hyndman–Fan type 4, gonum's stat.LinInterp, the definition servecmp
// benchmark uses for its percentiles): with h = p·n and 1-based x, the
// result is x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]), and x[1] when h ≤ 1. It
// returns NaN for an empty sample.
func Quantile(sorted []float64, p float64) float64 {
	return quantileAt(func(k int) float64 { return sorted[k] }, len(sorted), p)
}

// quantileAt is Quantile over a sample of n values given by its k-th
// smallest (0-based).
func quantileAt(nth func(k int) float64, n int, p float64) float64 {
	if n == 0 {
		return math.NaN()
	}
	h := p * float64(n)
	if h <= 1 {
		return nth(0)
	}
	if h >= float64(n) {
		return nth(n - 1)
	}
	lo := int(math.Floor(h)) // 1-based index of the lower neighbour
	a := nth(lo - 1)
	frac := h - float64(lo)
	if frac == 0 {
		return a
	}
	return a + frac*(nth(lo)-a)
}

// Stat selects a statistic of a sample: a quantile in [0, 1], or Mean.
type Stat float64

// Mean selects the mean.
const Mean Stat = -1

// Interval is a bootstrap confidence interval of stat(y)-stat(x) (of B−A).
type Interval struct {
	Diff      float64 // the statistic on the original samples: stat(y)-stat(x)
	Low, High float64 // percentile interval at level 1-alpha
}

// Of returns the statistic of a sorted sample: its mean (summed in
// order, as benchmark summaries are), or its quantile as Quantile defines
// it. It returns NaN for an empty sample.
func (s Stat) Of(sorted []float64) float64 {
	if s == Mean {
		var sum float64
		for _, v := range sorted {
			sum += v
		}
		return sum / float64(len(sorted))
	}
	return Quantile(sorted, float64(s))
}

// MeanSD returns the mean and sample standard deviation (n−1) of v: NaN
// and 0 for no values, the value and 0 for one.
func MeanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return math.NaN(), 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}
