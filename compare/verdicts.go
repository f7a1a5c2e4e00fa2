package compare

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/stats"
)

// This file makes layer 1's per-metric verdicts. The unit of evidence is
// the run, not the request: the requests of one run share its warm-up,
// cache state, clocks and background load, so pooling them over runs
// makes a test overconfident (issue 12). Every row takes one value per
// run — a latency statistic of the run (its summary, which benchmark
// computes from the same records), a throughput, a completion time, a
// goodput — and one test decides it (internal/stats, RUNS.md): Welch's
// t-test, or the paired t-test for counterbalanced interleaved pairs from
// stats.PairedFrom pairs on; its p-value, its t interval of B−A and the
// row's verdict agree (issue 20). Rows whose runs do not vary fall back
// to the permutation test over runs, without an interval; a single run a
// side gives no test.
//
// A verdict is "a" or "b" (that side is significantly better at alpha),
// "~" (no difference found, and the runs could have detected one of
// Threshold of A) or NeedsMoreRuns (no difference found, and the runs were
// too few for their spread). Each row is a test at alpha on its own; the
// headline (headline.go) corrects for the number of metrics.

// Design is the order in which the runs of A and B were made, read from
// their start times (result.Result.StartedAt).
type Design struct {
	// Layout is "interleaved" (in start order, consecutive pairs of one
	// run of A and one of B), "blocked" (every run of one side started
	// first), "mixed" or "unknown" (a start time is missing).
	Layout string `json:"layout"`
	// Counterbalanced is true when interleaved pairs start with A and with
	// B about equally often (A B, B A, …).
	Counterbalanced bool `json:"counterbalanced"`
	// Paired is true when the verdicts compare the per-pair differences of
	// consecutive A and B runs: counterbalanced interleaved runs of
	// stats.PairedFrom pairs or more.
	Paired bool   `json:"paired"`
	Note   string `json:"note"`
}

// verdicts detects the run design, compares the latency and throughput
// metrics of the runs (in pair order when they are paired), then decides
// the headline.
func (r *Report) verdicts(ctx context.Context, runsA, runsB []Run, in Input, latency bool) error {
	runsA, runsB, paired := r.design(runsA, runsB)
	if latency {
		r.latency(runsA, runsB, in, paired)
	}
	r.throughput(runsA, runsB, in, paired)
	r.sloVerdicts(runsA, runsB, in, paired)
	for _, m := range r.Metrics {
		if m.Method == "none" {
			r.Notes = append(r.Notes, "a verdict needs at least two runs per side (the run is the unit of every test): repeat the runs")
			break
		}
	}
	r.Notes = append(r.Notes, fmt.Sprintf("each row is one test on one value per run (welch-t; paired-t for counterbalanced pairs from %d pairs; "+
		"permutation when no run varies, without an interval): its verdict is a or b exactly when p < alpha (%g), which is exactly when ci_low..ci_high, "+
		"the t interval of B−A, excludes 0; mdd is the smallest difference (%% of A) the runs could detect with power 0.8, allowing for the "+
		"uncertainty of a spread measured on few runs; when no difference is found the verdict is %q if mdd exceeds 10%% (runs_needed per side "+
		"would detect the larger of the observed difference and 10%% with that power), else ~",
		stats.PairedFrom, in.Alpha, NeedsMoreRuns))
	return r.decideHeadline(ctx, in, fixedWorkload(runsA, runsB))
}

// fixedWorkload reports whether every run sent the whole workload and
// waited for it (a completion time, no duration bound): its throughputs
// and completion time are then one figure, the same work over the same
// time.
func fixedWorkload(runsA, runsB []Run) bool {
	for _, run := range append(slices.Clone(runsA), runsB...) {
		if run.Result.Summary.CompletionTimeS == nil || run.Result.Load.DurationS != 0 {
			return false
		}
	}
	return true
}

// design sets r.Design from the runs' start times and returns the runs,
// reordered into pairs when they were interleaved.
func (r *Report) design(runsA, runsB []Run) ([]Run, []Run, bool) {
	d := stats.DetectDesign(starts(runsA), starts(runsB))
	r.Design = Design{Layout: d.Layout.String(), Note: d.Note, Counterbalanced: d.Counterbalanced()}
	if d.Layout == stats.LayoutUnknown && noStarts(runsA) && noStarts(runsB) {
		r.Design.Note = "the results carry no start times (started_at): run order unknown, runs compared unpaired"
	}
	r.Notes = append(r.Notes, "run order: "+r.Design.Note)
	if !d.Paired() {
		return runsA, runsB, false
	}
	r.Design.Paired = true
	pa, pb := make([]Run, len(d.Pairs)), make([]Run, len(d.Pairs))
	for i, p := range d.Pairs {
		pa[i], pb[i] = runsA[p[0]], runsB[p[1]]
	}
	return pa, pb, true
}

func starts(runs []Run) []time.Time {
	out := make([]time.Time, len(runs))
	for i, run := range runs {
		out[i] = run.Result.StartedAt
	}
	return out
}

func noStarts(runs []Run) bool {
	for _, run := range runs {
		if !run.Result.StartedAt.IsZero() {
			return false
		}
	}
	return true
}

// runOptions are the settings of the run-aware comparisons: the report's
// alpha and seed, defaults otherwise (power 0.8, threshold 10%).
func runOptions(in Input, paired bool, seed uint64) stats.RunOptions {
	return stats.RunOptions{Alpha: in.Alpha, Seed: seed, Paired: paired}
}

// latency compares each latency statistic, one value per run: the run's
// summary, which benchmark computes from the same records with the same
// quantile definition. Records of both sides add the pooled samples
// behind the plots' CDFs.
func (r *Report) latency(runsA, runsB []Run, in Input, paired bool) {
	if len(in.RecordsA) > 0 && len(in.RecordsB) > 0 {
		allA, notesA := pooled(in.RecordsA)
		allB, notesB := pooled(in.RecordsB)
		r.Notes = append(append(r.Notes, notesA...), notesB...)
		for _, k := range latencyKinds {
			if xa, xb := flat(allA[k.name]), flat(allB[k.name]); len(xa) > 0 && len(xb) > 0 {
				r.Latency = append(r.Latency, LatencySample{Name: k.name, A: xa, B: xb})
			}
		}
	}
	r.Notes = append(r.Notes, "latency rows take the run as the unit (requests of one run share its state and are not independent): "+
		"each run's statistic (its summary's mean, p50 … p99; for ITL, of all the run's gaps) is one value, and a and b are the means of those values")
	for ki, k := range latencyKinds {
		has := func(res *result.Result) bool { return k.dist(&res.Summary).Count > 0 }
		for si, ls := range latencyStats {
			get := func(res *result.Result) float64 { return ls.get(k.dist(&res.Summary)) }
			va, vb := perRunValues(runsA, runsB, get, has, paired)
			if len(va.vals) == 0 || len(vb.vals) == 0 {
				continue
			}
			o := runOptions(in, paired, in.Seed+uint64(100+10*ki+si))
			r.Metrics = append(r.Metrics, runMetric(k.name+"_"+ls.name, "ms", va, vb, true, o))
		}
	}
}

// recordsOfRuns returns, for each run, the index of the records file that
// holds its requests, or nil when the files do not map one to one onto
// the runs. A file belongs to a run when its pooled requests (the last
// step's successful ones) have the run's E2E count and mean.
func recordsOfRuns(runs []Run, files []Records) []int {
	if len(runs) != len(files) {
		return nil
	}
	e2e := make([][]float64, len(files))
	for j, f := range files {
		m, _ := pooled([]Records{f})
		e2e[j] = flat(m["e2e_ms"])
	}
	out := make([]int, len(runs))
	used := make([]bool, len(files))
	for i, run := range runs {
		d := run.Result.Summary.E2E
		out[i] = -1
		for j := range files {
			if mean, _ := stats.MeanSD(e2e[j]); !used[j] && len(e2e[j]) == d.Count && math.Abs(mean-d.Mean) <= 1e-9*math.Max(1, math.Abs(d.Mean)) {
				out[i], used[j] = j, true
				break
			}
		}
		if out[i] < 0 {
			return nil
		}
	}
	return out
}

// throughput compares the per-run throughput figures, then the energy
// figures (energy.go) the same way.
func (r *Report) throughput(runsA, runsB []Run, in Input, paired bool) {
	for ti, t := range append(slices.Clone(throughputMetrics), energyMetrics...) {
		ok := t.ok
		if ok == nil {
			ok = func(*result.Result) bool { return true }
		}
		va, vb := perRunValues(runsA, runsB, t.get, ok, paired)
		if len(va.vals) == 0 || len(vb.vals) == 0 {
			continue
		}
		r.Metrics = append(r.Metrics, runMetric(t.name, t.unit, va, vb, t.lowerBetter, runOptions(in, paired, in.Seed+uint64(200+ti))))
	}
}

// sideRuns is one side's per-run values of a metric and the start times
// of the runs they came from.
type sideRuns struct {
	vals   []float64
	starts []time.Time
}

// perRunValues returns the figure get of every run where ok holds; when
// paired (runs in pair order) only pairs where it holds on both sides.
func perRunValues(runsA, runsB []Run, get func(*result.Result) float64, ok func(*result.Result) bool, paired bool) (va, vb sideRuns) {
	add := func(s *sideRuns, run Run) {
		s.vals, s.starts = append(s.vals, get(run.Result)), append(s.starts, run.Result.StartedAt)
	}
	if paired {
		for i := range runsA {
			if ok(runsA[i].Result) && ok(runsB[i].Result) {
				add(&va, runsA[i])
				add(&vb, runsB[i])
			}
		}
		return va, vb
	}
	for _, run := range runsA {
		if ok(run.Result) {
			add(&va, run)
		}
	}
	for _, run := range runsB {
		if ok(run.Result) {
			add(&vb, run)
		}
	}
	return va, vb
}

// runMetric compares one value per run with stats.CompareRuns. With fewer
// than two runs on a side no test runs (method "none"), there is no
// interval and the verdict is NeedsMoreRuns.
func runMetric(name, unit string, va, vb sideRuns, lowerBetter bool, o stats.RunOptions) Metric {
	m := Metric{Name: name, Unit: unit, Verdict: VerdictSame, NA: len(va.vals), NB: len(vb.vals), Method: "none", runsA: va, runsB: vb}
	m.A, m.SDA = stats.MeanSD(va.vals)
	m.B, m.SDB = stats.MeanSD(vb.vals)
	m.DeltaPct = deltaPct(m.A, m.B)
	c, err := stats.CompareRuns(va.vals, vb.vals, o)
	if err != nil {
		m.Note = fmt.Sprintf("%s: no verdict: %v", name, err)
		return m
	}
	if len(va.vals) < 2 || len(vb.vals) < 2 {
		m.Note = fmt.Sprintf("%d run(s) for A, %d for B: no test and no interval without two runs a side", len(va.vals), len(vb.vals))
	}
	setVerdict(&m, &c.Evidence, c.Verdict, lowerBetter)
	if len(va.vals) < 2 || len(vb.vals) < 2 {
		// One run has no spread: no count of runs can be sized from it.
		m.RunsNeeded, m.MDDPct = 0, nil
		m.Reason = "one run a side has no run-to-run spread: repeat the runs (3 or more a side); their spread will say how many detect a 10% difference"
	}
	return m
}

// setVerdict fills the verdict fields of m from the run-aware evidence:
// the call, p-value, run counts and spreads, the minimum detectable
// difference in % of A and the runs needed.
func setVerdict(m *Metric, ev *stats.Evidence, v stats.Verdict, lowerBetter bool) {
	m.PValue, m.CILow, m.CIHigh, m.Method = pValue(ev.P), finite(ev.Low), finite(ev.High), ev.Method
	m.NA, m.NB = len(ev.PerRunA), len(ev.PerRunB)
	m.SDA, m.SDB = ev.SDA, ev.SDB
	m.MDDPct = finite(100 * ev.Power.MDDFrac)
	m.RunsNeeded, m.Reason = v.Recommended, v.Reason
	switch v.Call {
	case stats.Higher, stats.Lower:
		if (v.Call == stats.Lower) == lowerBetter {
			m.Verdict = VerdictB
		} else {
			m.Verdict = VerdictA
		}
	case stats.NeedsMoreRuns:
		m.Verdict = NeedsMoreRuns
	default:
		m.Verdict = VerdictSame
	}
}
