package check

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/testkit/ollamaserver"
)

// standIn serves h until the test ends and returns its URL.
func standIn(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// ollamaWorkload is a text prompt, one that trips the repeat limit and a
// chat message, each asking for 4 tokens.
func ollamaWorkload() *workload.Workload {
	return &workload.Workload{Path: "w.jsonl", SHA256: "x", Requests: []workload.Request{
		{ID: "text", Prompt: "four score and seven", MaxTokens: 4},
		{ID: "repeat", Prompt: ollamaserver.RepeatTrigger + " " + ollamaserver.RepeatTrigger, MaxTokens: 40},
		{ID: "chat", Messages: []workload.Message{{Role: "user", Content: "hello"}}, MaxTokens: 4},
	}}
}

// TestCheckOllama: each side is detected as Ollama; chat asks with
// max_tokens (honoured), so no request runs to the context; an answer the
// repeat limit cut is a truncated failure on both sides, never a success
// with 0/0 tokens; the repeat penalty is noted for a model without
// repeat_penalty 1 only.
func TestCheckOllama(t *testing.T) {
	si := ollamaserver.NewStandIn()
	si.Models[0].NoPenalty = true
	url := standIn(t, si)
	rep, err := Run(context.Background(), Target{URL: url, Model: ollamaserver.Templated}, Target{URL: url, Model: ollamaserver.Raw}, ollamaWorkload(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.A.Engine != "ollama" || rep.B.Engine != "ollama" {
		t.Fatalf("styles %s, %s", rep.A.Engine, rep.B.Engine)
	}
	for _, s := range si.Seen() {
		if msgs := s.Body["messages"]; msgs != nil && (s.Body["max_tokens"] != 4.0 || s.Body["max_completion_tokens"] != nil) {
			t.Errorf("chat body %v", s.Body)
		}
	}
	r := rep.Requests[1]
	for _, o := range []struct {
		side string
		ok   bool
		err  string
	}{{"A", r.A.OK, r.A.Error}, {"B", r.B.OK, r.B.Error}} {
		if o.ok || !strings.HasPrefix(o.err, "truncated: the answer ended without a finish_reason (engine ollama ends a generation that repeats one piece of text more than 30 times") {
			t.Errorf("repeat on %s: ok %v, %q", o.side, o.ok, o.err)
		}
	}
	if rep.Summary.Failed != 1 || rep.Requests[2].B.CompletionTokens != 4 {
		t.Errorf("summary %+v; chat %+v", rep.Summary, rep.Requests[2].B)
	}
	notes := strings.Join(rep.Notes, "\n")
	if !strings.Contains(notes, "engine B (ollama) applies a repeat penalty of 1.1 (its default)") || strings.Contains(notes, "engine A") {
		t.Errorf("notes %q", rep.Notes)
	}
}

// TestCheckSetupErrors: what stops a check before its requests, per
// side, as a *client.SetupError: no model among several, token-id
// prompts for an engine that takes text only, and (an engine whose
// prompt forms are not known) a refusal of the first token-id prompt.
func TestCheckSetupErrors(t *testing.T) {
	si := ollamaserver.NewStandIn()
	url := standIn(t, si)
	hidden := standIn(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			http.NotFound(w, r)
			return
		}
		si.ServeHTTP(w, r)
	}))
	ids := &workload.Workload{Requests: []workload.Request{{ID: "q", Prompt: "a b", MaxTokens: 2}, {ID: "t", PromptTokens: []int{5, 6}, MaxTokens: 2}}}
	for _, tc := range []struct {
		name string
		a, b Target
		w    *workload.Workload
		want string
		sent int
	}{
		{"no model", Target{URL: url, Model: "tiny"}, Target{URL: url}, ollamaWorkload(),
			"the server at " + url + " serves 2 models (tiny:latest, tiny-raw:latest) and none was chosen: name one with --model or --model-b", 0},
		{"token ids", Target{URL: url, Model: "tiny"}, Target{URL: url, Model: "tiny"}, ids,
			"engine A at " + url + ": engine ollama takes only text prompts on /v1/completions, and 1 request(s) of the workload are token ids", 0},
		{"refused", Target{URL: url, Model: "tiny", Engine: "vllm"}, Target{URL: hidden, Model: "tiny"}, ids,
			// q on both, t on A, t on B twice (auto: vLLM's extras, then plain)
			"engine B at " + hidden + " refused the workload's first token-id prompt (HTTP 400: ", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(si.Seen())
			rep, err := Run(context.Background(), tc.a, tc.b, tc.w, Options{})
			var se *client.SetupError
			if rep != nil || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want %q", rep, err, tc.want)
			}
			if n := len(si.Seen()) - before; n != tc.sent {
				t.Errorf("%d requests sent, want %d", n, tc.sent)
			}
		})
	}
}
