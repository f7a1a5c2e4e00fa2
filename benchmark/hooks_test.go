package benchmark

import (
	"context"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
)

// TestSendUntil: OnStart sees each measured step's t=0 before its first
// send (never the warmup's), and closing SendUntil stops sending as a
// reached deadline would: the requests in flight finish, the rest are
// not sent and the run is not incomplete.
func TestSendUntil(t *testing.T) {
	for _, mode := range []result.Mode{result.ModeConcurrency, result.ModeRate} {
		t.Run(string(mode), func(t *testing.T) {
			f := &fakeengine.Server{Delay: 2 * time.Millisecond}
			srv := f.Start(t)
			until := make(chan struct{})
			var starts []int
			var t0 time.Time
			cfg := Config{URL: srv.URL, Workload: fakeengine.Workload(2000, 5, true), SendUntil: until,
				Load: result.LoadPolicy{Mode: mode, Concurrency: 4, Rate: 200, Arrival: result.ArrivalConstant, Warmup: 2},
				OnStart: func(step int, at time.Time) {
					starts, t0 = append(starts, step), at
					time.AfterFunc(300*time.Millisecond, func() { close(until) })
				}}
			var firstSend time.Time
			cfg.OnRecord = func(r *result.Record) error {
				if at := t0.Add(time.Duration(r.SentS * 1e9)); firstSend.IsZero() || at.Before(firstSend) {
					firstSend = at
				}
				return nil
			}
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(starts) != 1 || starts[0] != 0 {
				t.Fatalf("OnStart calls %v, want one for step 0", starts)
			}
			if firstSend.Before(t0) {
				t.Errorf("first send %v before t0", firstSend.Sub(t0))
			}
			sent := res.Phases.Steady.RequestsSent
			if res.Incomplete || sent == 0 || sent >= 2000 {
				t.Errorf("incomplete %v, %d sent: want a complete run cut short", res.Incomplete, sent)
			}
			if end := res.Phases.Steady.EndS; end < 0.29 || end > 0.5 {
				t.Errorf("sending stopped at %.3f s, want about 0.3 s", end)
			}
		})
	}
}
