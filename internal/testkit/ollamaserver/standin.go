package ollamaserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Facts of the stand-in, chosen to match the real engine's answers for
// the shared tiny model (Ollama 0.24.0).
const (
	// StandInVersion is what GET /api/version answers.
	StandInVersion = "0.24.0"
	// TemplateTokens is how many tokens the default (ChatML-like)
	// template of Templated adds around a prompt: 60 tokens for a text
	// that llama.cpp's server counts as 33, 29 for the chat message
	// "hello".
	TemplateTokens = 27
	// RepeatTrigger in a prompt makes the stand-in repeat one piece of
	// text until the repeat limit stops it, as the shared tiny model does
	// on tiny-raw for "contained" said eight times.
	RepeatTrigger = "contained contained"
	// TokenPromptError is the message of the HTTP 400 for a token-id
	// prompt (the same as engine.OllamaTokenPromptError; the kit does not
	// import the engine package).
	TokenPromptError = "json: cannot unmarshal array into Go struct field CompletionRequest.prompt of type string"
	// repeatLimit: more repeats than this end the generation.
	repeatLimit = 30
)

// StandInModel is one model the stand-in serves.
type StandInModel struct {
	Name   string // as /api/tags and /v1/models list it, e.g. "tiny:latest"
	Digest string // 64 hex
	Raw    bool   // template "{{ .Prompt }}": no tokens added to a prompt
	// NoPenalty sets PARAMETER repeat_penalty 1 (/api/show lists it);
	// the stand-in's outputs do not depend on it.
	NoPenalty bool
}

// StandIn is an http.Handler that answers as Ollama's server does, for
// unit tests without the engine: /api/version, /api/tags, /api/show,
// /v1/models, and /v1/completions and /v1/chat/completions, streaming or
// not, with Ollama's quirks: a token-id prompt is an HTTP 400; chat
// honours max_tokens and ignores max_completion_tokens (the answer then
// runs to Context tokens); completions drop logprobs; a stream asked for
// usage carries all-zero usage on every chunk and the real counts on a
// last chunk without choices; a prompt holding RepeatTrigger repeats one
// piece until the 31st, where the answer ends with no finish_reason and
// no [DONE] (non-streaming: finish_reason null, usage zero). A prompt
// counts one token per blank-separated word plus one (BOS), plus
// TemplateTokens unless the model is Raw. Output pieces are one token
// each.
type StandIn struct {
	Models  []StandInModel
	Context int // tokens an answer without an honoured limit runs to; 0 means 200

	mu   sync.Mutex
	seen []Seen
}

// Seen is one request the stand-in received on an OpenAI route.
type Seen struct {
	Path string
	Body map[string]any
}

// NewStandIn returns a stand-in serving Templated and Raw.
func NewStandIn() *StandIn {
	return &StandIn{Models: []StandInModel{
		{Name: Templated + ":latest", Digest: strings.Repeat("c9", 32)},
		{Name: Raw + ":latest", Digest: strings.Repeat("0a", 32), Raw: true},
	}}
}

// Seen returns the requests received on the OpenAI routes so far.
func (s *StandIn) Seen() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// ServeHTTP answers one request.
func (s *StandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method + " " + r.URL.Path {
	case "GET /":
		io.WriteString(w, "Ollama is running")
	case "GET /api/version":
		writeJSON(w, 200, map[string]string{"version": StandInVersion})
	case "GET /api/tags":
		s.tags(w)
	case "POST /api/show":
		s.show(w, r)
	case "GET /v1/models":
		s.models(w)
	case "POST /v1/completions", "POST /v1/chat/completions":
		s.generate(w, r)
	default:
		http.Error(w, "404 page not found", http.StatusNotFound)
	}
}

func (s *StandIn) tags(w http.ResponseWriter) {
	var ms []map[string]any
	for _, m := range s.Models {
		ms = append(ms, map[string]any{"name": m.Name, "model": m.Name, "digest": m.Digest, "size": 18161082,
			"details": map[string]any{"format": "gguf", "family": "llama", "parameter_size": "8.72M", "quantization_level": "F16"}})
	}
	writeJSON(w, 200, map[string]any{"models": ms})
}

func (s *StandIn) models(w http.ResponseWriter) {
	var data []map[string]any
	for _, m := range s.Models {
		data = append(data, map[string]any{"id": m.Name, "object": "model", "created": 1796173473, "owned_by": "library"})
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": data})
}

// model finds a served model; a name without a tag means NAME:latest.
func (s *StandIn) model(name string) (StandInModel, bool) {
	for _, m := range s.Models {
		if m.Name == name || m.Name == name+":latest" {
			return m, true
		}
	}
	return StandInModel{}, false
}

func (s *StandIn) show(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
	}
	_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req)
	m, ok := s.model(req.Model)
	if !ok {
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
		return
	}
	tmpl := "{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}<|im_start|>assistant\n"
	if m.Raw {
		tmpl = "{{ .Prompt }}"
	}
	params := "num_ctx                        4096\nnum_thread                     1"
	if m.NoPenalty {
		params += "\nrepeat_penalty                 1"
	}
	writeJSON(w, 200, map[string]any{
		"template":   tmpl,
		"parameters": params,
		"details":    map[string]any{"parent_model": "/models/blobs/sha256-" + strings.Repeat("12", 32), "format": "gguf"},
	})
}

// apiError writes an OpenAI-style error as Ollama's OpenAI routes do.
func apiError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
