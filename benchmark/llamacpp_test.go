package benchmark

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/testkit/llamaserver"
)

// llamaWorkload is n token-id prompts of 16 to 48 tokens asking for out
// tokens each.
func llamaWorkload(t *testing.T, n, out int, fixed bool) *workload.Workload {
	t.Helper()
	in, _ := workload.ParseLength("16:48")
	ol, _ := workload.ParseLength(fmt.Sprint(out))
	reqs, err := workload.Random(workload.RandomSpec{Num: n, InputLen: in, OutputLen: ol, Seed: 11, FixedLength: fixed})
	if err != nil {
		t.Fatal(err)
	}
	return &workload.Workload{Path: "llama.jsonl", SHA256: "x", Requests: reqs}
}

// llamaRun benchmarks url with w at concurrency conc, scraping /metrics.
func llamaRun(t *testing.T, url string, w *workload.Workload, conc int) (*result.Result, []result.Record) {
	t.Helper()
	var mu sync.Mutex
	var recs []result.Record
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{
		URL: url, Engine: "auto", Workload: w, Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: conc, Warmup: 2},
		Metrics:  MetricsConfig{URL: url + "/metrics", Every: 200 * time.Millisecond},
		OnRecord: func(r *result.Record) error { mu.Lock(); recs = append(recs, *r); mu.Unlock(); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, recs
}

func metric(sm *result.ServerMetrics, name string) *result.ServerMetric {
	if sm == nil {
		return nil
	}
	for i := range sm.Metrics {
		if sm.Metrics[i].Name == name {
			return &sm.Metrics[i]
		}
	}
	return nil
}

// TestLlamaCppBenchmark runs llama.cpp's server (four slots, no prompt
// cache) at concurrency 1 and 8: no request may fail, fixed lengths are
// exact, the dialect and server metrics are recognised and the client's
// clock agrees with the engine's.
func TestLlamaCppBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	srv := llamaserver.Start(t, 4, "--cache-ram", "0", "--no-cache-prompt")
	w := llamaWorkload(t, 260, 6, true)
	total := 0
	for _, conc := range []int{1, 8} {
		res, recs := llamaRun(t, srv.URL, w, conc)
		s := res.Summary
		total += s.RequestsOK
		if s.RequestsFailed != 0 || s.RequestsOK != len(w.Requests) {
			t.Fatalf("concurrency %d: %d ok, %d failed %v", conc, s.RequestsOK, s.RequestsFailed, s.FailedByClass)
		}
		m := res.Manifest
		if m.Engine != "llamacpp" || m.EngineVersion == "" || m.Extra["llamacpp_slots"] != "4" || m.Extra["model_file"] == "" || m.Extra["context_per_slot"] != "1024" {
			t.Errorf("manifest: engine %q version %q extra %v", m.Engine, m.EngineVersion, m.Extra)
		}
		if s.ChunkTokenMismatches != 0 {
			t.Errorf("concurrency %d: %d requests with unexplained chunk token counts", conc, s.ChunkTokenMismatches)
		}
		if s.LengthMismatches != 0 || s.OutputTokens != int64(6*len(w.Requests)) {
			t.Errorf("concurrency %d: %d length mismatches, %d output tokens: ignore_eos not honoured", conc, s.LengthMismatches, s.OutputTokens)
		}
		for _, r := range recs {
			if st := r.ServerTimings; st == nil || r.TTFTMs < st.PromptMs || r.CachedTokens == nil {
				t.Fatalf("%s: ttft %.3f ms, server timings %+v, cached %v", r.ID, r.TTFTMs, st, r.CachedTokens)
			}
		}
		gen := metric(res.ServerMetrics, "generation_tokens")
		if gen == nil || gen.Increase == nil || *gen.Increase < float64(s.OutputTokens) {
			t.Errorf("concurrency %d: generation_tokens %+v, want an increase of at least %d", conc, gen, s.OutputTokens)
		}
		for _, name := range []string{"prompt_tokens", "requests_running", "requests_waiting"} {
			if metric(res.ServerMetrics, name) == nil {
				t.Errorf("concurrency %d: server metric %s not recorded", conc, name)
			}
		}
		tc := s.ServerTimings
		if tc == nil || tc.Requests != s.RequestsOK {
			t.Fatalf("concurrency %d: timing check %+v", conc, tc)
		}
		t.Logf("concurrency %d: %d ok, retried %d; ttft−prompt_ms mean %.3f p50 %.3f p99 %.3f; tpot−per_token mean %.4f; tpot−gap mean %.4f p50 %.4f (tpot mean %.4f)",
			conc, s.RequestsOK, s.Retried, tc.TTFTMinusPromptMs.Mean, tc.TTFTMinusPromptMs.P50, tc.TTFTMinusPromptMs.P99,
			tc.TPOTMinusServerMs.Mean, tc.TPOTMinusServerGapMs.Mean, tc.TPOTMinusServerGapMs.P50, s.TPOT.Mean)
	}
	if total < 500 {
		t.Errorf("%d requests in all, want at least 500", total)
	}
}

// TestLlamaCppCachedShare runs the same prompts twice against a server
// with llama.cpp's default prompt cache and one without: the cached share
// of the second run is reported in both, high (and warned about: the
// prompts were cached by the first run, which the workload's own distinct
// prompts do not explain) only with the cache on.
func TestLlamaCppCachedShare(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	w := llamaWorkload(t, 12, 4, true)
	for _, tc := range []struct {
		name   string
		args   []string
		cached bool
	}{
		{"cache on", nil, true},
		{"cache off", []string{"--cache-ram", "0", "--no-cache-prompt"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llamaserver.Start(t, 1, tc.args...)
			llamaRun(t, srv.URL, w, 1) // fills the cache, if there is one
			res, _ := llamaRun(t, srv.URL, w, 1)
			s := res.Summary
			if s.CachedShare == nil || s.CachedReported != len(w.Requests) {
				t.Fatalf("cached share not reported: %+v of %d", s.CachedShare, s.CachedReported)
			}
			warned := strings.Contains(strings.Join(res.Warnings, "\n"), "prompt cache served")
			if high := *s.CachedShare > CachedShareWarn; high != tc.cached || warned != tc.cached {
				t.Errorf("cached share %.3f, warned %v; want high and warned = %v (%q)", *s.CachedShare, warned, tc.cached, res.Warnings)
			}
			t.Logf("%s: cached share %.3f (%d tokens)", tc.name, *s.CachedShare, s.CachedTokens)
		})
	}
}

// TestLlamaCppResetPrefixCache: without --slot-save-path the reset is
// refused, and the warning says why and what to do instead; with it the
// slots are erased and the warning says the host prompt cache survives.
func TestLlamaCppResetPrefixCache(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	plain := llamaserver.Start(t, 2)
	c := client.New(client.Options{BaseURL: plain.URL})
	defer c.Close()
	err := c.ResetPrefixCache(context.Background(), "llamacpp")
	if err == nil || !strings.Contains(err.Error(), "--slot-save-path") || !strings.Contains(err.Error(), "--cache-ram 0") {
		t.Errorf("reset without --slot-save-path: %v", err)
	}
	saving := llamaserver.Start(t, 2, "--slot-save-path", t.TempDir())
	c2 := client.New(client.Options{BaseURL: saving.URL})
	defer c2.Close()
	err = c2.ResetPrefixCache(context.Background(), "llamacpp")
	if err == nil || !strings.Contains(err.Error(), "erased the KV cache of all 2 slots") {
		t.Errorf("reset with --slot-save-path: %v", err)
	}
}
