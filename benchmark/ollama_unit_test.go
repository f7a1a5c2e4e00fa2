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
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/ollamaserver"
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
func runOllama(t *testing.T, url, model string, w *workload.Workload) (*Result, map[string]Record) {
	t.Helper()
	var mu sync.Mutex
	recs := map[string]Record{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{
		URL: url, Engine: engine.Auto, Model: model, Workload: w, Load: LoadPolicy{Mode: ModeConcurrency, Concurrency: 2},
		OnRecord: func(r *Record) error { mu.Lock(); recs[r.ID] = *r; mu.Unlock(); return nil },
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

// TestOllamaGivenEngine: with --engine ollama the version comes from the
// dialect's version path, asked once.
func TestOllamaGivenEngine(t *testing.T) {
	c := NewClient(ClientOptions{BaseURL: standIn(t, ollamaserver.NewStandIn())})
	info, err := c.Detect(context.Background(), string(engine.Ollama))
	if err != nil || info.Engine != "ollama" || info.Version != ollamaserver.StandInVersion ||
		info.DetectedBy != "given by --engine; GET /api/version; GET /api/tags (Ollama)" || info.Extra["ollama_template"] != "wrapped" {
		t.Fatalf("%+v %v", info, err)
	}
}

// TestOllamaDetectionNeedsBothEndpoints: a server that answers
// /api/version but not /api/tags (or lists something else there) is not
// taken for Ollama.
func TestOllamaDetectionNeedsBothEndpoints(t *testing.T) {
	for _, tags := range []string{"", `{"data":[]}`, `not json`} {
		si := ollamaserver.NewStandIn()
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/tags" {
				if tags == "" {
					http.NotFound(w, r)
				} else {
					fmt.Fprint(w, tags)
				}
				return
			}
			si.ServeHTTP(w, r)
		})
		c := NewClient(ClientOptions{BaseURL: standIn(t, h)})
		info, err := c.Detect(context.Background(), engine.Auto)
		if err != nil || info.Engine != string(engine.OpenAI) || info.Version != "" || info.Extra != nil {
			t.Errorf("tags %q: %+v, %v", tags, info, err)
		}
	}
}

// TestOllamaDetectionBounds: what a hostile server puts in the version,
// digest and model details is bounded or dropped.
func TestOllamaDetectionBounds(t *testing.T) {
	long := strings.Repeat("x", 10000)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"m","owned_by":"library"}]}`)
		case "/api/version":
			fmt.Fprintf(w, `{"version":%q}`, long)
		case "/api/tags":
			fmt.Fprintf(w, `{"models":[{"name":"m:latest","digest":"../../etc","details":{"family":%q}}]}`, long)
		case "/api/show":
			fmt.Fprintf(w, `{"template":%q,"parameters":"num_ctx -1\nnum_ctx x","details":{"parent_model":"sha256-zz"}}`, long)
		default:
			http.NotFound(w, r)
		}
	})
	c := NewClient(ClientOptions{BaseURL: standIn(t, h)})
	info, err := c.Detect(context.Background(), engine.Auto)
	if err != nil || info.Engine != "ollama" {
		t.Fatalf("%+v %v", info, err)
	}
	if len(info.Version) > maxOllamaValue+4 || len(info.Extra["model_family"]) > maxOllamaValue+4 {
		t.Errorf("unbounded: version %d bytes, family %d bytes", len(info.Version), len(info.Extra["model_family"]))
	}
	for _, k := range []string{"ollama_digest", "model_file_sha256", "ollama_num_ctx"} {
		if v, ok := info.Extra[k]; ok {
			t.Errorf("%s = %q kept", k, v)
		}
	}
	if info.Extra["ollama_template"] != "wrapped" {
		t.Errorf("template kind %q", info.Extra["ollama_template"])
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
	if r.OK || r.ErrorClass != ClassTruncated || !strings.Contains(r.Error, "without [DONE] or a finish_reason") || res.Summary.RequestsOK != 2 {
		t.Errorf("repeat-cut answer: ok %v class %q error %q; %d ok", r.OK, r.ErrorClass, r.Error, res.Summary.RequestsOK)
	}
}

// TestOllamaTokenPrompts: today token-id prompts reach Ollama and each
// fails with its HTTP 400 (the message kept in the record); this is the
// behaviour a pre-flight check must replace by one line before the load.
func TestOllamaTokenPrompts(t *testing.T) {
	url := standIn(t, ollamaserver.NewStandIn())
	res, recs := runOllama(t, url, ollamaserver.Raw, testWorkload(3, 4, false))
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

// TestOllamaRequestBodies: what the benchmark sends Ollama: max_tokens
// on both routes, no ignore_eos, min_tokens, top_k or continuous usage.
func TestOllamaRequestBodies(t *testing.T) {
	topK := 5
	var warned []string
	for _, r := range []workload.Request{
		{ID: "c", Prompt: "a b", MaxTokens: 4, FixedLength: true, Sampling: workload.Sampling{TopK: &topK}},
		{ID: "m", Messages: []workload.Message{{Role: "user", Content: "a b"}}, MaxTokens: 4},
	} {
		p, err := buildBody(&r, "tiny", string(engine.Ollama), func(s string) { warned = append(warned, s) })
		if err != nil {
			t.Fatal(err)
		}
		b := string(p.body)
		for _, bad := range []string{"ignore_eos", "min_tokens", "top_k", "continuous_usage_stats", "max_completion_tokens"} {
			if strings.Contains(b, bad) {
				t.Errorf("%s: body %s sends %s", r.ID, b, bad)
			}
		}
		if !strings.Contains(b, `"max_tokens":4`) || !strings.Contains(b, `"include_usage":true`) {
			t.Errorf("%s: body %s", r.ID, b)
		}
	}
	if len(warned) != 2 {
		t.Errorf("warnings %q, want top_k and fixed length", warned)
	}
}
