package benchmark

import (
	"context"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/atomicfile"
)

// RunRecorded is Run with every measured request's record appended, as
// one JSON line, to the file records the moment the request ends
// (atomicfile.Stream: at its own path, no temporary file, so that a run
// killed midway leaves the records written so far); records "" means Run
// alone. The file is created at the first record: a run that fails
// before it leaves an earlier file as it was; a path that cannot be
// written is refused before the run. The result is nil when the run
// failed. A result with an error means the run succeeded and the
// records could not be written; the error names the file.
func RunRecorded(ctx context.Context, cfg Config, records string) (res *result.Result, err error) {
	if records == "" {
		return Run(ctx, cfg)
	}
	if err := atomicfile.CheckWritable("records", records); err != nil {
		return nil, err
	}
	s := atomicfile.NewStream(records)
	cfg.OnRecord = result.NewRecordWriter(s).Write
	res, err = Run(ctx, cfg)
	if res == nil {
		s.Abort()
		return nil, err
	}
	if cerr := s.Close(); err == nil && cerr != nil {
		err = &RecordsError{Err: cerr}
	}
	return res, err
}
