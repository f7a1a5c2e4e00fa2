package benchmark

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
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
// (digest, template kind, weights file), not the first one listed. With
// no model named and two served, the run stops before any request and
// lists them.
func TestOllamaDetection(t *testing.T) {
	si := ollamaserver.NewStandIn()
	url := standIn(t, si)
	for _, tc := range []struct {
		model, digest, template string
	}{
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
	before := len(si.Seen())
	_, err := Run(context.Background(), Config{URL: url, Engine: engine.Auto, Workload: textWorkload(2, 4, 3, 0),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1}})
	var se *client.SetupError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "serves 2 models (tiny:latest, tiny-raw:latest)") ||
		!strings.Contains(err.Error(), "--model") || len(si.Seen()) != before {
		t.Errorf("no model among two: %v; %d requests sent", err, len(si.Seen())-before)
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

// TestOllamaTokenPrompts: a workload of token-id prompts stops before
// any request is sent, with the one line that says what to do (in the
// caller's terms when it gives them); the stand-in's HTTP 400 message is
// the dialect's.
func TestOllamaTokenPrompts(t *testing.T) {
	si := ollamaserver.NewStandIn()
	url := standIn(t, si)
	for _, how := range []string{"", "workload.random: {tokenizer: FILE, prompt: text}"} {
		res, err := Run(context.Background(), Config{URL: url, Engine: engine.Auto, Model: ollamaserver.Raw, Workload: fakeengine.Workload(3, 4, false),
			Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2, Warmup: 2}, TextWorkloadHow: how})
		var se *client.SetupError
		want := "engine ollama takes only text prompts on /v1/completions, and 3 request(s) of the workload are token ids: make a text or chat workload (" +
			cmp.Or(how, engine.TextWorkloadHow) + ")"
		if res != nil || !errors.As(err, &se) || err.Error() != want {
			t.Errorf("got %v, %v; want %q", res, err, want)
		}
	}
	if n := len(si.Seen()); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
	if engine.OllamaTokenPromptError != ollamaserver.TokenPromptError {
		t.Error("the stand-in's message is not the dialect's")
	}
}

// hiddenOllama is an Ollama stand-in whose own API does not answer, as
// behind a proxy that passes the OpenAI routes only: detection finds a
// plain OpenAI-compatible server.
func hiddenOllama(si *ollamaserver.StandIn) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			http.NotFound(w, r)
			return
		}
		si.ServeHTTP(w, r)
	})
}

// TestTokenPromptPreflight: an engine whose prompt forms are not known
// gets one short token-id request before the load; its HTTP 400 stops
// the run with the line that says what to do, quoting the server's
// reason. An engine that takes it is measured as usual.
func TestTokenPromptPreflight(t *testing.T) {
	si := ollamaserver.NewStandIn()
	url := standIn(t, hiddenOllama(si))
	res, err := Run(context.Background(), Config{URL: url, Engine: engine.Auto, Model: ollamaserver.Raw, Workload: fakeengine.Workload(3, 4, false),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2, Warmup: 2}})
	var se *client.SetupError
	if res != nil || !errors.As(err, &se) {
		t.Fatalf("got %v, %v", res, err)
	}
	for _, w := range []string{"engine openai at " + url + " refused a token-id prompt before the load (http_400: " + engine.OllamaTokenPromptError + ")",
		"3 request(s) of the workload are token ids", engine.TextWorkloadHow} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err, w)
		}
	}
	seen := si.Seen()
	if len(seen) != 1 || seen[0].Body["max_tokens"] != 1.0 {
		t.Errorf("pre-flight sent %d requests: %v", len(seen), seen)
	}
	fe := (&fakeengine.Server{}).Start(t)
	res, err = Run(context.Background(), Config{URL: fe.URL, Engine: string(engine.OpenAI), Model: "m", Workload: fakeengine.Workload(3, 4, false),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2}})
	if err != nil || res.Summary.RequestsOK != 3 {
		t.Fatalf("an engine that takes token ids: %v, %+v", err, res)
	}
}

// TestOllamaNoMetricsScrape: the default metrics endpoint is not scraped
// on an engine that has none, and the result notes it once; a URL the
// caller named is scraped (and its failure warned about).
func TestOllamaNoMetricsScrape(t *testing.T) {
	url := standIn(t, ollamaserver.NewStandIn())
	cfg := Config{URL: url, Engine: engine.Auto, Model: ollamaserver.Raw, Workload: textWorkload(2, 4, 3, 0),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1}, Metrics: MetricsConfig{URL: url + "/metrics", Default: true}}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"server metrics: not scraped (engine ollama has no metrics endpoint)"}
	if !slices.Equal(res.Notes, want) || slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "metrics") }) || res.ServerMetrics != nil {
		t.Errorf("notes %q, warnings %q", res.Notes, res.Warnings)
	}
	cfg.Metrics.Default = false
	if res, err = Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 0 || !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "server metrics") }) {
		t.Errorf("a named endpoint: notes %q, warnings %q", res.Notes, res.Warnings)
	}
}
