package emit

import (
	"errors"
	"fmt"
	"io"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/output/present"
	"github.com/servecmp/servecmp/profile"
)

// Benchmark writes a benchmark result: the result file out ("" none,
// "-" stdout, the text summary then going to stderr), the text summary
// and the warnings. Its error is the outcome: the file not written, an
// interrupted run, or too many failed requests (exit 4: none succeeded,
// or a share above maxFailed, 0 to 1).
func Benchmark(stdout, stderr io.Writer, out string, res *result.Result, maxFailed float64) error {
	return writeResult(stdout, stderr, out, res, maxFailed, ErrTooManyFailures,
		func(w io.Writer) error { return result.WriteResult(out, w, res) },
		func(w io.Writer) error { return present.WriteBenchmarkText(w, res) })
}

// Profile writes a profile result as Benchmark does; a run with no
// request succeeded fails with exit 1, and the failed share is not gated.
func Profile(stdout, stderr io.Writer, out string, res *profile.Result) error {
	return writeResult(stdout, stderr, out, res.Result, 1, nil,
		func(w io.Writer) error { return profile.WriteResult(out, w, res) },
		func(w io.Writer) error { return present.WriteProfileText(w, res) })
}

// writeResult writes the result file with file (given stdout), the text
// summary with text, the warnings, then returns the outcome of res: an
// error marked noneOK (nil: a plain failure) when no request succeeded,
// one marked ErrTooManyFailures when more than maxFailed of them failed.
func writeResult(stdout, stderr io.Writer, out string, res *result.Result, maxFailed float64, noneOK error,
	file, text func(io.Writer) error) error {
	var outErr error
	if out != "" {
		outErr = file(stdout)
	}
	w := stdout
	if out == "-" {
		w = stderr
	}
	if err := text(w); err != nil {
		return err
	}
	Warn(stderr, res.Warnings...)
	switch {
	case outErr != nil:
		return fmt.Errorf("writing %v", outErr) // the error names the file
	case res.Incomplete:
		return errors.New("interrupted: the result is marked incomplete")
	case res.Summary.RequestsOK == 0:
		err := fmt.Errorf("no request succeeded (%d failed: %s)%s", res.Summary.RequestsFailed, present.FailureClasses(res.Summary.FailedByClass), cause(res))
		if noneOK == nil {
			return err
		}
		return &outcome{err, noneOK}
	case res.FailedShare() > maxFailed:
		return &outcome{fmt.Errorf("%.1f%% of the requests failed, more than --max-failed-share %g allows (last step: %s)%s",
			100*res.FailedShare(), maxFailed, present.FailureClasses(res.Summary.FailedByClass), cause(res)), ErrTooManyFailures}
	}
	return nil
}

// cause is ": " and the result's failure cause, or "" when it has none.
func cause(res *result.Result) string {
	if res.FailureCause == "" {
		return ""
	}
	return ": " + res.FailureCause
}
