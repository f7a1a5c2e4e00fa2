package compare

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/servecmp/servecmp/benchmark/result"
)

// This file adds the service-level objective to a comparison: goodput and
// SLO attainment per run, compared like throughput (one value per run,
// stats.CompareRuns), and each side's capacity from its sweep. The SLO is
// Input.SLO, applied to both sides alike; without it, the SLO every
// result was run with (benchmark --slo), when they all agree.

// SLOReport is the SLO's part of a comparison.
type SLOReport struct {
	// Objective is the SLO in result.ParseSLO syntax; Source says
	// where it came from: "input" (the experiment or caller) or "results"
	// (the SLO the results carry).
	Objective string `json:"objective"`
	Source    string `json:"source"`
	// Capacity holds one row per sweep with a capacity; CapacityVerdict
	// compares the first sweep of each side: "a" or "b" (that side's
	// capacity is higher, whatever the load between the sweep steps), "~"
	// (the sweeps cannot tell them apart) or "" (no capacity on a side).
	Capacity        []CapacityRow `json:"capacity"`
	CapacityVerdict string        `json:"capacity_verdict"`
	CapacityReason  string        `json:"capacity_reason,omitempty"`
}

// CapacityRow is one sweep's capacity under the SLO.
type CapacityRow struct {
	Side string `json:"side"`
	Path string `json:"path"`
	Kind string `json:"kind"` // concurrency or rate
	result.CapacityResult
}

// goodput metric names, higher is better.
const (
	MetricGoodput    = "goodput_rps"
	MetricAttainment = "slo_attainment"
)

// resolveSLO returns the SLO of the comparison and its source, or nil.
func resolveSLO(in Input, runs []Run) (result.SLO, string) {
	if len(in.SLO) > 0 {
		return in.SLO, "input"
	}
	var slo result.SLO
	for i, run := range runs {
		s := run.Result.Summary.SLOResult
		if s == nil || (i > 0 && s.SLO.String() != slo.String()) {
			return nil, ""
		}
		slo = s.SLO
	}
	return slo, "results"
}

// sloVerdicts adds the goodput and attainment rows beside throughput
// (runs in pair order when paired).
func (r *Report) sloVerdicts(runsA, runsB []Run, in Input, paired bool) {
	slo, source := resolveSLO(in, append(slices.Clone(runsA), runsB...))
	if slo == nil {
		return
	}
	r.SLO = &SLOReport{Objective: slo.String(), Source: source, Capacity: []CapacityRow{}}
	vals, missing := runSLO(runsA, in.RecordsA, slo)
	valsB, missB := runSLO(runsB, in.RecordsB, slo)
	maps.Copy(vals, valsB)
	if missing += missB; missing > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("goodput: %d run(s) have neither records nor a result run with the SLO %s: they are left out of the goodput rows", missing, slo))
	}
	for i, name := range []string{MetricGoodput, MetricAttainment} {
		get := func(res *result.Result) float64 { return vals[res][i] }
		ok := func(res *result.Result) bool { v, has := vals[res]; return has && !math.IsNaN(v[i]) }
		va, vb := perRunValues(runsA, runsB, get, ok, paired)
		if len(va.vals) == 0 || len(vb.vals) == 0 {
			continue
		}
		unit := "req/s"
		if name == MetricAttainment {
			unit = "fraction"
		}
		r.Metrics = append(r.Metrics, runMetric(name, unit, va, vb, false, runOptions(in, paired, in.Seed+uint64(300+i))))
	}
	r.Notes = append(r.Notes, "goodput_rps counts per second the requests that met every threshold of the SLO "+slo.String()+
		" (a distribution threshold such as ttft_ms:p99<=500 held per request); slo_attainment is their share of the measured requests; failed requests are misses")
}

// runSLO evaluates slo on each run: from its records (the last step's)
// when a records file maps onto it, else from the SLO outcome the result
// carries when it is the same SLO. It returns goodput and attainment by
// result, and how many runs had neither.
func runSLO(runs []Run, files []Records, slo result.SLO) (map[*result.Result][2]float64, int) {
	out := map[*result.Result][2]float64{}
	idx := recordsOfRuns(runs, files)
	missing := 0
	for i, run := range runs {
		var res result.SLOResult
		switch s := run.Result.Summary.SLOResult; {
		case idx != nil:
			res = result.EvaluateSLO(lastStep(files[idx[i]].Records), run.Result.Summary.DurationS, slo)
		case s != nil && s.SLO.String() == slo.String():
			res = *s
		default:
			missing++
			continue
		}
		att := math.NaN()
		if res.Attainment != nil {
			att = *res.Attainment
		}
		out[run.Result] = [2]float64{res.GoodputRPS, att}
	}
	return out, missing
}

// lastStep returns the records of the highest step (a run's measured
// requests; a sweep's last step).
func lastStep(recs []result.Record) []result.Record {
	top := 0
	for _, r := range recs {
		top = max(top, r.Step)
	}
	var out []result.Record
	for _, r := range recs {
		if r.Step == top {
			out = append(out, r)
		}
	}
	return out
}

// sloCapacity adds each sweep's capacity under the report's SLO and the
// capacity verdict. A sweep run without the same SLO has none (its steps'
// records are not in the comparison), which a note says.
func (r *Report) sloCapacity(sweepsA, sweepsB []Run) {
	if r.SLO == nil || len(sweepsA)+len(sweepsB) == 0 {
		return
	}
	first := map[string]*CapacityRow{}
	for _, sd := range []struct {
		side string
		runs []Run
	}{{"a", sweepsA}, {"b", sweepsB}} {
		for _, run := range sd.runs {
			c, err := r.sweepCapacity(run)
			if err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf("%s: no capacity: %v", run.Path, err))
				continue
			}
			r.SLO.Capacity = append(r.SLO.Capacity, CapacityRow{Side: sd.side, Path: run.Path, Kind: string(run.Result.Sweep.Kind), CapacityResult: *c})
			if first[sd.side] == nil {
				first[sd.side] = &r.SLO.Capacity[len(r.SLO.Capacity)-1]
			}
		}
	}
	if first["a"] != nil && first["b"] != nil {
		r.SLO.CapacityVerdict, r.SLO.CapacityReason = capacityVerdict(*first["a"], *first["b"])
	}
}

// sweepCapacity is a sweep's capacity under the report's SLO.
func (r *Report) sweepCapacity(run Run) (*result.CapacityResult, error) {
	sw := run.Result.Sweep
	for _, st := range sw.Steps {
		if s := st.Summary.SLOResult; s == nil || s.SLO.String() != r.SLO.Objective {
			return nil, fmt.Errorf("the sweep was not run with the SLO %s (benchmark --slo)", r.SLO.Objective)
		}
	}
	return result.SweepCapacity(sw)
}

// capacityVerdict compares two capacities, each known only between the
// last step that met the SLO and the first that missed it: a side is
// better when its lower bound reaches the other's upper bound.
func capacityVerdict(a, b CapacityRow) (verdict, reason string) {
	if a.Kind != b.Kind {
		return "", fmt.Sprintf("the sweeps offer different loads (%s, %s)", a.Kind, b.Kind)
	}
	loA, hiA := capacityBounds(a.CapacityResult)
	loB, hiB := capacityBounds(b.CapacityResult)
	switch {
	case loA >= hiB:
		return "a", fmt.Sprintf("A meets the SLO at %s %g, where B no longer does", a.Kind, loA)
	case loB >= hiA:
		return "b", fmt.Sprintf("B meets the SLO at %s %g, where A no longer does", b.Kind, loB)
	}
	return "~", "the capacities fall between the same sweep steps, or a sweep stopped below the other's capacity"
}

// capacityBounds is [lo, hi): the load that met the SLO (0 below the first
// step) and the load that missed it (+Inf when not reached).
func capacityBounds(c result.CapacityResult) (lo, hi float64) {
	hi = math.Inf(1)
	if c.Load != nil {
		lo = *c.Load
	}
	if c.FailedAt != nil {
		hi = *c.FailedAt
	}
	return lo, hi
}

// SLOLines maps the thresholds of slo that a sweep chart can draw to the
// keys of plots.Options.SLO and xlsx.Options.SLO: ttft_ms at p50 or p99,
// tpot_ms at p50, and a per-request ttft_ms or tpot_ms threshold (which
// bounds any percentile). Other thresholds (and a limit of 0) are left
// out: the sweep points carry no value to read them against.
func SLOLines(slo result.SLO) map[string]float64 {
	out := map[string]float64{}
	for _, t := range slo {
		if t.LimitMs <= 0 || (t.Metric != "ttft_ms" && t.Metric != "tpot_ms") {
			continue
		}
		switch key := t.Metric + "_" + t.Stat; {
		case t.Stat == "":
			out[t.Metric] = t.LimitMs
		case key == "ttft_ms_p50" || key == "ttft_ms_p99" || key == "tpot_ms_p50":
			out[key] = t.LimitMs
		}
	}
	return out
}
