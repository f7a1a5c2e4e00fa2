package analysis

import (
	"errors"
	"fmt"
	"math"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/profile"
)

// SpanTolerance is the relative disagreement between a rank's window and
// the profile window recorded by servecmp profile above which analyze
// warns (--work-from).
const SpanTolerance = 0.10

// Options turns the flags into the analysis options: Summary's, plus
// the work and the recorded window of --work-from.
func (f Flags) Options() (Options, error) {
	sum, err := f.Summary()
	if err != nil {
		return Options{}, err
	}
	o := Options{Summary: sum}
	if f.WorkFrom == "" {
		return o, nil
	}
	if f.Work != "" {
		return o, errors.New("--work and --work-from exclude each other")
	}
	b, err := profile.ReadBlock(f.WorkFrom)
	if err != nil {
		return o, fmt.Errorf("--work-from: %v", err)
	}
	w := b.WindowWork
	o.Summary.Work = &classify.Work{Requests: w.Requests, OutputTokens: w.OutputTokens, InputTokens: w.InputTokens, From: f.WorkFrom}
	o.WorkWindowNs = int64(math.Round(b.DurationS() * 1e9))
	return o, nil
}

// spanWarnings compares every rank's window with the recorded profile
// window.
func spanWarnings(ranks []*classify.RankSummary, opts Options) []string {
	if opts.WorkWindowNs <= 0 || opts.Summary.Work == nil {
		return nil
	}
	rec := float64(opts.WorkWindowNs)
	var out []string
	for _, r := range ranks {
		if d := (float64(r.WindowNs) - rec) / rec; math.Abs(d) > SpanTolerance {
			out = append(out, fmt.Sprintf("rank %s: its window is %.3f s but the profile window recorded in %s is %.3f s (%+.0f%%): the per-work figures divide by work done over a different span",
				r.Rank, float64(r.WindowNs)/1e9, opts.Summary.Work.From, rec/1e9, d*100))
		}
	}
	return out
}
