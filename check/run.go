package check

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/check/checkreport"
)

// Engines are the request styles a Target may name: auto, then each
// engine's.
func Engines() []string { return append([]string{engine.Auto}, engine.Names...) }

// ErrFailed is the error of a check that ran to the end and found a
// request that failed or did not match.
var ErrFailed = errors.New("check failed: not every request succeeded and matched on both engines")

// Validate checks the target's engine.
func (t Target) Validate() error {
	if t.Engine != "" && !engine.Valid(t.Engine) {
		return fmt.Errorf("engine %q: want one of %s", t.Engine, strings.Join(Engines(), ", "))
	}
	return nil
}

// RunFile checks the first limit requests (all when limit <= 0) of the
// workload file at path with Run and records q in the report. The report
// is nil when the workload cannot be read; otherwise it is complete even
// when the error is not nil: the run's error (an interruption), else
// ErrFailed when the check did not pass.
func RunFile(ctx context.Context, a, b Target, path string, limit int, q checkreport.Quality, opt Options) (*checkreport.Report, error) {
	wl, err := workload.Load(path)
	if err != nil {
		return nil, err
	}
	if limit > 0 && limit < len(wl.Requests) {
		wl.Requests = wl.Requests[:limit]
	}
	rep, err := Run(ctx, a, b, wl, opt)
	if rep == nil {
		return nil, err
	}
	rep.Quality = q
	switch {
	case rep.Incomplete:
		err = errors.New("interrupted: the check report is marked incomplete")
	case err == nil && !rep.Summary.Passed:
		err = ErrFailed
	}
	return rep, err
}
