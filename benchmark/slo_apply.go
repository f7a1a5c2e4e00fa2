package benchmark

import (
	"github.com/servecmp/servecmp/benchmark/result"
)

// This file applies a run's SLO (Config.SLO) to its steps: each step's
// summary carries the SLO's outcome, and a sweep its capacity.

// capacity sets the sweep's capacity from its steps' SLO outcomes, or
// says in a warning why there is none.
func (r *runner) capacity(sw *result.Sweep) {
	if len(r.cfg.SLO) == 0 || len(sw.Steps) == 0 {
		return
	}
	c, err := result.SweepCapacity(sw)
	if err != nil {
		r.warn.add(err.Error())
		return
	}
	sw.Capacity = c
}
