package ollamaserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// shape is what a test of servecmp relies on in one answer.
type shape struct {
	Status       int
	Error        string // error.message, or error when a string
	Events       int    // data events before [DONE] (streams)
	Done         bool   // [DONE] seen
	Finish       string // the last finish_reason seen ("" none)
	ZeroUsage    bool   // every chunk with choices carried an all-zero usage
	PromptTokens int    // final usage
	OutTokens    int
	Logprobs     bool // the answer carries logprobs
}

var client = &http.Client{Timeout: 60 * time.Second}

// ask sends body to url+path and reads the answer's shape.
func ask(t *testing.T, url, path, body string) shape {
	t.Helper()
	resp, err := client.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	sh := shape{Status: resp.StatusCode, ZeroUsage: true}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sh.ZeroUsage = false
		readChunk(b, &sh, false)
		return sh
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		switch {
		case !ok:
		case data == "[DONE]":
			sh.Done = true
		default:
			sh.Events++
			readChunk([]byte(data), &sh, true)
		}
	}
	return sh
}

func readChunk(b []byte, sh *shape, stream bool) {
	var c struct {
		Error   json.RawMessage `json:"error"`
		Choices []struct {
			FinishReason *string         `json:"finish_reason"`
			Logprobs     json.RawMessage `json:"logprobs"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(b, &c) != nil {
		sh.Error = "not JSON"
		return
	}
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(c.Error, &e) == nil && e.Message != "" {
		sh.Error = e.Message
	} else if len(c.Error) > 0 {
		_ = json.Unmarshal(c.Error, &sh.Error)
	}
	for _, ch := range c.Choices {
		if ch.FinishReason != nil {
			sh.Finish = *ch.FinishReason
		}
		if len(ch.Logprobs) > 0 && string(ch.Logprobs) != "null" {
			sh.Logprobs = true
		}
	}
	if c.Usage != nil {
		sh.PromptTokens, sh.OutTokens = c.Usage.PromptTokens, c.Usage.CompletionTokens
	}
	if stream && len(c.Choices) > 0 && (c.Usage == nil || c.Usage.PromptTokens != 0 || c.Usage.CompletionTokens != 0) {
		sh.ZeroUsage = false
	}
}

const repeatPrompt = "contained contained contained contained contained contained contained contained"

// cases are requests whose answers' shapes the stand-in must share with
// the engine: prompt tokens, finish, usage chunks, the repeat cut, the
// 400 on token ids, logprobs dropped on completions, unknown models.
var cases = []struct {
	name, path, body string
}{
	{"text", "/v1/completions", `{"model":"tiny-raw","prompt":"a b c","max_tokens":3,"temperature":0,"logprobs":1}`},
	{"text templated", "/v1/completions", `{"model":"tiny","prompt":"a b c","max_tokens":3,"temperature":0}`},
	{"stream usage", "/v1/completions", `{"model":"tiny-raw","prompt":"a b c","max_tokens":3,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}`},
	{"stream plain", "/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hello"}],"max_tokens":3,"temperature":0,"stream":true}`},
	{"chat logprobs", "/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hello"}],"max_tokens":3,"temperature":0,"logprobs":true}`},
	{"token ids", "/v1/completions", `{"model":"tiny-raw","prompt":[1,2,3],"max_tokens":3}`},
	{"unknown model", "/v1/completions", `{"model":"nope","prompt":"a","max_tokens":3}`},
	{"repeat stream", "/v1/completions", `{"model":"tiny-raw","prompt":"` + repeatPrompt + `","max_tokens":100,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}`},
	{"repeat whole", "/v1/completions", `{"model":"tiny-raw","prompt":"` + repeatPrompt + `","max_tokens":100,"temperature":0}`},
}

// TestStandIn: the stand-in's answers, as the tests of servecmp rely on
// them.
func TestStandIn(t *testing.T) {
	s := httptest.NewServer(NewStandIn())
	defer s.Close()
	want := map[string]shape{
		"text":           {Status: 200, Finish: "length", PromptTokens: 4, OutTokens: 3},
		"text templated": {Status: 200, Finish: "length", PromptTokens: 4 + TemplateTokens, OutTokens: 3},
		"stream usage":   {Status: 200, Events: 5, Done: true, Finish: "length", ZeroUsage: true, PromptTokens: 4, OutTokens: 3},
		"stream plain":   {Status: 200, Events: 4, Done: true, Finish: "length", ZeroUsage: false},
		"chat logprobs":  {Status: 200, Finish: "length", PromptTokens: 2 + TemplateTokens, OutTokens: 3, Logprobs: true},
		"token ids":      {Status: 400, Error: TokenPromptError},
		"unknown model":  {Status: 404, Error: "model 'nope' not found"},
		"repeat stream":  {Status: 200, Events: repeatLimit + 1, ZeroUsage: true},
		"repeat whole":   {Status: 200},
	}
	for _, c := range cases {
		if got := ask(t, s.URL, c.path, c.body); got != want[c.name] {
			t.Errorf("%s: %+v, want %+v", c.name, got, want[c.name])
		}
	}
	// Chat ignores max_completion_tokens: the answer runs to the context.
	got := ask(t, s.URL, "/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"x"}],"max_completion_tokens":3}`)
	if got.OutTokens != 200 {
		t.Errorf("max_completion_tokens honoured: %+v", got)
	}
	if n := len(NewStandIn().Seen()); n != 0 {
		t.Errorf("a fresh stand-in has seen %d requests", n)
	}
}

// TestStandInAgreesWithEngine sends the cases to the real engine and to
// the stand-in: every shape must agree, except the prompt token counts
// of the stand-in's one-token-per-word rule, of which only the templated
// model's surplus must agree.
func TestStandInAgreesWithEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	srv := Start(t, Options{Parallel: 1})
	s := httptest.NewServer(NewStandIn())
	defer s.Close()
	prompt := map[string]int{}
	for _, c := range cases {
		real, fake := ask(t, srv.URL, c.path, c.body), ask(t, s.URL, c.path, c.body)
		prompt[c.name] = real.PromptTokens
		real.PromptTokens, fake.PromptTokens = 0, 0
		if real != fake {
			t.Errorf("%s: engine %+v, stand-in %+v", c.name, real, fake)
		}
	}
	if d := prompt["text templated"] - prompt["text"]; d != TemplateTokens {
		t.Errorf("the template adds %d tokens, the stand-in %d", d, TemplateTokens)
	}
}
