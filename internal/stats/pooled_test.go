package stats

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// The pooled rule servecmp used before its verdicts took the run as the
// unit (issue 12): a Mann–Whitney U rank test and a bootstrap of requests
// pooled over runs. No production code uses it any more; the simulations
// keep it to show how overconfident it is beside the run-aware tests.

// MWU is the result of a two-sided Mann–Whitney U test.
type MWU struct {
	U1, U2 float64 // U statistics of the first and second sample; U1+U2 = n1*n2
	Z      float64 // normal-approximation z score of U1 (continuity-corrected)
	P      float64 // two-sided p-value
	// CLES is the common-language effect size: the probability that a value
	// drawn from the first sample exceeds one from the second (ties count
	// one half), U1/(n1*n2).
	CLES float64
}

// MannWhitneyU runs the two-sided Mann–Whitney U test on x and y with the
// normal approximation, correcting the variance for ties and applying a 0.5
// continuity correction. Both samples need at least one value. When every
// value is tied the p-value is 1.
func MannWhitneyU(x, y []float64) (MWU, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return MWU{}, ErrTooFew
	}
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	n := float64(n1 + n2)
	var r1, tieSum float64
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		// Positions i..j-1 share the mean of ranks i+1..j.
		rank := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			if all[k].first {
				r1 += rank
			}
		}
		if t := float64(j - i); t > 1 {
			tieSum += t*t*t - t
		}
		i = j
	}
	fn1, fn2 := float64(n1), float64(n2)
	u1 := r1 - fn1*(fn1+1)/2
	res := MWU{U1: u1, U2: fn1*fn2 - u1, CLES: u1 / (fn1 * fn2), P: 1}
	mean := fn1 * fn2 / 2
	variance := fn1 * fn2 / 12 * ((n + 1) - tieSum/(n*(n-1)))
	if variance <= 0 || math.IsNaN(variance) {
		return res, nil
	}
	d := u1 - mean
	switch {
	case d > 0.5:
		d -= 0.5
	case d < -0.5:
		d += 0.5
	default:
		d = 0
	}
	res.Z = d / math.Sqrt(variance)
	res.P = math.Min(1, 2*distuv.UnitNormal.Survival(math.Abs(res.Z)))
	return res, nil
}

// Bootstrap resamples x and y independently with replacement b times
// (seeded, so the result is reproducible) and returns, for every statistic
// in stats, the percentile confidence interval of stat(y)-stat(x) at level
// 1-alpha. Each resample serves all statistics at once.
func Bootstrap(x, y []float64, stats []Stat, b int, alpha float64, seed uint64) ([]Interval, error) {
	return BootstrapClusters(singletons(x), singletons(y), stats, b, alpha, seed)
}

func singletons(v []float64) [][]float64 {
	out := make([][]float64, len(v))
	for i := range v {
		out[i] = v[i : i+1]
	}
	return out
}

// BootstrapClusters is Bootstrap for samples made of clusters of
// correlated values (for example the inter-token gaps of one request): it
// resamples whole clusters with replacement and evaluates each statistic on
// the pooled values of the resampled clusters. Empty clusters are allowed;
// each side needs at least one value.
func BootstrapClusters(x, y [][]float64, stats []Stat, b int, alpha float64, seed uint64) ([]Interval, error) {
	return BootstrapClustersContext(context.Background(), x, y, stats, b, alpha, seed)
}

// BootstrapClustersContext is BootstrapClusters that stops resampling
// and returns ctx's error once ctx is cancelled.
func BootstrapClustersContext(ctx context.Context, x, y [][]float64, stats []Stat, b int, alpha float64, seed uint64) ([]Interval, error) {
	px, py := newPool(x), newPool(y)
	if px == nil || py == nil {
		return nil, ErrTooFew
	}
	if b < 1 {
		return nil, errors.New("stats: bootstrap needs at least one resample")
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	diffs := make([][]float64, len(stats))
	for i := range diffs {
		diffs[i] = make([]float64, b)
	}
	vx, vy := make([]float64, len(stats)), make([]float64, len(stats))
	for r := range b {
		if r%cancelEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		px.resample(stats, vx, rng)
		py.resample(stats, vy, rng)
		for i := range stats {
			diffs[i][r] = vy[i] - vx[i]
		}
	}
	out := make([]Interval, len(stats))
	for i, s := range stats {
		d := diffs[i]
		slices.Sort(d)
		out[i] = Interval{
			Diff: s.Of(py.vals) - s.Of(px.vals),
			Low:  Quantile(d, alpha/2),
			High: Quantile(d, 1-alpha/2),
		}
	}
	return out, nil
}

// pool is a clustered sample with its values sorted once; a resample is a
// count per cluster, and every value weighs its cluster's count, so the
// resample in sorted order is the pool walked with each value repeated.
type pool struct {
	vals    []float64 // sorted
	cluster []int     // cluster of vals[i]
	count   []int     // per cluster, reused by resample
	weight  []int     // per value, reused by resample
	idx     []int     // order statistics wanted, reused by resample
	at      []float64 // their values, reused by resample
}

func newPool(cs [][]float64) *pool {
	type vc struct {
		v float64
		c int
	}
	var all []vc
	for c, vs := range cs {
		for _, v := range vs {
			all = append(all, vc{v, c})
		}
	}
	if len(all) == 0 {
		return nil
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	p := &pool{vals: make([]float64, len(all)), cluster: make([]int, len(all)), count: make([]int, len(cs)), weight: make([]int, len(all))}
	for i, a := range all {
		p.vals[i], p.cluster[i] = a.v, a.c
	}
	return p
}

func (p *pool) resample(stats []Stat, out []float64, rng *rand.Rand) {
	clear(p.count)
	nc := len(p.count)
	for range nc {
		p.count[rng.IntN(nc)]++
	}
	n := 0
	var sum float64
	for i := range p.vals {
		w := p.count[p.cluster[i]]
		p.weight[i] = w
		n += w
		sum += float64(w) * p.vals[i]
	}
	if n == 0 {
		// Every drawn cluster was empty: fall back to the original sample.
		for i := range p.weight {
			p.weight[i] = 1
		}
		n = len(p.vals)
		sum = 0
		for _, v := range p.vals {
			sum += v
		}
	}
	// Every quantile needs at most two order statistics; find them all in
	// one walk over the cumulative weights.
	idx := p.idx[:0]
	for _, s := range stats {
		if s == Mean {
			continue
		}
		lo, hi := neighbours(n, float64(s))
		idx = append(idx, lo, hi)
	}
	slices.Sort(idx)
	p.idx = idx
	vals := p.at[:0]
	seen, j := 0, 0
	for i := 0; i < len(p.vals) && j < len(idx); i++ {
		seen += p.weight[i]
		for j < len(idx) && idx[j] < seen {
			vals = append(vals, p.vals[i])
			j++
		}
	}
	p.at = vals
	get := func(k int) float64 {
		i, _ := slices.BinarySearch(idx, k)
		return vals[i]
	}
	for k, s := range stats {
		if s == Mean {
			out[k] = sum / float64(n)
			continue
		}
		out[k] = quantileAt(get, n, float64(s))
	}
}

// neighbours returns the 0-based order statistics quantileAt reads for p
// over n values.
func neighbours(n int, p float64) (lo, hi int) {
	h := p * float64(n)
	if h <= 1 {
		return 0, 0
	}
	if h >= float64(n) {
		return n - 1, n - 1
	}
	l := int(math.Floor(h))
	return l - 1, min(l, n-1)
}
