package benchmark

import "fmt"

// This file applies a run's SLO (Config.SLO) to its steps: each step's
// summary carries the SLO's outcome, and a sweep its capacity.

// stepSLO evaluates slo on one step's records; nil without an SLO.
func stepSLO(recs []Record, durationS float64, slo SLO) *SLOResult {
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
