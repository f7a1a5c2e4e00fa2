package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/testkit/ollamaserver"
)

// standIn serves h (an Ollama stand-in, or a variant of one).
func standIn(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// TestOllamaGivenEngine: with --engine ollama the version comes from the
// dialect's version path, asked once.
func TestOllamaGivenEngine(t *testing.T) {
	c := New(Options{BaseURL: standIn(t, ollamaserver.NewStandIn())})
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
		c := New(Options{BaseURL: standIn(t, h)})
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
	c := New(Options{BaseURL: standIn(t, h)})
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

// TestOllamaRequestBodies: what the benchmark sends Ollama: max_tokens
// on both routes, no ignore_eos, min_tokens, top_k or continuous usage.
func TestOllamaRequestBodies(t *testing.T) {
	topK := 5
	var warned []string
	for _, r := range []workload.Request{
		{ID: "c", Prompt: "a b", MaxTokens: 4, FixedLength: true, Sampling: workload.Sampling{TopK: &topK}},
		{ID: "m", Messages: []workload.Message{{Role: "user", Content: "a b"}}, MaxTokens: 4},
	} {
		p, err := Prepare(&r, "tiny", string(engine.Ollama), func(s string) { warned = append(warned, s) })
		if err != nil {
			t.Fatal(err)
		}
		b := string(p.Body)
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
