// Package engine is servecmp's one description of the serving engines it
// talks to: their names and, for each, the request fields and endpoints
// it accepts. The streaming benchmark client (package benchmark) and the
// correctness check (package check) both build their requests from it.
//
// A Dialect is an engine name. Auto is not a dialect: it asks the caller
// to detect one (benchmark) or to try the richest one and fall back
// (check). Facts here are about the engines' OpenAI-compatible servers
// (vLLM, SGLang, trtllm-serve, TGI, llama.cpp's llama-server, Ollama) and
// a plain OpenAI API; a field the dialect does not accept is never sent,
// because trtllm-serve rejects unknown fields outright.
package engine

import "slices"

// Dialect is an engine's request dialect.
type Dialect string

// The dialects.
const (
	VLLM   Dialect = "vllm"
	SGLang Dialect = "sglang"
	TRTLLM Dialect = "trtllm"
	TGI    Dialect = "tgi"
	OpenAI Dialect = "openai"
	// LlamaCpp is llama.cpp's llama-server: OpenAI routes plus ignore_eos,
	// top_k, token ids in logprobs.content[].id, /props and /slots.
	LlamaCpp Dialect = "llamacpp"
)

// Auto is the engine choice that means "detect it".
const Auto = "auto"

// Names are the engine names other than Auto, in display order.
var Names = []string{string(VLLM), string(SGLang), string(TRTLLM), string(TGI), string(LlamaCpp), string(Ollama), string(OpenAI)}

// Valid reports whether name is Auto or one of Names.
func Valid(name string) bool { return name == Auto || slices.Contains(Names, name) }

// FixedLength reports whether the dialect takes ignore_eos, the field
// that (with max_tokens) forces an exact output length.
func (d Dialect) FixedLength() bool {
	switch d {
	case VLLM, SGLang, TRTLLM, LlamaCpp:
		return true
	}
	return false
}

// MinTokens reports whether the dialect also takes min_tokens. llama.cpp
// has no such field: ignore_eos with max_tokens (its n_predict) is enough.
func (d Dialect) MinTokens() bool { return d.FixedLength() && d != LlamaCpp }

// TopK reports whether top_k is an accepted body field. Plain OpenAI
// servers and TGI's OpenAI route do not define it.
func (d Dialect) TopK() bool { return d.FixedLength() }

// ContinuousUsage reports whether stream_options takes
// continuous_usage_stats: a cumulative completion count in every chunk,
// which is how multi-token chunks are measured. llama.cpp streams one
// token per chunk and reports usage in the last one only.
func (d Dialect) ContinuousUsage() bool { return d.MinTokens() }

// ChatMaxTokens is the chat-completions field that bounds the output:
// trtllm-serve and TGI know only the older max_tokens; Ollama ignores
// max_completion_tokens.
func (d Dialect) ChatMaxTokens() string {
	if d == TRTLLM || d == TGI || d == Ollama {
		return "max_tokens"
	}
	return "max_completion_tokens"
}

// Generate reports whether the dialect has a native /generate endpoint
// that returns output token ids with their logprobs (SGLang).
func (d Dialect) Generate() bool { return d == SGLang }

// TokenIDs reports whether a non-streaming completion can return its
// output token ids (vLLM's return_token_ids).
func (d Dialect) TokenIDs() bool { return d == VLLM }

// Logprobs is the value of the logprobs field that makes the engine
// return its output tokens (chat takes a boolean, completions a count),
// or nil when the field is not sent: trtllm-serve rejects completion
// logprobs, SGLang's token evidence comes from /generate, and Ollama
// drops logprobs on completions.
func (d Dialect) Logprobs(chat bool) any {
	switch {
	case d == TRTLLM || d == SGLang || (d == Ollama && !chat):
		return nil
	case chat:
		return true
	case d == VLLM:
		return 0 // the sampled token itself, no alternatives
	}
	return 1
}

// PrefixCacheReset is the POST endpoint that empties the prefix cache,
// or "" when the engine has none. llama.cpp has no single endpoint: its
// slots are erased one by one (SlotErase).
func (d Dialect) PrefixCacheReset() string {
	switch d {
	case VLLM:
		return "/reset_prefix_cache"
	case SGLang:
		return "/flush_cache"
	}
	return ""
}

// VersionPaths are the GET endpoints that answer {"version": …}, in the
// order to try them.
func (d Dialect) VersionPaths() []string {
	switch d {
	case VLLM, TRTLLM:
		return []string{"/version"}
	case SGLang:
		return []string{"/server_info", "/get_server_info"}
	case TGI:
		return []string{"/info"}
	case Ollama:
		return []string{OllamaVersionPath}
	}
	return nil
}

// SlotErase is llama.cpp's per-slot cache reset: POST it with the slot id
// formatted in. The server accepts it only when started with
// --slot-save-path, and it empties the slots' KV cache, not the
// host-memory prompt cache (--cache-ram), which no endpoint empties.
const SlotErase = "/slots/%d?action=erase"

// PropsPath is llama.cpp's server description: build_info, model_path,
// total_slots and the per-slot context size.
const PropsPath = "/props"
