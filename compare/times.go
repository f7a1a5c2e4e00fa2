package compare

import "time"

// RunTime is when one compared run happened, on the wall clock (UTC);
// zero times (omitted) for results that do not record them.
type RunTime struct {
	Side      string    `json:"side"` // "a" or "b"
	Path      string    `json:"path"`
	StartedAt time.Time `json:"started_at,omitzero"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
}

// runTimes lists the wall-clock times of every compared run, A first.
func runTimes(runsA, runsB []Run) []RunTime {
	out := []RunTime{}
	for _, s := range []struct {
		side string
		runs []Run
	}{{"a", runsA}, {"b", runsB}} {
		for _, run := range s.runs {
			out = append(out, RunTime{Side: s.side, Path: run.Path, StartedAt: run.Result.StartedAt, EndedAt: run.Result.EndedAt})
		}
	}
	return out
}
