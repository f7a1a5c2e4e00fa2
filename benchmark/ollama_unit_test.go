package benchmark

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
	"github.com/servecmp/servecmp/internal/testkit/ollamaserver"
)

// standIn serves h (an Ollama stand-in, or a variant of one).
func standIn(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// textWorkload is n text prompts of words words each asking for out
// tokens at temperature 0, the first rep of them holding the repeat
// trigger ("contained" said words times: the shared tiny model repeats
// one piece after it).
func textWorkload(n, words, out, rep int) *workload.Workload {
	zero := 0.0
	w := &workload.Workload{Path: "text.jsonl", SHA256: "t"}
	for i := range n {
		p := strings.TrimSpace(strings.Repeat(fmt.Sprintf("w%d ", i), words))
		if i < rep {
			p = strings.TrimSpace(strings.Repeat("contained ", words))
		}
		w.Requests = append(w.Requests, workload.Request{ID: fmt.Sprintf("r%02d", i), Prompt: p, MaxTokens: out,
			Sampling: workload.Sampling{Temperature: &zero}})
	}
	return w
}

// runOllama benchmarks model at url with w at concurrency 2, detecting
// the engine, within a minute.
func runOllama(t *testing.T, url, model string, w *workload.Workload) (*result.Result, map[string]result.Record) {
	t.Helper()
	var mu sync.Mutex
	recs := map[string]result.Record{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{
		URL: url, Engine: engine.Auto, Model: model, Workload: w, Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2},
		OnRecord: func(r *result.Record) error { mu.Lock(); recs[r.ID] = *r; mu.Unlock(); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, recs
}

// TestOllamaDetection: auto detection names Ollama from /api/version and
// /api/tags, records its version, and describes the model the run sends
// (digest, template kind, weights file), not the first one listed.
func TestOllamaDetection(t *testing.T) {
	url := standIn(t, ollamaserver.NewStandIn())
	for _, tc := range []struct {
		model, digest, template string
	}{
		{"", strings.Repeat("c9", 32), "wrapped"}, // the first listed: tiny:latest
		{"tiny-raw", strings.Repeat("0a", 32), "raw"},
		{"tiny:latest", strings.Repeat("c9", 32), "wrapped"},
	} {
		res, _ := runOllama(t, url, tc.model, textWorkload(2, 4, 3, 0))
		m := res.Manifest
		if m.Engine != "ollama" || m.EngineVersion != ollamaserver.StandInVersion || !strings.Contains(m.EngineDetectedFrom, "/api/version") {
			t.Fatalf("model %q: engine %q version %q detected from %q", tc.model, m.Engine, m.EngineVersion, m.EngineDetectedFrom)
		}
		x := m.Extra
		if x["ollama_digest"] != tc.digest || x["ollama_template"] != tc.template || x["model_file_sha256"] != strings.Repeat("12", 32) ||
			x["ollama_num_ctx"] != "4096" || x["quantization_level"] != "F16" || len(x["ollama_template_sha256"]) != 64 {
			t.Errorf("model %q: extra %v", tc.model, x)
		}
	}
}

// TestOllamaStandInBenchmark: text prompts are measured with the counts
// of the last chunk's usage (the all-zero usage of the content chunks is
// no count), the templated model reports TemplateTokens more prompt
// tokens than the raw one for the same text, and an answer the repeat
// limit cut is a truncated stream, not a success.
func TestOllamaStandInBenchmark(t *testing.T) {
	url := standIn(t, ollamaserver.NewStandIn())
	w := textWorkload(6, 5, 8, 0)
	prompt := map[string]int{}
	for _, model := range []string{ollamaserver.Raw, ollamaserver.Templated} {
		res, recs := runOllama(t, url, model, w)
		s := res.Summary
		if s.RequestsOK != 6 || s.RequestsFailed != 0 || s.OutputTokens != 48 || s.ChunkTokenMismatches != 0 {
			t.Fatalf("%s: %d ok %d failed, %d output tokens", model, s.RequestsOK, s.RequestsFailed, s.OutputTokens)
		}
		for _, r := range recs {
			if !r.UsageReported || r.CompletionTokens != 8 || len(r.ChunkTokens) != 8 {
				t.Fatalf("%s %s: usage %v, %d tokens in %d chunks %v", model, r.ID, r.UsageReported, r.CompletionTokens, len(r.ChunkTokens), r.ChunkTokens)
			}
		}
		prompt[model] = recs["r00"].PromptTokens
	}
	if prompt[ollamaserver.Raw] != 6 || prompt[ollamaserver.Templated]-prompt[ollamaserver.Raw] != ollamaserver.TemplateTokens {
		t.Errorf("prompt tokens %v", prompt)
	}
	res, recs := runOllama(t, url, ollamaserver.Raw, textWorkload(3, 8, 40, 1))
	r := recs["r00"]
	if r.OK || r.ErrorClass != result.ClassTruncated || !strings.Contains(r.Error, "without [DONE] or a finish_reason") || res.Summary.RequestsOK != 2 {
		t.Errorf("repeat-cut answer: ok %v class %q error %q; %d ok", r.OK, r.ErrorClass, r.Error, res.Summary.RequestsOK)
	}
}

// TestOllamaTokenPrompts: today token-id prompts reach Ollama and each
// fails with its HTTP 400 (the message kept in the record); this is the
// behaviour a pre-flight check must replace by one line before the load.
func TestOllamaTokenPrompts(t *testing.T) {
	url := standIn(t, ollamaserver.NewStandIn())
	res, recs := runOllama(t, url, ollamaserver.Raw, fakeengine.Workload(3, 4, false))
	if res.Summary.RequestsFailed != 3 {
		t.Fatalf("%d failed", res.Summary.RequestsFailed)
	}
	for _, r := range recs {
		if r.ErrorClass != "http_400" || r.Error != engine.OllamaTokenPromptError {
			t.Errorf("%s: %q %q", r.ID, r.ErrorClass, r.Error)
		}
	}
	if engine.OllamaTokenPromptError != ollamaserver.TokenPromptError {
		t.Error("the stand-in's message is not the dialect's")
	}
}
