package check

import (
	"github.com/servecmp/servecmp/benchmark/engine"
)

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
	case engine.Ollama:
		return "logprob tokens on chat (no ids), text on completions (it drops logprobs there)"
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
