package benchmark

import "fmt"

// This file applies a run's SLO (Config.SLO) to its steps: each step's
// summary carries the SLO's outcome, and a sweep its capacity.

// stepSLO evaluates slo on one step's records; nil without an SLO.
func StepSLO(recs []Record, durationS float64, slo SLO) *SLOResult {
	if len(slo) == 0 {
		return nil
	}
	res := EvaluateSLO(recs, durationS, slo)
	return &res
}

// capacity sets the sweep's capacity from its steps' SLO outcomes, or
// says in a warning why there is none.
func (r *runner) capacity(sw *Sweep) {
	if len(r.cfg.SLO) == 0 || len(sw.Steps) == 0 {
		return
	}
	c, err := SweepCapacity(sw)
	if err != nil {
		r.warn.add(err.Error())
		return
	}
	sw.Capacity = c
}

// SweepCapacity is Capacity over the steps of a sweep whose summaries
// carry their SLO outcome (a sweep run with an SLO).
func SweepCapacity(sw *Sweep) (*CapacityResult, error) {
	steps := make([]LoadStep, len(sw.Steps))
	for i, st := range sw.Steps {
		s := st.Summary
		if s.SLOResult == nil {
			return nil, fmt.Errorf("capacity: sweep step %g carries no SLO outcome (run the sweep with --slo)", st.Value)
		}
		steps[i] = LoadStep{Load: st.Value, RequestThroughput: s.RequestThroughput, OutputThroughput: s.OutputThroughput, SLO: *s.SLOResult}
	}
	c, err := Capacity(steps)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// ApplySLO holds a result to slo afresh from its records (matched to the
// steps by their Step field): every step's summary gets the SLO's outcome
// (none when slo is empty), the result's summary the last step's, and a
// sweep its capacity (none when the SLO has no distribution threshold).
// It lets one measurement be judged against a changed SLO without being
// measured again.
func ApplySLO(res *Result, recs []Record, slo SLO) {
	by := RecordsByStep(recs)
	if res.Sweep == nil || len(res.Sweep.Steps) == 0 {
		res.Summary.SLOResult = StepSLO(by[0], res.Summary.DurationS, slo)
		return
	}
	sw := res.Sweep
	for i := range sw.Steps {
		st := &sw.Steps[i]
		st.Summary.SLOResult = StepSLO(by[i], st.Summary.DurationS, slo)
	}
	res.Summary.SLOResult = sw.Steps[len(sw.Steps)-1].Summary.SLOResult
	sw.Capacity = nil
	if slo.HasDistribution() {
		sw.Capacity, _ = SweepCapacity(sw) // steps always carry the outcome here
	}
}
