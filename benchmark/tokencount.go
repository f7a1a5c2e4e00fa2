package benchmark

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/tokenizer"
)

// TokenDisagreePct is the relative difference (percent) between the
// server's usage counts and the client's own counts above which a run
// warns.
const TokenDisagreePct = 1.0

// clientCounts fills rec's client-side counts from the body it sent and
// the answer text it received (c), and marks c when the prompt is chat.
func clientCounts(tok *tokenizer.Tokenizer, rec *result.Record, c *capture) {
	if tok == nil || !rec.OK || c.body == nil {
		return
	}
	var b struct {
		Prompt   json.RawMessage    `json:"prompt"`
		Messages []workload.Message `json:"messages"`
	}
	if json.Unmarshal(c.body, &b) != nil {
		return
	}
	var s string
	var ids []int
	switch {
	case len(b.Messages) > 0:
		c.chat = true
		for _, m := range b.Messages {
			rec.ClientPromptTokens += tok.Count(m.Content)
		}
	case json.Unmarshal(b.Prompt, &s) == nil:
		rec.ClientPromptTokens = tok.Count(s)
	case json.Unmarshal(b.Prompt, &ids) == nil:
		rec.ClientPromptTokens = len(ids)
	}
	rec.ClientCompletionTokens = tok.Count(c.answer)
}

// tokenCheck sums a step's records, whose captures are caps.
func tokenCheck(tok *tokenizer.Tokenizer, recs []result.Record, caps []capture) *result.TokenCheck {
	if tok == nil {
		return nil
	}
	tc := &result.TokenCheck{Tokenizer: filepath.Base(tok.Path()), TokenizerHash: tok.Hash()}
	for i := range recs {
		r := &recs[i]
		if !r.OK || !r.UsageReported || caps[i].body == nil {
			continue
		}
		tc.Requests++
		tc.ServerCompletionTokens += int64(r.CompletionTokens)
		tc.ClientCompletionTokens += int64(r.ClientCompletionTokens)
		if caps[i].chat {
			tc.ClientChatPromptTokens += int64(r.ClientPromptTokens)
			continue
		}
		tc.PromptRequests++
		tc.ServerPromptTokens += int64(r.PromptTokens)
		tc.ClientPromptTokens += int64(r.ClientPromptTokens)
	}
	tc.PromptDiffPct = diffPct(tc.ServerPromptTokens, tc.ClientPromptTokens, tc.PromptRequests)
	tc.CompletionDiffPct = diffPct(tc.ServerCompletionTokens, tc.ClientCompletionTokens, tc.Requests)
	return tc
}

// diffPct is the relative difference after the one-token-per-request
// allowance; 0 when client is 0.
func diffPct(server, client int64, n int) float64 {
	if client == 0 {
		return 0
	}
	d := server - client
	if d > 0 {
		d = max(d-int64(n), 0)
	}
	return math.Round(float64(d)/float64(client)*1e4) / 100
}

// RetokenizePct is the relative difference (percent) between the
// server's output token count and the client's count of the answer text
// above which a run warns: decoding tokens to text and tokenizing the
// text again never gives back exactly the same tokens (merges across
// token boundaries, text a model emits token by token), so only a gap
// wider than that, a different tokenizer or a server counting something
// else, is worth a warning.
const RetokenizePct = 10.0

// tokenWarnings adds a warning per count that disagrees by more than
// its tolerance: TokenDisagreePct for prompts, which are tokenized from
// the same text on both sides, RetokenizePct for answers. A simulated
// server (serve-sim counts words, it has no tokenizer) gets none: its
// figures stay in the result's token_check.
func tokenWarnings(w *warnings, tc *result.TokenCheck, simulated bool) {
	if tc == nil || simulated {
		return
	}
	if math.Abs(tc.PromptDiffPct) > TokenDisagreePct {
		w.add(fmt.Sprintf("prompt tokens: the server counted %d, tokenizer %s counts %d (%+.2f%% beyond one BOS per request): the workload was made for another tokenizer, or the server adds more than a BOS", tc.ServerPromptTokens, tc.Tokenizer, tc.ClientPromptTokens, tc.PromptDiffPct))
	}
	if math.Abs(tc.CompletionDiffPct) > RetokenizePct {
		w.add(fmt.Sprintf("output tokens: the server counted %d, tokenizer %s counts %d in the answer text (%+.2f%% beyond one EOS per request, more than tokenizing decoded text again explains): the server's tokenizer is another, or its usage counts something else", tc.ServerCompletionTokens, tc.Tokenizer, tc.ClientCompletionTokens, tc.CompletionDiffPct))
	}
}
