package benchmark

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
)

// TestInterruptedSweepStepIsMarked: the step an interrupt cuts short is
// kept in the result, marked incomplete, and never decides saturation.
func TestInterruptedSweepStepIsMarked(t *testing.T) {
	s := (&fakeengine.Server{Delay: 2 * time.Millisecond}).Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := Config{URL: s.URL, Engine: "vllm", Model: "m", Workload: fakeengine.Workload(40, 4, true),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1, Drain: result.DrainCancel}, SweepKind: result.ModeConcurrency, SweepValues: []float64{1, 2, 4}}
	cfg.OnRecord = func(r *result.Record) error {
		if r.Step == 1 {
			cancel() // the second step is interrupted after its first request
		}
		return nil
	}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sw := res.Sweep
	if !res.Incomplete || len(sw.Steps) != 2 || sw.Steps[0].Incomplete || !sw.Steps[1].Incomplete {
		t.Fatalf("incomplete %v, steps %d: %+v", res.Incomplete, len(sw.Steps), sw.Steps)
	}
	if sw.SaturationAt != nil || sw.Saturated {
		t.Fatalf("saturation at %v from a sweep with one complete step", *sw.SaturationAt)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "step 2 (concurrency 2) was interrupted") {
		t.Fatalf("warnings %q", res.Warnings)
	}
}
