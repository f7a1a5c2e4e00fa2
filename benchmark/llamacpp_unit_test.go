package benchmark

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
)

// llamaProps is /props as llama-server answers it (trimmed).
const llamaProps = `{"default_generation_settings":{"params":{"n_predict":-1},"n_ctx":1024},"total_slots":4,` +
	`"model_path":"tiny-llama-2L128.gguf","build_info":"b0-unknown","bos_token":"<s>","eos_token":"</s>"}`

func TestDetectLlamaCpp(t *testing.T) {
	for _, tc := range []struct {
		name, ownedBy, engine string
	}{
		{"owned_by", "llamacpp", "auto"},
		{"props only", "someone", "auto"},
		{"given", "llamacpp", "llamacpp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := raw(t, func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/v1/models":
					fmt.Fprintf(w, `{"data":[{"id":"tiny","owned_by":%q}]}`, tc.ownedBy)
				case "/props":
					fmt.Fprint(w, llamaProps)
				default:
					http.NotFound(w, r)
				}
			})
			info, err := client.New(client.Options{BaseURL: url}).Detect(context.Background(), tc.engine)
			if err != nil || info.Engine != "llamacpp" || info.Version != "b0-unknown" || info.Model != "tiny" {
				t.Fatalf("%+v %v", info, err)
			}
			want := map[string]string{"llamacpp_slots": "4", "model_file": "tiny-llama-2L128.gguf", "context_per_slot": "1024"}
			if fmt.Sprint(info.Extra) != fmt.Sprint(want) || !strings.Contains(info.DetectedBy, "/props") {
				t.Errorf("extra %v detected by %q", info.Extra, info.DetectedBy)
			}
		})
	}
}

func TestResetLlamaSlots(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		want   string
		erased int
	}{
		{"no slot-save-path", 501, "--cache-ram 0 --no-cache-prompt", 1},
		{"erased", 200, "erased the KV cache of all 4 slots", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			erased := 0
			url := raw(t, func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/props":
					fmt.Fprint(w, llamaProps)
				case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/slots/") && r.URL.Query().Get("action") == "erase":
					erased++
					w.WriteHeader(tc.status)
					fmt.Fprint(w, `{"error":{"code":501,"message":"This server does not support slots action."}}`)
				default:
					http.NotFound(w, r)
				}
			})
			err := client.New(client.Options{BaseURL: url}).ResetPrefixCache(context.Background(), "llamacpp")
			if err == nil || !strings.Contains(err.Error(), tc.want) || erased != tc.erased {
				t.Fatalf("err %v after %d erases", err, erased)
			}
		})
	}
}

func TestSummaryCachedTimingsEOS(t *testing.T) {
	ptr := func(n int) *int { return &n }
	recs := []result.Record{
		{ID: "a", OK: true, TTFTMs: 5, E2EMs: 14, ChunkTimesMs: []float64{5, 8, 11, 14}, ChunkTokens: []int{1, 1, 1, 1},
			PromptTokens: 10, CompletionTokens: 4, UsageReported: true, FinishReason: "length", CachedTokens: ptr(8),
			ServerTimings: &result.ServerTimings{PromptMs: 4, PredictedN: 4, PredictedMs: 8.7, PredictedPerTokenMs: 2.175}},
		// stopped at EOS: usage counts 3, two tokens were streamed
		{ID: "b", OK: true, TTFTMs: 2, E2EMs: 5, ChunkTimesMs: []float64{2, 5}, ChunkTokens: []int{1, 1},
			PromptTokens: 10, CompletionTokens: 3, UsageReported: true, FinishReason: "stop", CachedTokens: ptr(0), Retried: true},
		{ID: "c", OK: false, ErrorClass: result.ClassConnection, Retried: true},
		// a token streamed as "": three content chunks, one empty, usage 4
		{ID: "d", OK: true, TTFTMs: 1, E2EMs: 3, ChunkTimesMs: []float64{1, 2, 3}, ChunkTokens: []int{1, 1, 1}, EmptyChunks: 1,
			PromptTokens: 10, CompletionTokens: 4, UsageReported: true, FinishReason: "length"},
		// coalesced: two chunks, usage 4, nothing empty
		{ID: "e", OK: true, TTFTMs: 1, E2EMs: 3, ChunkTimesMs: []float64{1, 3}, ChunkTokens: []int{1, 1},
			PromptTokens: 10, CompletionTokens: 4, UsageReported: true, FinishReason: "length"},
	}
	s := result.NewSummary(recs, 0, true)
	if s.Retried != 2 || s.EOSNotStreamed != 1 || s.EmptyTextTokens != 1 || s.ChunkTokenMismatches != 1 {
		t.Errorf("retried %d, eos %d, empty text %d, chunk mismatches %d", s.Retried, s.EOSNotStreamed, s.EmptyTextTokens, s.ChunkTokenMismatches)
	}
	if s.CachedShare == nil || *s.CachedShare != 0.4 || s.CachedTokens != 8 || s.CachedReported != 2 {
		t.Errorf("cached %v %d %d", s.CachedShare, s.CachedTokens, s.CachedReported)
	}
	tc := s.ServerTimings
	if tc == nil || tc.Requests != 1 {
		t.Fatalf("timing check %+v", tc)
	}
	// client TPOT = (14−5)/3 = 3; server per token 2.175, per gap 8.7/3 = 2.9
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !near(tc.TTFTMinusPromptMs.Mean, 1) || !near(tc.TPOTMinusServerMs.Mean, 0.825) || !near(tc.TPOTMinusServerGapMs.Mean, 0.1) {
		t.Errorf("ttft %v tpot %v gap %v", tc.TTFTMinusPromptMs.Mean, tc.TPOTMinusServerMs.Mean, tc.TPOTMinusServerGapMs.Mean)
	}
	// Retries, EOS accounting and empty-text tokens are the engine's
	// ways, stated by the summary, not warnings; a 40% cache share is
	// below the warning's threshold.
	var w warnings
	requestWarnings(&w, &s, 0)
	if all := w.all(); len(all) != 0 {
		t.Errorf("warnings %q", all)
	}
	high := 0.9
	s.CachedShare = &high
	w = warnings{}
	requestWarnings(&w, &s, 0.875) // a shared prefix explains it
	if all := w.all(); len(all) != 0 {
		t.Errorf("warnings %q for a cache share the workload's prefix explains", all)
	}
	requestWarnings(&w, &s, 0)
	if all := strings.Join(w.all(), "\n"); !strings.Contains(all, "prompt cache served 90.0%") {
		t.Errorf("warnings %q", all)
	}
	if result.NewSummary(recs[1:2], 0, true).ServerTimings != nil {
		t.Error("timing check without server timings")
	}
}

func TestNoCacheHits(t *testing.T) {
	zero, some := 0.0, 0.2
	step := func(share *float64, cached int64, reported, ok int) result.SweepStep {
		return result.SweepStep{Summary: result.Summary{CachedShare: share, CachedTokens: cached, CachedReported: reported, RequestsOK: ok}}
	}
	for _, tc := range []struct {
		name    string
		steps   []result.SweepStep
		allowed float64
		want    bool
	}{
		{"no steps", nil, 0, false},
		{"none cached", []result.SweepStep{step(&zero, 0, 4, 4), step(&zero, 0, 4, 4)}, 0, true},
		{"some cached", []result.SweepStep{step(&zero, 0, 4, 4), step(&some, 3, 4, 4)}, 0.05, false},
		{"cached, as the workload's own prefixes explain", []result.SweepStep{step(&zero, 0, 4, 4), step(&some, 3, 4, 4)}, 0.25, true},
		{"not reported", []result.SweepStep{step(nil, 0, 0, 4)}, 1, false},
		{"partly reported", []result.SweepStep{step(&zero, 0, 3, 4)}, 1, false},
	} {
		if got := noCacheHits(tc.steps, tc.allowed); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
