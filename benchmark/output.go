package benchmark

import (
	"context"
	"errors"
	"io"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/atomicfile"
)

// RunRecorded is Run with every measured request's record streamed, as
// JSON Lines, into the file records (atomicfile: it is put in place when
// the run ends); records "" means Run alone. The result is nil when the
// run failed, or never started because the file could not be created. A
// result with an error means the run succeeded and the records could not
// be written; the error names the file.
func RunRecorded(ctx context.Context, cfg Config, records string) (res *result.Result, err error) {
	if records == "" {
		return Run(ctx, cfg)
	}
	var runErr error
	err = atomicfile.WriteFunc(records, func(w io.Writer) error {
		cfg.OnRecord = result.NewRecordWriter(w).Write
		res, runErr = Run(ctx, cfg)
		return runErr
	})
	if re := (*RecordsError)(nil); errors.As(runErr, &re) && res != nil {
		return res, runErr // a complete result whose records were lost
	}
	if runErr != nil {
		return nil, runErr
	}
	return res, err
}
