package profile_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/analysis"
	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/profile"
	"github.com/servecmp/servecmp/rules"
	"github.com/servecmp/servecmp/servesim"
)

// simWorkload is n fixed-length requests with distinct token prompts.
func simWorkload(n, in, out int) *workload.Workload {
	w := &workload.Workload{Path: "sim.jsonl", SHA256: "0"}
	for i := range n {
		p := make([]int, in)
		for j := range p {
			p[j] = 100 + (i*7919+j*31)%30000
		}
		w.Requests = append(w.Requests, workload.Request{ID: fmt.Sprint("r", i), PromptTokens: p, MaxTokens: out, FixedLength: true})
	}
	return w
}

// simServer serves serve-sim imitating engine, with its profiler writing
// to dir ("" = no profiler).
func simServer(t *testing.T, engine, dir string) *httptest.Server {
	t.Helper()
	cfg := servesim.DefaultConfig()
	cfg.EngineName, cfg.ProfileDir = engine, dir
	sim := servesim.New(cfg)
	srv := httptest.NewServer(sim)
	t.Cleanup(func() { sim.Close(); srv.Close() })
	return srv
}

// simTruth reads the "serve_sim" object of a serve-sim trace.
func simTruth(t *testing.T, path string) (tokens, busyNs int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SimTruth struct {
			Tokens int64 `json:"window_output_tokens"`
			Busy   int64 `json:"busy_ns"`
		} `json:"serve_sim"`
	}
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.SimTruth.Tokens, doc.SimTruth.Busy
}

// TestEndToEnd: serve-sim with a profiler, profile at concurrency 16 with
// a 2 s window, then analyze --work-from: the window's output tokens are
// within 2% of serve-sim's count (the tokens in flight at the window's
// two edges, which a loaded machine delays, measured up to 1.01%) and busy time per output token within 5%
// of serve-sim's truth.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 3 s of simulated load")
	}
	for _, engine := range []string{"vllm", "sglang"} {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			traces := filepath.Join(dir, "traces")
			srv := simServer(t, engine, traces)
			cfg := benchmark.Config{URL: srv.URL, Workload: simWorkload(2000, 32, 64),
				Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 16, Warmup: 16}}
			res, err := profile.Run(context.Background(), cfg, profile.Options{After: 500 * time.Millisecond, For: 2 * time.Second, TraceDir: traces})
			if err != nil {
				t.Fatal(err)
			}
			b := res.Profile
			if len(b.Files) != 1 {
				t.Fatalf("trace files %v, want one (warnings %v)", b.Files, res.Warnings)
			}
			if d := b.DurationS(); d < 2 || d > 2.5 {
				t.Errorf("window %.3f s, want about 2 s", d)
			}
			if res.Phases.Steady.EndS < b.StopS {
				t.Errorf("sending stopped at %.3f s, before the stop call at %.3f s", res.Phases.Steady.EndS, b.StopS)
			}
			out := filepath.Join(dir, "result.json")
			data, _ := json.Marshal(res)
			if err := os.WriteFile(out, data, 0o644); err != nil {
				t.Fatal(err)
			}
			opts, err := analysis.Flags{WorkFrom: out}.Options()
			if err != nil {
				t.Fatal(err)
			}
			rep, err := analysis.Run(context.Background(), []analysis.Input{{Path: b.Files[0]}}, rules.Default(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Ranks) != 1 {
				t.Fatalf("%d ranks, want 1", len(rep.Ranks))
			}
			r := rep.Ranks[0]
			tokens, busy := simTruth(t, b.Files[0])
			if r.Work == nil || r.Work.From != out {
				t.Fatalf("rank work %+v, want from %s", r.Work, out)
			}
			got := r.Work.OutputTokens
			t.Logf("window %.3f s: client %d output tokens, serve-sim %d; busy %d ns (trace %d ns); warnings %v",
				b.DurationS(), got, tokens, r.DeviceWorkBusyNs, busy, rep.Warnings)
			if rel := math.Abs(float64(got-tokens)) / float64(tokens); rel > 0.02 {
				t.Errorf("output tokens in the window: %d, serve-sim counted %d (%.2f%% off, want ≤ 2%%)", got, tokens, rel*100)
			}
			perTok, truth := float64(r.DeviceWorkBusyNs)/float64(got), float64(busy)/float64(tokens)
			if rel := math.Abs(perTok-truth) / truth; rel > 0.05 {
				t.Errorf("busy per output token %.0f ns, serve-sim's truth %.0f ns (%.2f%% off, want ≤ 5%%)", perTok, truth, rel*100)
			}
			for _, w := range rep.Warnings {
				if strings.Contains(w, "profile window recorded") {
					t.Errorf("span warning on a matching window: %s", w)
				}
			}
		})
	}
}
