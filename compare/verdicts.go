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

// This file makes layer 1's verdicts hold across runs (issue 12). The unit
// of evidence is the run, not the request: the requests of one run share
// its warm-up, cache state, clocks and background load, so pooling them
// over runs makes a test overconfident. Every metric is therefore compared
// through internal/stats (see internal/stats/RUNS.md):
//
//   - latency rows from records: stats.CompareRequests on per-run request
//     slices (every gap for ITL): a per-run t-test, a permutation test over runs and a
//     hierarchical bootstrap interval of B−A;
//   - throughput rows, and latency rows without records: stats.CompareRuns
//     on one value per run.
//
// A verdict is "a" or "b" (that side is significantly better), "~" (no
// difference found, and the runs could have detected one of Threshold of
// A) or NeedsMoreRuns (no difference found, and the run-to-run spread is
// too large for the runs at hand). The runs' start times decide whether A
// and B ran interleaved in pairs (then the paired analysis is used) or in
// blocks (then drift falls on one side, which a note says).

// Design is the order in which the runs of A and B were made, read from
// their start times (result.Result.StartedAt).
type Design struct {
	// Layout is "interleaved" (A and B alternate with as many runs each),
	// "blocked" (every run of one side started first), "mixed" or
	// "unknown" (a start time is missing).
	Layout string `json:"layout"`
	// Paired is true when the runs were interleaved: the verdicts then
	// compare the per-pair differences of consecutive A and B runs.
	Paired bool   `json:"paired"`
	Note   string `json:"note"`
}

// verdicts detects the run design, then compares the latency and
// throughput metrics of the runs, in pair order when they are paired.
func (r *Report) verdicts(ctx context.Context, runsA, runsB []Run, in Input, latency bool) error {
	runsA, runsB, paired := r.design(runsA, runsB)
	if latency {
		r.latency(ctx, runsA, runsB, in, paired)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("compare: interrupted: %w", err)
		}
	}
	r.throughput(runsA, runsB, in, paired)
	r.sloVerdicts(runsA, runsB, in, paired)
	for _, m := range r.Metrics {
		if m.Method == "none" {
			r.Notes = append(r.Notes, "a verdict needs at least two runs per side (the run is the unit of every test): repeat the runs")
			break
		}
	}
	r.Notes = append(r.Notes, fmt.Sprintf("verdict a/b needs a per-run test with p < alpha (%g), an interval of B−A that excludes 0 and per-run values "+
		"that barely overlap (at most 25%% of run pairs the other way); mdd is the smallest difference (%% of A) the runs could detect with power 0.8; "+
		"when no difference is found the verdict is %q if mdd exceeds 10%% (runs_needed per side would detect the larger of the observed "+
		"difference and 10%%), else ~", in.Alpha, NeedsMoreRuns))
	return nil
}

// design sets r.Design from the runs' start times and returns the runs,
// reordered into pairs when they were interleaved.
func (r *Report) design(runsA, runsB []Run) ([]Run, []Run, bool) {
	d := stats.DetectDesign(starts(runsA), starts(runsB))
	r.Design = Design{Layout: d.Layout.String(), Note: d.Note}
	if d.Layout == stats.LayoutUnknown && noStarts(runsA) && noStarts(runsB) {
		r.Design.Note = "the results carry no start times (started_at): run order unknown, runs compared unpaired"
	}
	r.Notes = append(r.Notes, "run order: "+r.Design.Note)
	if d.Layout != stats.Interleaved {
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
// alpha, resamples and seed, defaults otherwise (power 0.8, threshold 10%).
func runOptions(in Input, paired bool, seed uint64) stats.RunOptions {
	return stats.RunOptions{Alpha: in.Alpha, Resamples: in.Resamples, Seed: seed, Paired: paired}
}

// latency compares the latency distributions: per request from records
// when both sides have them, else per run from the result summaries.
func (r *Report) latency(ctx context.Context, runsA, runsB []Run, in Input, paired bool) {
	if len(in.RecordsA) == 0 || len(in.RecordsB) == 0 {
		r.latencyFromSummaries(runsA, runsB, in, paired)
		return
	}
	filesA, filesB := in.RecordsA, in.RecordsB
	if paired {
		ia, ib := recordsOfRuns(runsA, filesA), recordsOfRuns(runsB, filesB)
		if ia == nil || ib == nil {
			paired = false
			r.Notes = append(r.Notes, "the records files do not map one to one onto the result files: latency rows compare the runs unpaired")
		} else {
			filesA, filesB = pick(filesA, ia), pick(filesB, ib)
		}
	}
	allA, notesA := pooled(filesA)
	allB, notesB := pooled(filesB)
	r.Notes = append(append(r.Notes, notesA...), notesB...)
	perA, perB := perRunSamples(filesA), perRunSamples(filesB)
	method := "Welch's t-test and a permutation test over runs"
	if paired {
		method = "a paired t-test and a sign-flip test on the per-pair differences"
	}
	r.Notes = append(r.Notes, fmt.Sprintf("latency rows take the run as the unit (requests of one run share its state and are not independent): each run's "+
		"statistic is one value, compared with %s; ci_low/ci_high bound B−A by a hierarchical bootstrap "+
		"(%d resamples of the runs, then of the requests within each run)", method, in.Resamples),
		"ITL rows (itl_ms, itl_per_token_ms) are statistics of the gaps themselves; their per-run test takes each run's gap statistic as "+
			"one value, while their bootstrap resamples gaps within a run as if independent, so their interval is narrower than a "+
			"request-level one (the per-run test and the overlap rule still decide the verdict)")
	st := make([]stats.Stat, len(latencyStats))
	for i, ls := range latencyStats {
		st[i] = ls.stat
	}
	for ki, k := range latencyKinds {
		xa, xb := flat(allA[k.name]), flat(allB[k.name])
		if len(xa) == 0 || len(xb) == 0 {
			continue
		}
		o := runOptions(in, paired, in.Seed+uint64(ki))
		o.Stats, o.Context = st, ctx
		cs, err := stats.CompareRequests(runValues(perA, k.name), runValues(perB, k.name), o)
		if err != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: no latency verdict: %v", k.name, err))
			continue
		}
		r.Latency = append(r.Latency, LatencySample{Name: k.name, A: xa, B: xb})
		for i, c := range cs {
			m := Metric{Name: k.name + "_" + latencyStats[i].name, Unit: "ms", A: c.A, B: c.B, DeltaPct: deltaPct(c.A, c.B),
				CILow: finite(c.Boot.Low), CIHigh: finite(c.Boot.High), Method: c.Method + "+hierarchical-bootstrap"}
			setVerdict(&m, &c.Evidence, c.Verdict, true)
			r.Metrics = append(r.Metrics, m)
		}
	}
}

// perRunSamples returns each records file's latency samples (one map per
// run, in pooled's layout).
func perRunSamples(files []Records) []map[string][][]float64 {
	out := make([]map[string][][]float64, len(files))
	for i, f := range files {
		out[i], _ = pooled([]Records{f})
	}
	return out
}

// runValues returns, for each run, the values of one latency kind: one
// per request, or every gap of every request for the clustered (ITL)
// kinds, so that an ITL row keeps its meaning (a statistic of the gaps,
// tail stalls included) instead of repeating TPOT.
func runValues(runs []map[string][][]float64, kind string) [][]float64 {
	out := make([][]float64, len(runs))
	for i, m := range runs {
		for _, c := range m[kind] {
			out[i] = append(out[i], c...)
		}
	}
	return out
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

func pick[T any](s []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = s[j]
	}
	return out
}

// latencyFromSummaries compares each latency statistic of the result
// summaries, one value per run.
func (r *Report) latencyFromSummaries(runsA, runsB []Run, in Input, paired bool) {
	r.Notes = append(r.Notes, "latency rows compare per-run summary values: records of both sides (--records-a/--records-b) give the per-request hierarchical bootstrap")
	for ki, k := range latencyKinds {
		has := func(res *result.Result) bool { return k.dist(&res.Summary).Count > 0 }
		for si, ls := range latencyStats {
			get := func(res *result.Result) float64 { return ls.get(k.dist(&res.Summary)) }
			va, vb := perRunValues(runsA, runsB, get, has, paired)
			if len(va) == 0 || len(vb) == 0 {
				continue
			}
			o := runOptions(in, paired, in.Seed+uint64(100+10*ki+si))
			r.Metrics = append(r.Metrics, runMetric(k.name+"_"+ls.name, "ms", va, vb, true, o))
		}
	}
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
		if len(va) == 0 || len(vb) == 0 {
			continue
		}
		r.Metrics = append(r.Metrics, runMetric(t.name, t.unit, va, vb, t.lowerBetter, runOptions(in, paired, in.Seed+uint64(200+ti))))
	}
}

// perRunValues returns the figure get of every run where ok holds; when
// paired (runs in pair order) only pairs where it holds on both sides.
func perRunValues(runsA, runsB []Run, get func(*result.Result) float64, ok func(*result.Result) bool, paired bool) (va, vb []float64) {
	if paired {
		for i := range runsA {
			if ok(runsA[i].Result) && ok(runsB[i].Result) {
				va, vb = append(va, get(runsA[i].Result)), append(vb, get(runsB[i].Result))
			}
		}
		return va, vb
	}
	for _, run := range runsA {
		if ok(run.Result) {
			va = append(va, get(run.Result))
		}
	}
	for _, run := range runsB {
		if ok(run.Result) {
			vb = append(vb, get(run.Result))
		}
	}
	return va, vb
}

// runMetric compares one value per run with stats.CompareRuns. With fewer
// than two runs on a side no test runs (method "none") and the verdict is
// NeedsMoreRuns.
func runMetric(name, unit string, va, vb []float64, lowerBetter bool, o stats.RunOptions) Metric {
	m := Metric{Name: name, Unit: unit, Verdict: VerdictSame, NA: len(va), NB: len(vb), Method: "none"}
	m.A, m.SDA = stats.MeanSD(va)
	m.B, m.SDB = stats.MeanSD(vb)
	m.DeltaPct = deltaPct(m.A, m.B)
	c, err := stats.CompareRuns(va, vb, o)
	if err != nil {
		m.Note = fmt.Sprintf("%s: no verdict: %v", name, err)
		return m
	}
	m.PValue, m.CILow, m.CIHigh = pValue(c.P), finite(c.Low), finite(c.High)
	if len(va) >= 2 && len(vb) >= 2 {
		m.Method = c.Method
	} else {
		m.Note = fmt.Sprintf("%d run(s) for A, %d for B: a verdict needs repeated runs", len(va), len(vb))
	}
	setVerdict(&m, &c.Evidence, c.Verdict, lowerBetter)
	return m
}

// setVerdict fills the verdict fields of m from the run-aware evidence:
// the call, p-value, run counts and spreads, the minimum detectable
// difference in % of A and the runs needed.
func setVerdict(m *Metric, ev *stats.Evidence, v stats.Verdict, lowerBetter bool) {
	m.PValue = pValue(ev.P)
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
