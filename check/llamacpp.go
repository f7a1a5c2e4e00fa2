package check

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/servecmp/servecmp/benchmark/engine"
)

// discover asks GET /v1/models which models the engine serves (kept,
// bounded, for the report) and, for an auto style, turns it into the
// engine's own when the answer names it unambiguously (llama.cpp:
// owned_by "llamacpp"), so that the check asks for the evidence that
// engine offers instead of probing with vLLM's extras. A target without
// a model gets the first one served, as benchmark does. A server that
// does not answer keeps what it has: the requests then say why.
func (c *engineClient) discover(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.t.URL, "/")+"/v1/models", nil)
	if err != nil {
		return
	}
	if c.opt.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.opt.APIKey)
	}
	resp, err := c.opt.Client.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	var models struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK || json.Unmarshal(b, &models) != nil || len(models.Data) == 0 {
		return
	}
	for _, m := range models.Data[:min(len(models.Data), maxServed)] {
		c.served = append(c.served, clip(m.ID, maxModelName))
	}
	if c.t.Model == "" {
		c.t.Model = c.served[0]
	}
	if c.style == engine.Auto && strings.EqualFold(models.Data[0].OwnedBy, string(engine.LlamaCpp)) {
		c.style = string(engine.LlamaCpp)
	}
}

// Bounds on what GET /v1/models brings into the report.
const (
	maxServed    = 32  // models listed per engine
	maxModelName = 256 // bytes of one model name
)

// clip cuts s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// evidenceSource says where a request style's strongest sequence
// evidence comes from.
func evidenceSource(d engine.Dialect) string {
	switch d {
	case engine.VLLM:
		return "token ids from return_token_ids, else logprob tokens"
	case engine.SGLang:
		return "token ids from /generate output_token_logprobs"
	case engine.TRTLLM:
		return "token ids from token_ids where returned, else text"
	case engine.LlamaCpp:
		return "token ids from logprobs.content[].id"
	case engine.Auto:
		return "token ids where returned (vLLM return_token_ids, logprobs.content[].id), else logprob tokens, else text"
	}
	return "token ids from logprobs.content[].id where given, else logprob tokens, else text"
}

// logprobEntry is one token of chat-style logprobs content.
type logprobEntry struct {
	Token string `json:"token"`
	ID    *int   `json:"id"` // llama.cpp: the token id
}

// contentIDs returns the token ids of chat-style logprobs content when
// every entry carries one (llama.cpp), else nil.
func contentIDs(content []logprobEntry) []int {
	if len(content) == 0 {
		return nil
	}
	ids := make([]int, len(content))
	for i, c := range content {
		if c.ID == nil {
			return nil
		}
		ids[i] = *c.ID
	}
	return ids
}
