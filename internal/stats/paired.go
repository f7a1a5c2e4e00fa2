package stats

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// PairedTest is the result of a paired comparison of runs that ran in
// interleaved pairs: the differences d_i = b_i − a_i of each pair.
type PairedTest struct {
	N                int     // pairs
	MeanDiff, SDDiff float64 // mean and sample standard deviation of the d_i
	T, DF, P         float64 // paired t statistic, n−1 degrees of freedom, two-sided p
	CILow, CIHigh    float64 // t interval of the mean difference at level 1−alpha
	// FlipP is the two-sided sign-flip permutation p-value of the mean
	// difference: every d_i keeps its size and takes either sign. It is
	// exact (all 2^n patterns) up to 16 pairs and estimated from seeded
	// random patterns above.
	FlipP float64
	// FlipMin is the smallest p-value the sign-flip test can reach with n
	// pairs: 2/2^n when exact, so under 0.05 from 6 pairs on.
	FlipMin float64
}

// maxExactFlips is the largest number of pairs whose 2^n sign patterns are
// all enumerated.
const maxExactFlips = 16

// PairedT runs the paired t-test and the sign-flip permutation test on
// b_i − a_i. It needs at least one pair (for the sign-flip test) and
// returns ErrTooFew, with the sign-flip part filled, below two pairs.
// flips caps the random patterns above 16 pairs; seed makes them
// reproducible. When every difference is equal the t statistic is
// undefined: p is 1 (interval the point 0) if they are 0, and p and the
// interval are NaN otherwise (the sign-flip test is the test left).
func PairedT(a, b []float64, alpha float64, flips int, seed uint64) (PairedTest, error) {
	if len(a) != len(b) || len(a) == 0 {
		return PairedTest{}, ErrTooFew
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	n := len(d)
	r := PairedTest{N: n, T: math.NaN(), DF: math.NaN(), P: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN()}
	r.MeanDiff, r.SDDiff = MeanSD(d)
	r.FlipP, r.FlipMin = signFlip(d, flips, seed)
	if n < 2 {
		return r, ErrTooFew
	}
	r.DF = float64(n - 1)
	se := r.SDDiff / math.Sqrt(float64(n))
	if se == 0 {
		r.T, r.P, r.CILow, r.CIHigh = 0, 1, 0, 0
		if r.MeanDiff != 0 {
			r.T, r.P, r.CILow, r.CIHigh = math.Copysign(math.Inf(1), r.MeanDiff), math.NaN(), math.NaN(), math.NaN()
		}
		return r, nil
	}
	r.T = r.MeanDiff / se
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	r.P = math.Min(1, 2*dist.Survival(math.Abs(r.T)))
	q := dist.Quantile(1 - alpha/2)
	r.CILow, r.CIHigh = r.MeanDiff-q*se, r.MeanDiff+q*se
	return r, nil
}

// signFlip returns the two-sided sign-flip p-value of |Σ d_i| and the
// smallest p-value the test can reach.
func signFlip(d []float64, flips int, seed uint64) (p, pmin float64) {
	var obs float64
	for _, v := range d {
		obs += v
	}
	obs = math.Abs(obs)
	tol := permTol(obs)
	n := len(d)
	if n <= maxExactFlips {
		total := 1 << n
		hits := 0
		for mask := range total {
			var s float64
			for i, v := range d {
				if mask&(1<<i) != 0 {
					v = -v
				}
				s += v
			}
			if math.Abs(s) >= obs-tol {
				hits++
			}
		}
		return float64(hits) / float64(total), 2 / float64(total)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	hits := 1 // the observed pattern counts once
	for range flips {
		var s float64
		for _, v := range d {
			if rng.Uint64()&1 == 1 {
				v = -v
			}
			s += v
		}
		if math.Abs(s) >= obs-tol {
			hits++
		}
	}
	return float64(hits) / float64(flips+1), 1 / float64(flips+1)
}

// permTol absorbs the rounding of sums taken in a different order, so that
// a relabelling equal to the observed one counts as at least as extreme.
func permTol(obs float64) float64 { return 1e-9 * obs }
