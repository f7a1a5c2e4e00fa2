package benchmark

// DefaultMaxFailedShare is the share of failed requests above which a
// benchmark is a failure of its own kind (the command's exit code 4): a
// run where that many requests failed measures the failures, not the
// server.
const DefaultMaxFailedShare = 0.1

// FailedShare is the share of requests that failed among those that
// ended on their own (ok or failed; requests the run cancelled are
// neither), over every measured step of a sweep. It is 0 when none ended.
func (r *Result) FailedShare() float64 {
	sums := []*Summary{&r.Summary}
	if r.Sweep != nil && len(r.Sweep.Steps) > 0 {
		sums = sums[:0]
		for i := range r.Sweep.Steps {
			sums = append(sums, &r.Sweep.Steps[i].Summary)
		}
	}
	ok, failed := 0, 0
	for _, s := range sums {
		ok += s.RequestsOK
		failed += s.RequestsFailed
	}
	if ok+failed == 0 {
		return 0
	}
	return float64(failed) / float64(ok+failed)
}
