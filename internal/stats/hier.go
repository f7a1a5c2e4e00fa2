package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
)

// RequestComparison compares one statistic of per-request values (a
// latency) between the runs of A and of B.
type RequestComparison struct {
	Stat Stat
	// A and B are the statistic on all requests of a side pooled (the
	// figure a report shows); the per-run values are in Evidence.
	A, B float64
	// Boot is the hierarchical bootstrap interval of B−A at level
	// 1−alpha; Boot.Diff is B−A.
	Boot Interval
	// Ratio is B/A, and RatioLow, RatioHigh its hierarchical bootstrap
	// interval (NaN where a resampled A is 0).
	Ratio, RatioLow, RatioHigh float64
	// Evidence holds the per-run values of the statistic and their tests.
	Evidence
	Verdict
}

// CompareRequests compares per-request values grouped by run — a[r] holds
// the values of A's run r — for every statistic in o.Stats. The interval
// of B−A comes from a hierarchical bootstrap: each resample draws runs
// with replacement, then requests with replacement within each drawn run,
// and evaluates the statistic on the pooled draw; it widens when runs
// disagree, where resampling pooled requests does not. The per-run tests
// take the statistic of each run as one value. Empty runs are dropped
// (with their partner when paired); each side needs one non-empty run.
// Values must not be NaN.
func CompareRequests(a, b [][]float64, o RunOptions) ([]RequestComparison, error) {
	o = o.withDefaults()
	if err := o.check(); err != nil {
		return nil, err
	}
	a, b, err := dropEmptyRuns(a, b, o.Paired)
	if err != nil {
		return nil, err
	}
	ha, hb := newHierSide(a), newHierSide(b)
	if ha == nil || hb == nil {
		return nil, errors.New("stats: NaN in per-request values")
	}
	diffs, ratios := hierBootstrap(ha, hb, o)
	if err := ctxErr(o.Context); err != nil {
		return nil, err
	}
	out := make([]RequestComparison, len(o.Stats))
	for i, s := range o.Stats {
		c := RequestComparison{Stat: s, A: ha.point(s), B: hb.point(s)}
		slices.Sort(diffs[i])
		c.Boot = Interval{Diff: c.B - c.A, Low: Quantile(diffs[i], o.Alpha/2), High: Quantile(diffs[i], 1-o.Alpha/2)}
		c.Ratio, c.RatioLow, c.RatioHigh = c.B/c.A, math.NaN(), math.NaN()
		if r := ratios[i]; !slices.ContainsFunc(r, math.IsNaN) {
			slices.Sort(r)
			c.RatioLow, c.RatioHigh = Quantile(r, o.Alpha/2), Quantile(r, 1-o.Alpha/2)
		}
		c.Evidence = runEvidence(perRunStat(a, s), perRunStat(b, s), o)
		c.Verdict = decide(&c.Evidence, &c.Boot, o)
		out[i] = c
	}
	return out, nil
}

// dropEmptyRuns removes runs without values, and in a paired design the
// partner of each.
func dropEmptyRuns(a, b [][]float64, paired bool) ([][]float64, [][]float64, error) {
	if paired && len(a) != len(b) {
		return nil, nil, errors.New("stats: paired runs need as many runs of A as of B")
	}
	keep := func(cs [][]float64, other [][]float64) [][]float64 {
		var out [][]float64
		for i, c := range cs {
			if len(c) > 0 && (!paired || len(other[i]) > 0) {
				out = append(out, c)
			}
		}
		return out
	}
	ka, kb := keep(a, b), keep(b, a)
	if len(ka) == 0 || len(kb) == 0 {
		return nil, nil, ErrTooFew
	}
	return ka, kb, nil
}

// perRunStat evaluates s on each run.
func perRunStat(runs [][]float64, s Stat) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		sorted := slices.Clone(r)
		slices.Sort(sorted)
		out[i] = s.Of(sorted)
	}
	return out
}

// hierBootstrap returns, per statistic, the resampled B−A and B/A (NaN
// where the resampled A is 0).
func hierBootstrap(ha, hb *hierSide, o RunOptions) (diffs, ratios [][]float64) {
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	diffs, ratios = make([][]float64, len(o.Stats)), make([][]float64, len(o.Stats))
	for i := range diffs {
		diffs[i], ratios[i] = make([]float64, o.Resamples), make([]float64, o.Resamples)
	}
	va, vb := make([]float64, len(o.Stats)), make([]float64, len(o.Stats))
	pickA, pickB := make([]int, len(ha.members)), make([]int, len(hb.members))
	for r := range o.Resamples {
		if r%cancelEvery == 0 && ctxErr(o.Context) != nil {
			return diffs, ratios // the caller returns the error
		}
		for i := range pickA {
			pickA[i] = rng.IntN(len(pickA))
		}
		if o.Paired {
			copy(pickB, pickA)
		} else {
			for i := range pickB {
				pickB[i] = rng.IntN(len(pickB))
			}
		}
		ha.resample(pickA, o.Stats, va, rng)
		hb.resample(pickB, o.Stats, vb, rng)
		for i := range o.Stats {
			diffs[i][r] = vb[i] - va[i]
			ratios[i][r] = math.NaN()
			if va[i] != 0 {
				ratios[i][r] = vb[i] / va[i]
			}
		}
	}
	return diffs, ratios
}

// hierSide is one side's requests: all values sorted once, and for each
// run the positions of its values. A resample is a count per value, so
// the pooled draw in sorted order is the values walked with each repeated
// by its count.
type hierSide struct {
	vals    []float64 // every request of every run, sorted
	members [][]int32 // per run, positions in vals of its values
	weight  []int32   // per value, reused by resample
	cum     []int     // cumulative weights: cum[i] = weight[0]+…+weight[i]
	sum     float64   // Σ weight[i]·vals[i] of the last resample
}

// newHierSide returns nil when a value is NaN.
func newHierSide(runs [][]float64) *hierSide {
	type vr struct {
		v   float64
		run int
	}
	var all []vr
	for r, vs := range runs {
		for _, v := range vs {
			if math.IsNaN(v) {
				return nil
			}
			all = append(all, vr{v, r})
		}
	}
	slices.SortFunc(all, func(x, y vr) int {
		if x.v < y.v {
			return -1
		}
		if x.v > y.v {
			return 1
		}
		return 0
	})
	h := &hierSide{vals: make([]float64, len(all)), members: make([][]int32, len(runs)),
		weight: make([]int32, len(all)), cum: make([]int, len(all))}
	for i, x := range all {
		h.vals[i] = x.v
		h.members[x.run] = append(h.members[x.run], int32(i))
	}
	return h
}

// point is the statistic on the pooled values.
func (h *hierSide) point(s Stat) float64 { return s.Of(h.vals) }

// resample draws, for every picked run, as many of its requests as it
// holds, with replacement, and writes each statistic of the pooled draw
// to out.
func (h *hierSide) resample(picks []int, stats []Stat, out []float64, rng *rand.Rand) {
	clear(h.weight)
	n := 0
	for _, r := range picks {
		m := h.members[r]
		for range m {
			h.weight[m[rng.IntN(len(m))]]++
		}
		n += len(m)
	}
	h.accumulate()
	for k, s := range stats {
		out[k] = h.weighted(n, s)
	}
}

// accumulate fills cum and sum from weight.
func (h *hierSide) accumulate() {
	seen := 0
	h.sum = 0
	for i, w := range h.weight {
		seen += int(w)
		h.cum[i] = seen
		h.sum += float64(w) * h.vals[i]
	}
}

// weighted evaluates s on the values repeated by their weights (n in all),
// with the type-4 quantile that Quantile uses.
func (h *hierSide) weighted(n int, s Stat) float64 {
	if s == Mean {
		return h.sum / float64(n)
	}
	hp := float64(s) * float64(n)
	switch {
	case hp <= 1:
		return h.orderStat(0)
	case hp >= float64(n):
		return h.orderStat(n - 1)
	}
	lo := int(math.Floor(hp)) // 1-based lower neighbour
	x := h.orderStat(lo - 1)
	frac := hp - float64(lo)
	if frac == 0 {
		return x
	}
	return x + frac*(h.orderStat(lo)-x)
}

// orderStat returns the k-th smallest (0-based) value of the weighted draw:
// the first value whose cumulative weight passes k.
func (h *hierSide) orderStat(k int) float64 {
	i, _ := slices.BinarySearch(h.cum, k+1)
	return h.vals[min(i, len(h.vals)-1)]
}
