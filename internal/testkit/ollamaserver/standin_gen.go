package ollamaserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// genRequest is the part of a completions or chat request the stand-in
// reads.
type genRequest struct {
	Model    string          `json:"model"`
	Prompt   json.RawMessage `json:"prompt"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens     int  `json:"max_tokens"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Logprobs json.RawMessage `json:"logprobs"`
}

// answer is one generation: its pieces, whether the repeat limit cut it
// and the token counts.
type answer struct {
	pieces      []string
	cut         bool
	prompt, out int
}

func (s *StandIn) generate(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		apiError(w, 400, "invalid_request_error", err.Error())
		return
	}
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.seen = append(s.seen, Seen{Path: r.URL.Path, Body: body})
	s.mu.Unlock()
	chat := r.URL.Path == "/v1/chat/completions"
	var req genRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		apiError(w, 400, "invalid_request_error", err.Error())
		return
	}
	text, ok := promptText(&req, chat)
	if !ok {
		apiError(w, 400, "invalid_request_error", TokenPromptError)
		return
	}
	m, ok := s.model(req.Model)
	if !ok {
		apiError(w, 404, "not_found_error", fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	a := s.run(text, req.MaxTokens, m.Raw)
	if req.Stream {
		s.stream(w, &req, chat, a)
		return
	}
	writeJSON(w, 200, whole(&req, chat, a))
}

// promptText is the request's prompt as one text; false for a prompt
// that is not a string (Ollama's completions take strings only).
func promptText(req *genRequest, chat bool) (string, bool) {
	if chat {
		var b strings.Builder
		for _, m := range req.Messages {
			b.WriteString(m.Content + " ")
		}
		return b.String(), true
	}
	var p string
	if len(req.Prompt) > 0 && json.Unmarshal(req.Prompt, &p) != nil {
		return "", false
	}
	return p, true
}

// run generates the answer to text under the limit maxTokens (0: the
// context).
func (s *StandIn) run(text string, maxTokens int, raw bool) answer {
	a := answer{prompt: len(strings.Fields(text)) + 1}
	if !raw {
		a.prompt += TemplateTokens
	}
	limit := maxTokens
	if limit <= 0 {
		limit = s.Context
		if limit <= 0 {
			limit = 200
		}
	}
	for i := range limit {
		if strings.Contains(text, RepeatTrigger) {
			if i == repeatLimit+1 {
				a.cut = true
				break
			}
			a.pieces = append(a.pieces, "ợ")
			continue
		}
		a.pieces = append(a.pieces, " w"+strconv.Itoa(i))
	}
	a.out = len(a.pieces)
	return a
}

// whole is the non-streaming answer.
func whole(req *genRequest, chat bool, a answer) map[string]any {
	text := strings.Join(a.pieces, "")
	var finish any = "length"
	usage := map[string]int{"prompt_tokens": a.prompt, "completion_tokens": a.out, "total_tokens": a.prompt + a.out}
	if a.cut {
		finish, usage = nil, map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
	}
	choice := map[string]any{"index": 0, "finish_reason": finish}
	obj := "text_completion"
	if chat {
		obj = "chat.completion"
		choice["message"] = map[string]any{"role": "assistant", "content": text}
		if string(req.Logprobs) == "true" {
			var content []map[string]any
			for _, p := range a.pieces {
				content = append(content, map[string]any{"token": p, "logprob": -9.5, "bytes": []byte(p)})
			}
			choice["logprobs"] = map[string]any{"content": content}
		}
	} else {
		choice["text"] = text
	}
	return map[string]any{"id": "cmpl-1", "object": obj, "created": 1796173491, "model": req.Model,
		"system_fingerprint": "fp_ollama", "choices": []any{choice}, "usage": usage}
}

// stream writes the answer as server-sent events.
func (s *StandIn) stream(w http.ResponseWriter, req *genRequest, chat bool, a answer) {
	w.Header().Set("Content-Type", "text/event-stream")
	usage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	zero := map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
	obj := "text_completion"
	if chat {
		obj = "chat.completion.chunk"
	}
	send := func(choices []any, u map[string]int) {
		c := map[string]any{"id": "cmpl-1", "object": obj, "created": 1796173491, "choices": choices,
			"model": req.Model, "system_fingerprint": "fp_ollama"}
		if u != nil {
			c["usage"] = u
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	piece := func(text string, finish any) []any {
		ch := map[string]any{"index": 0, "finish_reason": finish}
		if chat {
			ch["delta"] = map[string]any{"role": "assistant", "content": text}
		} else {
			ch["text"] = text
		}
		return []any{ch}
	}
	var u map[string]int
	if usage {
		u = zero
	}
	for _, p := range a.pieces {
		send(piece(p, nil), u)
	}
	if a.cut {
		return // the repeat limit: no finish_reason, no [DONE]
	}
	send(piece("", "length"), u)
	if usage {
		send([]any{}, map[string]int{"prompt_tokens": a.prompt, "completion_tokens": a.out, "total_tokens": a.prompt + a.out})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}
