package profile

import (
	"context"
	"io"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/atomicfile"
)

// RunRecorded is Run with every measured request's record streamed, as
// JSON Lines, into the file records (atomicfile: put in place when the
// run ends); records "" means Run alone. A run that gave a result keeps
// its records even when the profiler failed; one that gave none leaves
// no file. recErr is the error writing the records; it names the file.
func RunRecorded(ctx context.Context, cfg benchmark.Config, o Options, records string) (res *Result, runErr, recErr error) {
	if records == "" {
		res, runErr = Run(ctx, cfg, o)
		return res, runErr, nil
	}
	recErr = atomicfile.WriteFunc(records, func(w io.Writer) error {
		cfg.OnRecord = result.NewRecordWriter(w).Write
		if res, runErr = Run(ctx, cfg, o); res == nil {
			return runErr // no run: no records file
		}
		return nil
	})
	if res == nil {
		recErr = nil // the run's error, not a records one
	}
	return res, runErr, recErr
}
