package benchmark

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
	"github.com/servecmp/servecmp/internal/testkit/ollamaserver"
)

// TestOllamaEngine starts Ollama from the shared engines folder and checks
// what a user meets: detection (engine, version, per-model digest,
// template kind and the weights file's SHA-256, which must be the shared
// model file's), a small benchmark of string prompts on both models (the
// templated one reports TemplateTokens more prompt tokens per request),
// an answer cut by the repeat limit counted as truncated, and token-id
// prompts refused with the message the dialect names.
func TestOllamaEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	srv := ollamaserver.Start(t, ollamaserver.Options{Parallel: 2})
	weights := fileSHA256(t, ollamaserver.ModelPath())
	digests := map[string]string{}
	prompt := map[string]map[string]int{}
	for _, tc := range []struct{ model, template string }{{ollamaserver.Raw, "raw"}, {ollamaserver.Templated, "wrapped"}} {
		res, recs := runOllama(t, srv.URL, tc.model, textWorkload(6, 12, 8, 0))
		m := res.Manifest
		if m.Engine != "ollama" || !regexp.MustCompile(`^\d+\.\d+\.\d+`).MatchString(m.EngineVersion) {
			t.Fatalf("%s: engine %q version %q (%s)", tc.model, m.Engine, m.EngineVersion, m.EngineDetectedFrom)
		}
		x := m.Extra
		if !isHex64Test(x["ollama_digest"]) || x["ollama_template"] != tc.template || x["model_file_sha256"] != weights {
			t.Errorf("%s: extra %v, want template %s and weights %s", tc.model, x, tc.template, weights)
		}
		digests[tc.model] = x["ollama_digest"]
		s := res.Summary
		if s.RequestsOK != 6 || s.ChunkTokenMismatches != 0 {
			t.Fatalf("%s: %d ok, %d failed %v, %d chunk mismatches", tc.model, s.RequestsOK, s.RequestsFailed, s.FailedByClass, s.ChunkTokenMismatches)
		}
		prompt[tc.model] = map[string]int{}
		for id, r := range recs {
			if !r.UsageReported || r.CompletionTokens < 1 || r.CompletionTokens > 8 || r.CompletionTokens != len(r.ChunkTokens) {
				t.Errorf("%s %s: usage %v, %d tokens in %d chunks", tc.model, id, r.UsageReported, r.CompletionTokens, len(r.ChunkTokens))
			}
			prompt[tc.model][id] = r.PromptTokens
		}
		t.Logf("%s: ttft p50 %.1f ms, tpot p50 %.2f ms, %d input tokens", tc.model, s.TTFT.P50, s.TPOT.P50, s.InputTokens)
	}
	if digests[ollamaserver.Raw] == digests[ollamaserver.Templated] {
		t.Errorf("both models have digest %s", digests[ollamaserver.Raw])
	}
	for id, raw := range prompt[ollamaserver.Raw] {
		if d := prompt[ollamaserver.Templated][id] - raw; d != ollamaserver.TemplateTokens {
			t.Errorf("%s: templated − raw prompt tokens = %d, want %d", id, d, ollamaserver.TemplateTokens)
		}
	}
	_, recs := runOllama(t, srv.URL, ollamaserver.Raw, textWorkload(1, 8, 40, 1))
	if r := recs["r00"]; r.OK || r.ErrorClass != result.ClassTruncated || len(r.ChunkTimesMs) != engine.OllamaRepeatLimit+1 {
		t.Errorf("repeat-cut answer: ok %v class %q, %d chunks (%s)", r.OK, r.ErrorClass, len(r.ChunkTimesMs), r.Error)
	}
	_, err := Run(context.Background(), Config{URL: srv.URL, Engine: engine.Auto, Model: ollamaserver.Raw, Workload: fakeengine.Workload(1, 4, false),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1}})
	var se *client.SetupError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "engine ollama takes only text prompts") {
		t.Errorf("token-id workload: %v", err)
	}
	_, err = Run(context.Background(), Config{URL: srv.URL, Engine: engine.Auto, Workload: textWorkload(1, 4, 2, 0),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1}})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "serves 2 models") {
		t.Errorf("no model among two: %v", err)
	}
	// Ollama's own API hidden: a plain OpenAI-compatible server, whose
	// answer to one token-id prompt before the load stops the run.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			http.NotFound(w, r)
			return
		}
		httputil.NewSingleHostReverseProxy(mustURL(t, srv.URL)).ServeHTTP(w, r)
	}))
	defer proxy.Close()
	_, err = Run(context.Background(), Config{URL: proxy.URL, Engine: engine.Auto, Model: ollamaserver.Raw, Workload: fakeengine.Workload(1, 4, false),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1}})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "refused a token-id prompt before the load (http_400: "+engine.OllamaTokenPromptError) {
		t.Errorf("pre-flight: %v", err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// isHex64Test reports whether s is a SHA-256 in lowercase hex.
func isHex64Test(s string) bool { return regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(s) }
