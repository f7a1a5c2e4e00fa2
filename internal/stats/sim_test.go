package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simRuns generates per-request latencies of one side: runs runs of reqs
// requests, value = base · exp(shift + u_r + within·z), with a run effect
// u_r ~ N(0, runSD) shared by the requests of run r and z ~ N(0, 1) per
// request. runSD is the run-to-run noise on the log scale (0.15 ≈ 15%),
// within the request-to-request spread.
func simRuns(rng *rand.Rand, runs, reqs int, base, shift, runSD, within float64) [][]float64 {
	out := make([][]float64, runs)
	for r := range out {
		u := runSD * rng.NormFloat64()
		out[r] = make([]float64, reqs)
		for i := range out[r] {
			out[r][i] = base * math.Exp(shift+u+within*rng.NormFloat64())
		}
	}
	return out
}

// pooledBootstrap is the bootstrap today's latency rows use
// (BootstrapClusters, as compare/layer1.go calls it) with every request
// its own cluster: requests pooled over runs, resampled independently.
func pooledBootstrap(x, y []float64, st []Stat, b int, alpha float64, seed uint64) ([]Interval, error) {
	one := func(v []float64) [][]float64 {
		out := make([][]float64, len(v))
		for i := range v {
			out[i] = v[i : i+1]
		}
		return out
	}
	return BootstrapClusters(one(x), one(y), st, b, alpha, seed)
}

func flatRuns(cs [][]float64) []float64 {
	var out []float64
	for _, c := range cs {
		out = append(out, c...)
	}
	return out
}

// pooledVerdicts is today's latency rule (compare/layer1.go): Mann–Whitney
// U on all requests pooled over runs, and a bootstrap of the pooled
// requests; a statistic is significant when p < alpha and its interval
// excludes 0.
// rank reports whether the rank test alone had p < alpha.
func pooledVerdicts(t *testing.T, a, b [][]float64, st []Stat, alpha float64, seed uint64) (out []bool, rank bool) {
	xa, xb := flatRuns(a), flatRuns(b)
	out = make([]bool, len(st))
	mwu, err := MannWhitneyU(xa, xb)
	if err != nil {
		t.Fatal(err)
	}
	if !(mwu.P < alpha) {
		return out, false
	}
	ivs, err := pooledBootstrap(xa, xb, st, 200, alpha, seed)
	if err != nil {
		t.Fatal(err)
	}
	for i, iv := range ivs {
		out[i] = iv.Low > 0 || iv.High < 0
	}
	return out, true
}

type simRates struct {
	pooled, runAware, needsMore []int
	rank                        int // seeds where the pooled rank test had p < alpha
	n                           int
}

// simulate runs seeds experiments of runs×reqs requests per side with the
// true log-scale difference shift and counts, per statistic, how often
// each rule calls a difference.
func simulate(t *testing.T, seeds, runs, reqs int, shift float64, st []Stat) simRates {
	res := simRates{pooled: make([]int, len(st)), runAware: make([]int, len(st)), needsMore: make([]int, len(st)), n: seeds}
	o := RunOptions{Stats: st}
	for s := range seeds {
		rng := rand.New(rand.NewPCG(uint64(s), 12))
		a := simRuns(rng, runs, reqs, 100, 0, 0.15, 0.5)
		b := simRuns(rng, runs, reqs, 100, shift, 0.15, 0.5)
		sigs, rank := pooledVerdicts(t, a, b, st, 0.05, uint64(s))
		if rank {
			res.rank++
		}
		for i, sig := range sigs {
			if sig {
				res.pooled[i]++
			}
		}
		o.Seed = uint64(s)
		cs, err := CompareRequests(a, b, o)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cs {
			if c.Call.Significant() {
				res.runAware[i]++
			}
			if c.Call == NeedsMoreRuns {
				res.needsMore[i]++
			}
		}
	}
	return res
}

// TestRunAwareFalsePositives simulates runs with run-to-run noise (15% sd
// of a run's level) and request noise (lognormal, sd 0.5 on the log
// scale), 5 runs of 100 requests per side, and compares the two rules.
//
// With no true difference the run-aware verdict must stay at alpha = 5%:
// the bound allows three binomial standard deviations over the seeds,
// 0.05 + 3·√(0.05·0.95/n) (7.3% at 800 seeds, 9.6% at 200). Today's
// pooled rule counts 500 correlated requests as independent and must call
// a difference that does not exist in 30% of the seeds or more (mean,
// median), 20% (p90), and above alpha (p99); its rank test, whose p-value
// today's report prints on every latency row, must fall under alpha in 30%
// of the seeds or more.
// With a true 25% difference the detection rates are logged, and the
// run-aware rule must still find it in a fair share of seeds: it is
// strict, not blind.
func TestRunAwareFalsePositives(t *testing.T) {
	const alpha = 0.05
	seeds, detect := 800, 300
	if testing.Short() || raceEnabled {
		seeds, detect = 200, 100
	}
	st := []Stat{Mean, 0.5, 0.9, 0.99}
	names := []string{"mean", "p50", "p90", "p99"}
	// The pooled rule's false-positive floor per statistic. Its rank test
	// is the same for every row (see rankRate); the p99 bootstrap of 500
	// pooled values is wide enough to mask most of it, so that row only
	// has to exceed alpha.
	pooledFloor := []float64{0.3, 0.3, 0.2, alpha}
	bound := alpha + 3*math.Sqrt(alpha*(1-alpha)/float64(seeds))

	h0 := simulate(t, seeds, 5, 100, 0, st)
	for i, name := range names {
		fpNew := float64(h0.runAware[i]) / float64(seeds)
		fpOld := float64(h0.pooled[i]) / float64(seeds)
		t.Logf("no difference, %s: run-aware false positives %.1f%% (needs more runs %.1f%%), pooled false positives %.1f%%, over %d seeds",
			name, 100*fpNew, 100*float64(h0.needsMore[i])/float64(seeds), 100*fpOld, seeds)
		if fpNew > bound {
			t.Errorf("%s: run-aware false-positive rate %.3f above %.3f", name, fpNew, bound)
		}
		if fpOld < pooledFloor[i] {
			t.Errorf("%s: pooled false-positive rate %.3f below %.2f; the simulation should show it far above alpha", name, fpOld, pooledFloor[i])
		}
	}

	rankRate := float64(h0.rank) / float64(seeds)
	t.Logf("no difference: the pooled rank test has p < %.2g in %.1f%% of the seeds", alpha, 100*rankRate)
	if rankRate < 0.3 {
		t.Errorf("pooled rank test: p < alpha in %.3f of the seeds; the simulation should show it far above alpha", rankRate)
	}

	h1 := simulate(t, detect, 5, 100, math.Log(1.25), st)
	for i, name := range names {
		dNew := float64(h1.runAware[i]) / float64(detect)
		dOld := float64(h1.pooled[i]) / float64(detect)
		t.Logf("B 25%% slower, %s: run-aware detects %.1f%% (needs more runs %.1f%%), pooled %.1f%%, over %d seeds",
			name, 100*dNew, 100*float64(h1.needsMore[i])/float64(detect), 100*dOld, detect)
		if i < 2 && dNew < 0.3 {
			t.Errorf("%s: run-aware detection rate %.3f of a 25%% difference; expected a fair share", name, dNew)
		}
	}
}
