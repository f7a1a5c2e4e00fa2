package benchmark

import (
	"context"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/testkit/tracegen"
	"github.com/servecmp/servecmp/servesim"
)

// BenchmarkTraceReplay replays a trace of the Mooncake conversation
// trace's shape (SERVECMP_TRACE_REQUESTS requests, default 12,000, an
// hour) at SERVECMP_TRACE_SCALE (default 0.02: 72 s) against an
// in-process serve-sim (256 sequences, 5 ms decode steps: it sleeps
// between steps, as one with no delays would not), and reports how late each request
// was sent relative to its offset (send lag p50, p99, max in ms) and the
// cached share served next to the implied one. Run it on demand:
//
//	go test -run '^$' -bench '^BenchmarkTraceReplay$' -benchtime 1x ./benchmark
func BenchmarkTraceReplay(b *testing.B) {
	n, scale := 12000, 0.02
	if v, err := strconv.Atoi(os.Getenv("SERVECMP_TRACE_REQUESTS")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.ParseFloat(os.Getenv("SERVECMP_TRACE_SCALE"), 64); err == nil && v > 0 {
		scale = v
	}
	t0 := time.Now()
	w := traceWorkload(b, tracegen.Conversation(n, 1), scale)
	b.Logf("workload: %d requests built and parsed in %.1f s", len(w.Requests), time.Since(t0).Seconds())
	for b.Loop() {
		sim := servesim.New(servesim.Config{EOSProb: -1, MaxRunning: 256, PrefillPerToken: time.Microsecond,
			DecodeBase: 5 * time.Millisecond, DecodePerSeq: 20 * time.Microsecond})
		s := httptest.NewServer(sim)
		c := client.New(client.Options{BaseURL: s.URL, Conns: 256})
		res, err := Run(context.Background(), Config{Client: c, Engine: "vllm", Model: "sim-model", Workload: w,
			Load: result.LoadPolicy{Mode: result.ModeTrace, Drain: result.DrainWait}, Metrics: MetricsConfig{URL: s.URL + "/metrics"}})
		c.Close()
		s.Close()
		sim.Close()
		if err != nil {
			b.Fatal(err)
		}
		sl := res.Summary.SendLag
		b.ReportMetric(sl.P50, "lag_p50_ms")
		b.ReportMetric(sl.P99, "lag_p99_ms")
		b.ReportMetric(sl.Max, "lag_max_ms")
		b.ReportMetric(float64(res.Summary.RequestsOK), "ok")
		b.ReportMetric(w.Header.Trace.ImpliedPrefixReuseShare, "implied")
		if hr := res.ServerMetrics.PrefixCacheHitRate; hr != nil {
			b.ReportMetric(*hr, "served")
		}
		b.Logf("warnings: %q", res.Warnings)
	}
}
