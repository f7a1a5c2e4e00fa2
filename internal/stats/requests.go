package stats

import (
	"errors"
	"math"
	"slices"
)

// RequestComparison compares one statistic of per-request values (a
// latency) between the runs of A and of B: the statistic is computed in
// every run, and the runs' values are compared as CompareRuns does.
type RequestComparison struct {
	Stat Stat
	// Evidence holds the per-run values of the statistic and their test;
	// MeanA and MeanB are the means of the per-run values, the figures the
	// test compares.
	Evidence
	Verdict
}

// CompareRequests compares per-request values grouped by run — a[r] holds
// the values of A's run r — for every statistic in o.Stats: each run's
// statistic is one value, and those values are compared by CompareRuns'
// test. The requests of a run are not independent (they share the run's
// state), so no interval resamples them: a bootstrap of requests, or of
// two or three runs, is too narrow (RUNS.md). Empty runs are dropped
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
	for _, side := range [][][]float64{a, b} {
		for _, run := range side {
			if slices.ContainsFunc(run, math.IsNaN) {
				return nil, errors.New("stats: NaN in per-request values")
			}
		}
	}
	out := make([]RequestComparison, len(o.Stats))
	for i, s := range o.Stats {
		c, err := CompareRuns(perRunStat(a, s), perRunStat(b, s), o)
		if err != nil {
			return nil, err
		}
		out[i] = RequestComparison{Stat: s, Evidence: c.Evidence, Verdict: c.Verdict}
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
