package profile

import (
	"context"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/atomicfile"
)

// RunRecorded is Run with every measured request's record appended, as
// one JSON line, to the file records as the request ends
// (atomicfile.Stream, as benchmark.RunRecorded); records "" means Run
// alone. A run that gave a result keeps its records even when the
// profiler failed; one that gave none leaves no new file. recErr is the
// error writing the records; it names the file.
func RunRecorded(ctx context.Context, cfg benchmark.Config, o Options, records string) (res *Result, runErr, recErr error) {
	if records == "" {
		res, runErr = Run(ctx, cfg, o)
		return res, runErr, nil
	}
	if err := atomicfile.CheckWritable("records", records); err != nil {
		return nil, err, nil
	}
	s := atomicfile.NewStream(records)
	return RunStream(ctx, cfg, o, s)
}

// RunStream is RunRecorded into a stream the caller made (a run's step
// folder); it closes the stream.
func RunStream(ctx context.Context, cfg benchmark.Config, o Options, s *atomicfile.Stream) (res *Result, runErr, recErr error) {
	rw := result.NewRecordWriter(s)
	cfg.OnRecord = func(r *result.Record) error {
		err := rw.Write(r)
		if err != nil && recErr == nil {
			recErr = err // Run serialises its OnRecord calls
		}
		return err
	}
	if res, runErr = Run(ctx, cfg, o); res == nil {
		s.Abort()
		return nil, runErr, nil
	}
	if cerr := s.Close(); recErr == nil {
		recErr = cerr
	}
	return res, runErr, recErr
}
