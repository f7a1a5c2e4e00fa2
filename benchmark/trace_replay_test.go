package benchmark

import (
	"bytes"
	"context"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/testkit/tracegen"
	"github.com/servecmp/servecmp/servesim"
)

// traceWorkload generates a Mooncake trace of spec and returns its
// replay workload at time scale scale.
func traceWorkload(t testing.TB, spec tracegen.Spec, scale float64) *workload.Workload {
	t.Helper()
	var buf bytes.Buffer
	if err := tracegen.WriteMooncake(&buf, spec); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := workload.ReadTrace(context.Background(), path, workload.TraceSpec{Format: workload.TraceMooncake, BlockSize: spec.BlockSize, TimeScale: scale, FixedLength: true})
	if err != nil {
		t.Fatal(err)
	}
	var wl bytes.Buffer
	if _, err := tr.WriteTo(context.Background(), &wl); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Parse("trace-wl.jsonl", wl.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// replaySim replays w on its own schedule against sim, scraping its
// metrics every 50 ms.
func replaySim(t testing.TB, sim *servesim.Server, w *workload.Workload) *result.Result {
	t.Helper()
	s := httptest.NewServer(sim)
	t.Cleanup(s.Close)
	c := client.New(client.Options{BaseURL: s.URL, Conns: 64})
	t.Cleanup(c.Close)
	res, err := Run(context.Background(), Config{Client: c, Engine: "vllm", Model: "sim-model", Workload: w,
		Load:    result.LoadPolicy{Mode: result.ModeTrace, Drain: result.DrainWait},
		Metrics: MetricsConfig{URL: s.URL + "/metrics", Every: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTraceReplayPrefixReuse is the end-to-end check: a Mooncake
// trace replayed on its own schedule against serve-sim, whose prefix
// cache (16-token blocks, unbounded here) starts empty, serves close to
// the share of prompt tokens the trace implies, and the result reports
// both without a warning. Replayed again on the warm cache it serves far
// more and says so; a workload that claims more reuse than the engine
// gives is called out too.
func TestTraceReplayPrefixReuse(t *testing.T) {
	spec := tracegen.Spec{Requests: 300, DurationS: 60, Seed: 2, BlockSize: 64, NewShare: 0.35, SystemPrompts: 4,
		DocMean: 300, UserMean: 80, OutMean: 4, MaxInput: 4000}
	w := traceWorkload(t, spec, 0.02)
	implied := w.Header.Trace.ImpliedPrefixReuseShare
	sim := servesim.New(servesim.Config{EOSProb: -1})
	t.Cleanup(sim.Close)
	res := replaySim(t, sim, w)
	s := res.Summary
	if res.Load.Mode != result.ModeTrace || s.RequestsOK != len(w.Requests) || s.ImpliedReuseShare == nil || *s.ImpliedReuseShare != implied {
		t.Fatalf("mode %s, %d ok of %d, implied %v (header %v)", res.Load.Mode, s.RequestsOK, len(w.Requests), s.ImpliedReuseShare, implied)
	}
	served := res.ServerMetrics.PrefixCacheHitRate
	if served == nil {
		t.Fatal("no prefix-cache hit rate scraped")
	}
	// serve-sim caches whole 16-token blocks and recomputes a fully
	// cached prompt's last block: it serves a little less than the
	// token-exact implied share, never more.
	if *served > implied+1e-9 || *served < implied-0.03 {
		t.Errorf("serve-sim served %.4f of the prompt tokens from its cache, the trace implies %.4f", *served, implied)
	}
	for _, msg := range res.Warnings {
		if strings.Contains(msg, "prefix cache") {
			t.Errorf("warning on a matching replay: %s", msg)
		}
	}
	t.Logf("implied %.4f, served %.4f; send lag p50 %.3f p99 %.3f max %.3f ms over %d requests", implied, *served, s.SendLag.P50, s.SendLag.P99, s.SendLag.Max, s.SendLag.Count)

	again := replaySim(t, sim, w)
	if !hasWarning(again, "warm from earlier runs") {
		t.Errorf("a replay on the warm cache (served %v) did not warn: %q", *again.ServerMetrics.PrefixCacheHitRate, again.Warnings)
	}
	// Conversations that never continue share only their system prompts;
	// a header claiming three times that is called out.
	spec.NewShare, spec.Requests = 1, 60
	claims := traceWorkload(t, spec, 0.02)
	tr := *claims.Header.Trace
	tr.ImpliedPrefixReuseShare = math.Min(1, 3*tr.ImpliedPrefixReuseShare)
	claims.Header.Trace = &tr
	fresh := servesim.New(servesim.Config{EOSProb: -1})
	t.Cleanup(fresh.Close)
	if low := replaySim(t, fresh, claims); !hasWarning(low, "far less than") {
		t.Errorf("serving a third of the claimed reuse (%v) did not warn: %q", tr.ImpliedPrefixReuseShare, low.Warnings)
	}
}

func hasWarning(r *result.Result, part string) bool {
	for _, w := range r.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

// TestReuseWarning: the thresholds of the comparison.
func TestReuseWarning(t *testing.T) {
	for _, tc := range []struct {
		served, implied float64
		want            string
	}{
		{0.40, 0.42, ""}, {0.22, 0.42, ""}, {0.20, 0.42, "far less"}, {0.0, 0.01, ""}, {0.0, 0.3, "far less"},
		{0.46, 0.42, ""}, {0.48, 0.42, "more than"}, {0.9, 0.0, "more than"},
	} {
		got := reuseWarning(tc.served, tc.implied, "x")
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("served %v implied %v: %q", tc.served, tc.implied, got)
		}
	}
}
