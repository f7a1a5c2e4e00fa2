package compare

import (
	"fmt"
)

// MaxResamples bounds the random relabellings of the headline's max-T
// test (headline.go): its time grows with them.
const MaxResamples = 1_000_000

// CheckTests checks the test settings a user gives: the significance
// level alpha in (0, 1) and the relabellings in [1, MaxResamples]. Its
// messages name the flags (--alpha, --resamples).
func CheckTests(alpha float64, resamples int) error {
	if alpha <= 0 || alpha >= 1 {
		return fmt.Errorf("--alpha must be in (0, 1), got %g", alpha)
	}
	if resamples < 1 || resamples > MaxResamples {
		return fmt.Errorf("--resamples must be in [1, %d], got %d", MaxResamples, resamples)
	}
	return nil
}

// requireSummaries refuses a run whose result carries no summary: one in
// which no request was counted at all (ok, failed, cancelled or not
// sent). Such a file would compare as zeros.
func requireSummaries(runs []Run) error {
	for _, run := range runs {
		s := &run.Result.Summary
		if s.RequestsOK+s.RequestsFailed+s.RequestsCancelled+s.RequestsNotSent == 0 {
			return fmt.Errorf("%s: the result has no summary (no request counted): not a complete benchmark result", run.Path)
		}
	}
	return nil
}

// successes counts the successful requests of a side's runs.
func successes(runs []Run) int {
	n := 0
	for _, run := range runs {
		n += run.Result.Summary.RequestsOK
	}
	return n
}

// gateSuccesses makes a side without a single successful request NOT
// COMPARABLE: there is nothing to compare its latency or completion time
// with. It reports whether both sides have successes, which the latency
// and completion-time verdicts need.
func (r *Report) gateSuccesses(runsA, runsB []Run) bool {
	ok := true
	for _, side := range []struct {
		name string
		runs []Run
	}{{"A", runsA}, {"B", runsB}} {
		if successes(side.runs) > 0 {
			continue
		}
		ok = false
		r.Comparable = false
		r.NotComparable = append(r.NotComparable, "summary.requests_ok")
		r.Warnings = append(r.Warnings, fmt.Sprintf("side %s has no successful request: no latency or completion-time verdict is given", side.name))
	}
	return ok
}
