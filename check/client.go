package check

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/internal/httppolicy"
	"github.com/servecmp/servecmp/internal/redact"
)

// maxAnswerBody bounds one non-streaming answer (bytes): far above any
// answer with logprobs a check asks for.
const maxAnswerBody = 64 << 20

// Target is one engine under check.
type Target struct {
	URL    string // base URL, e.g. http://127.0.0.1:8000
	Model  string
	Engine string // engine.Auto or one of engine.Names; "" means auto
}

// Options tune Run.
type Options struct {
	Seed    int64
	Timeout time.Duration // per request; 0 means 120 s
	Client  *http.Client  // nil means a client with the one policy (internal/httppolicy)
	// APIKey is sent as a bearer token to both engines; it is scrubbed
	// from every error text kept in the report and never recorded.
	APIKey string
	// Progress, when set, is called after each request (1-based index).
	Progress func(done, total int)
	// TextWorkloadHow says, in the caller's terms, how to make a text
	// workload, for the engines that take no token-id prompts ("" is
	// engine.TextWorkloadHow).
	TextWorkloadHow string
}

// Run sends every request of w to a and then to b, one at a time, and
// compares the answers. When ctx is cancelled it stops early and returns
// what it has, marked Incomplete: the request in flight at the interrupt
// is left out (its failure is the interrupt's, not an engine's). URLs in
// the report carry no credentials.
func Run(ctx context.Context, a, b Target, w *workload.Workload, opt Options) (*checkreport.Report, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = 120 * time.Second
	}
	if opt.Client == nil {
		opt.Client = httppolicy.Client(httppolicy.Options{})
	}
	ca := &engineClient{t: a, opt: opt, style: style(a.Engine)}
	cb := &engineClient{t: b, opt: opt, style: style(b.Engine)}
	for _, s := range []struct {
		side string
		c    *engineClient
	}{{"A", ca}, {"B", cb}} {
		if err := s.c.prepare(ctx, s.side, w); err != nil {
			return nil, err
		}
	}
	rep := &checkreport.Report{
		Schema:    checkreport.Schema,
		StartedAt: time.Now().UTC(),
		Workload:  checkreport.WorkloadInfo{Path: w.Path, SHA256: w.SHA256, Count: len(w.Requests)},
		Seed:      opt.Seed,
		Quality:   checkreport.Quality{Status: "not-run"},
	}
	var err error
	firstTokens := true
	for i := range w.Requests {
		req := &w.Requests[i]
		var oa, ob checkreport.Output
		if ctx.Err() == nil {
			oa = ca.ask(ctx, req)
			ob = cb.ask(ctx, req)
		}
		if err := cmp.Or(ca.refusedTokens("A", req, firstTokens, oa.Error), cb.refusedTokens("B", req, firstTokens, ob.Error)); err != nil {
			return nil, err
		}
		firstTokens = firstTokens && req.Kind() != workload.KindTokens
		if err = ctx.Err(); err != nil {
			rep.Incomplete = true
			rep.Notes = append(rep.Notes, fmt.Sprintf("interrupted after %d of %d requests: the report is incomplete", i, len(w.Requests)))
			break
		}
		rep.Requests = append(rep.Requests, checkreport.Compare(req.ID, oa, ob))
		if opt.Progress != nil {
			opt.Progress(i+1, len(w.Requests))
		}
	}
	rep.A, rep.B = ca.endpoint(), cb.endpoint()
	if d := checkreport.ModelsDiffer(rep.A, rep.B); d != "" {
		rep.Notes = append(rep.Notes, d)
	}
	rep.Notes = append(append(rep.Notes, ca.notes("A")...), cb.notes("B")...)
	rep.Summary = checkreport.NewSummary(rep.Requests)
	rep.EndedAt = time.Now().UTC()
	if rep.Summary.Requests < len(w.Requests) {
		rep.Summary.Passed = false
	}
	if rep.Summary.Evidence == checkreport.Text {
		rep.Notes = append(rep.Notes, "some requests were compared on text only: equal text does not prove equal token sequences")
	}
	return rep, err
}

func style(s string) string {
	if s == "" {
		return engine.Auto
	}
	return s
}

type engineClient struct {
	t     Target
	opt   Options
	style string
	info  client.EngineInfo // what detection found (prepare)
	// autoPlain is set once an auto-style engine refused the vLLM extras.
	autoPlain bool
}

// endpoint is the report's view of the engine: URL without credentials,
// the model asked for and the models it serves.
func (c *engineClient) endpoint() checkreport.Endpoint {
	return checkreport.Endpoint{URL: redact.URL(c.t.URL), Model: c.t.Model, ServedModels: c.info.Models,
		Engine: c.style, EvidenceSource: evidenceSource(engine.Dialect(c.style))}
}

// ask sends one request and returns the engine's answer; failures are
// returned as an Output with OK false.
func (c *engineClient) ask(ctx context.Context, req *workload.Request) checkreport.Output {
	if engine.Dialect(c.style).Generate() && req.Kind() != workload.KindChat {
		return c.do(ctx, "/generate", c.sglangBody(req), parseSGLang)
	}
	d := engine.Dialect(c.style)
	if c.style == engine.Auto {
		d = engine.VLLM
		if c.autoPlain {
			d = engine.OpenAI
		}
	}
	path, body := c.openAIBody(req, d)
	out := c.do(ctx, path, body, parseOpenAI)
	if !out.OK && c.style == engine.Auto && !c.autoPlain && isRejected(out.Error) {
		c.autoPlain = true
		path, body = c.openAIBody(req, engine.OpenAI)
		out = c.do(ctx, path, body, parseOpenAI)
	}
	c.truncated(&out)
	return out
}

// isRejected recognises a 400 or 422 answer: the engine refused a field.
func isRejected(e string) bool {
	return strings.HasPrefix(e, "HTTP 400") || strings.HasPrefix(e, "HTTP 422")
}

// openAIBody is the non-streaming completions or chat request in dialect
// d, asking for the strongest token evidence d can return.
func (c *engineClient) openAIBody(req *workload.Request, d engine.Dialect) (string, map[string]any) {
	body := map[string]any{
		"model":       c.t.Model,
		"temperature": 0.0,
		"seed":        c.opt.Seed,
		"stream":      false,
	}
	path := "/v1/completions"
	chat := req.Kind() == workload.KindChat
	switch {
	case chat:
		path = "/v1/chat/completions"
		body["messages"] = req.Messages
		body[d.ChatMaxTokens()] = req.MaxTokens
	case req.Kind() == workload.KindTokens:
		body["prompt"] = req.PromptTokens
		body["max_tokens"] = req.MaxTokens
	default:
		body["prompt"] = req.Prompt
		body["max_tokens"] = req.MaxTokens
	}
	if req.FixedLength && d.FixedLength() {
		body["ignore_eos"] = true
		if d.MinTokens() {
			body["min_tokens"] = req.MaxTokens
		}
	}
	if d.TokenIDs() {
		body["return_token_ids"] = true
	}
	if lp := d.Logprobs(chat); lp != nil {
		body["logprobs"] = lp
	}
	return path, body
}

func (c *engineClient) sglangBody(req *workload.Request) map[string]any {
	sp := map[string]any{"max_new_tokens": req.MaxTokens, "temperature": 0.0}
	if req.FixedLength {
		sp["ignore_eos"] = true
	}
	body := map[string]any{"sampling_params": sp, "return_logprob": true, "stream": false}
	if req.Kind() == workload.KindTokens {
		body["input_ids"] = req.PromptTokens
	} else {
		body["text"] = req.Prompt
	}
	if c.t.Model != "" {
		body["model"] = c.t.Model
	}
	return body
}

// do sends one request and parses the answer. Every error text is
// scrubbed of the API key and URL credentials before it is clipped.
func (c *engineClient) do(ctx context.Context, path string, body map[string]any, parse func([]byte) (checkreport.Output, error)) checkreport.Output {
	out := c.send(ctx, path, body, parse)
	if out.Error != "" {
		out.Error = redact.Text(out.Error, c.opt.APIKey)
	}
	return out
}

func (c *engineClient) send(ctx context.Context, path string, body map[string]any, parse func([]byte) (checkreport.Output, error)) checkreport.Output {
	b, err := json.Marshal(body)
	if err != nil {
		return checkreport.Output{Error: err.Error(), CompletionTokens: -1}
	}
	ctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.t.URL, "/")+path, bytes.NewReader(b))
	if err != nil {
		return checkreport.Output{Error: err.Error(), CompletionTokens: -1}
	}
	hr.Header.Set("Content-Type", "application/json")
	if c.opt.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.opt.APIKey)
	}
	resp, err := c.opt.Client.Do(hr)
	if err != nil {
		return checkreport.Output{Error: err.Error(), CompletionTokens: -1}
	}
	defer resp.Body.Close()
	data, err := httppolicy.ReadBody(resp.Body, maxAnswerBody)
	if err != nil {
		return checkreport.Output{Error: "reading response: " + err.Error(), CompletionTokens: -1}
	}
	if resp.StatusCode != http.StatusOK {
		msg := redact.Clip(strings.TrimSpace(string(data)), 200, c.opt.APIKey)
		return checkreport.Output{Error: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, msg), CompletionTokens: -1}
	}
	out, err := parse(data)
	if err != nil {
		return checkreport.Output{Error: err.Error(), CompletionTokens: -1}
	}
	return out
}

type openAIResp struct {
	Choices []struct {
		Text    string `json:"text"`
		Message *struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason   string `json:"finish_reason"`
		TokenIDs       []int  `json:"token_ids"`
		PromptTokenIDs []int  `json:"prompt_token_ids"`
		Logprobs       *struct {
			Tokens  []string       `json:"tokens"`
			Content []logprobEntry `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
	PromptTokenIDs []int `json:"prompt_token_ids"`
	Usage          *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// parseOpenAI reads a non-streaming completions or chat response.
func parseOpenAI(data []byte) (checkreport.Output, error) {
	var r openAIResp
	if err := json.Unmarshal(data, &r); err != nil {
		return checkreport.Output{}, fmt.Errorf("response is not JSON: %v", err)
	}
	if len(r.Error) > 0 && string(r.Error) != "null" {
		return checkreport.Output{}, fmt.Errorf("engine error: %s", r.Error)
	}
	if len(r.Choices) == 0 {
		return checkreport.Output{}, errors.New("response has no choices")
	}
	ch := r.Choices[0]
	o := checkreport.Output{OK: true, CompletionTokens: -1, FinishReason: ch.FinishReason, Text: ch.Text, TokenIDs: ch.TokenIDs}
	if ch.Message != nil {
		o.Text = ch.Message.Content
	}
	if ch.Logprobs != nil {
		toks := ch.Logprobs.Tokens
		if toks == nil && ch.Logprobs.Content != nil {
			toks = make([]string, len(ch.Logprobs.Content))
			for i, c := range ch.Logprobs.Content {
				toks[i] = c.Token
			}
		}
		o.LogprobTokens = toks
		// llama.cpp gives each token's id beside it; vLLM's
		// --return-tokens-as-token-ids spells each token "token_id:N".
		if o.TokenIDs == nil {
			o.TokenIDs = contentIDs(ch.Logprobs.Content)
		}
		if o.TokenIDs == nil {
			o.TokenIDs = idsFromTokens(toks)
		}
	}
	switch {
	case r.Usage != nil && (r.Usage.PromptTokens > 0 || r.Usage.CompletionTokens > 0 || o.Text == ""):
		// An all-zero usage beside text is no count (Ollama's answer
		// cut by its repeat limit).
		o.PromptTokens, o.CompletionTokens = r.Usage.PromptTokens, r.Usage.CompletionTokens
	case o.TokenIDs != nil:
		o.CompletionTokens = len(o.TokenIDs)
	case o.LogprobTokens != nil:
		o.CompletionTokens = len(o.LogprobTokens)
	}
	if o.PromptTokens == 0 {
		if p := ch.PromptTokenIDs; p != nil {
			o.PromptTokens = len(p)
		} else if r.PromptTokenIDs != nil {
			o.PromptTokens = len(r.PromptTokenIDs)
		}
	}
	return o, nil
}

func idsFromTokens(toks []string) []int {
	if len(toks) == 0 {
		return nil
	}
	ids := make([]int, len(toks))
	for i, t := range toks {
		s, ok := strings.CutPrefix(t, "token_id:")
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil
		}
		ids[i] = n
	}
	return ids
}

// parseSGLang reads a native /generate response: output_token_logprobs
// holds [logprob, token_id, text] triples.
func parseSGLang(data []byte) (checkreport.Output, error) {
	var r struct {
		Text     string `json:"text"`
		MetaInfo struct {
			PromptTokens        int               `json:"prompt_tokens"`
			CompletionTokens    int               `json:"completion_tokens"`
			OutputTokenLogprobs []json.RawMessage `json:"output_token_logprobs"`
			FinishReason        json.RawMessage   `json:"finish_reason"`
		} `json:"meta_info"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return checkreport.Output{}, fmt.Errorf("response is not JSON: %v", err)
	}
	if len(r.Error) > 0 && string(r.Error) != "null" {
		return checkreport.Output{}, fmt.Errorf("engine error: %s", r.Error)
	}
	o := checkreport.Output{OK: true, Text: r.Text, PromptTokens: r.MetaInfo.PromptTokens, CompletionTokens: r.MetaInfo.CompletionTokens}
	if r.MetaInfo.OutputTokenLogprobs != nil {
		ids := make([]int, 0, len(r.MetaInfo.OutputTokenLogprobs))
		for _, raw := range r.MetaInfo.OutputTokenLogprobs {
			var triple []json.RawMessage
			if err := json.Unmarshal(raw, &triple); err != nil || len(triple) < 2 {
				ids = nil
				break
			}
			var id int
			if err := json.Unmarshal(triple[1], &id); err != nil {
				ids = nil
				break
			}
			ids = append(ids, id)
		}
		o.TokenIDs = ids
	}
	var fr struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(r.MetaInfo.FinishReason, &fr) == nil {
		o.FinishReason = fr.Type
	}
	return o, nil
}
