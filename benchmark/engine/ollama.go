package engine

import (
	"fmt"
	"strings"
)

// Ollama is Ollama's server (measured on 0.24.0): OpenAI routes beside its
// own API (/api/version, /api/tags, /api/show, /api/generate). Its quirks,
// as a client meets them:
//
//   - /v1/completions takes a string prompt only; a token-id array is an
//     HTTP 400 whose message is OllamaTokenPromptError.
//   - A completions prompt is wrapped in the model's template unless the
//     template is exactly "{{ .Prompt }}" (OllamaRawTemplate): the same
//     text reaches the model as more tokens than on llama.cpp's server.
//   - Chat takes max_tokens; max_completion_tokens is ignored, and the
//     answer then runs until the context or the repeat limit ends it.
//   - logprobs are dropped on completions (chat returns them, as tokens
//     without ids).
//   - ignore_eos, min_tokens and top_k are ignored: output lengths cannot
//     be forced.
//   - A stream asked for usage carries an all-zero usage object on every
//     chunk and the real one on a last, choice-less chunk.
//   - A generation that yields the same piece of text more than
//     OllamaRepeatLimit times in a row is stopped: the stream (or the
//     non-streaming answer) ends with no finish_reason and no [DONE],
//     usage all zero.
//   - Its default sampling applies a repeat penalty of
//     OllamaRepeatPenalty, which no OpenAI-route field can change (a
//     Modelfile's PARAMETER repeat_penalty can): outputs at temperature 0
//     differ from an engine without a penalty as soon as a token would
//     repeat.
//   - No prefix-cache reset, no Prometheus endpoint.
const Ollama Dialect = "ollama"

// Ollama's own endpoints.
const (
	// OllamaVersionPath answers GET with {"version": "0.24.0"}.
	OllamaVersionPath = "/api/version"
	// OllamaTagsPath answers GET with {"models": [{name, model, digest,
	// size, details: {format, family, parameter_size,
	// quantization_level}}]}: the models it serves, with the digest of
	// each one's manifest.
	OllamaTagsPath = "/api/tags"
	// OllamaShowPath answers POST {"model": NAME} with the model's
	// template, parameters (a text of "name value" lines) and details
	// (parent_model names the weights blob, "…/sha256-HEX").
	OllamaShowPath = "/api/show"
)

// Facts about Ollama's behaviour (0.24.0) that messages and tests name.
const (
	// OllamaTokenPromptError is the message of the HTTP 400 that answers
	// a token-id prompt on /v1/completions.
	OllamaTokenPromptError = "json: cannot unmarshal array into Go struct field CompletionRequest.prompt of type string"
	// OllamaRawTemplate is the template that passes a completions prompt
	// through untouched.
	OllamaRawTemplate = "{{ .Prompt }}"
	// OllamaRepeatLimit: a generation whose streamed text repeats one
	// piece more than this many times in a row is stopped without a
	// finish reason.
	OllamaRepeatLimit = 30
	// OllamaRepeatPenalty is its default repeat_penalty.
	OllamaRepeatPenalty = 1.1
)

// TokenPrompts reports whether /v1/completions takes a prompt of token
// ids. Ollama's takes strings only. (TGI's is not verified here.)
func (d Dialect) TokenPrompts() bool { return d != Ollama }

// MetricsPath is the GET endpoint of the engine's Prometheus text, or ""
// when it has none (Ollama). llama.cpp's answers only when the server
// was started with --metrics.
func (d Dialect) MetricsPath() string {
	if d == Ollama {
		return ""
	}
	return "/metrics"
}

// ZeroUsageChunks reports whether a stream asked for usage carries a
// usage object on every content chunk that is not a count (all zero),
// the real one following on a last chunk without choices: content
// chunks' usage must not be read as cumulative counts.
func (d Dialect) ZeroUsageChunks() bool { return d == Ollama }

// RepeatLimit is the number of repeats of one piece of text after which
// the engine ends a generation without a finish reason, or 0 when it has
// no such rule.
func (d Dialect) RepeatLimit() int {
	if d == Ollama {
		return OllamaRepeatLimit
	}
	return 0
}

// TemplatesCompletions reports whether the engine may wrap a completions
// prompt in the model's chat template on the server side, so that the
// same prompt text reaches the model as different tokens on two engines.
// Detection records, per model, whether it does (the manifest's
// ollama_template).
func (d Dialect) TemplatesCompletions() bool { return d == Ollama }

// Cannot lists, one short phrase each, what a benchmark may ask that the
// engine cannot do, in a fixed order: forcing output lengths (ignore_eos,
// min_tokens), token-id prompts, a prefix-cache reset, server metrics.
// llama.cpp's prefix-cache reset is partial and not listed.
func (d Dialect) Cannot() []string {
	var out []string
	if !d.FixedLength() {
		out = append(out, "fixed output lengths (no ignore_eos)")
	} else if !d.MinTokens() && d != LlamaCpp {
		out = append(out, "min_tokens")
	}
	if !d.TokenPrompts() {
		out = append(out, "token-id prompts (string prompts only)")
	}
	if d.PrefixCacheReset() == "" && d != LlamaCpp {
		out = append(out, "prefix-cache reset")
	}
	if d.MetricsPath() == "" {
		out = append(out, "server metrics (no /metrics)")
	}
	return out
}

// TokenPromptAdvice is the one line that says what to do when a workload
// of token-id prompts (n of them) meets an engine that takes text only,
// or "" when the engine takes them. how names the way to make a text
// workload in the caller's terms ("" is TextWorkloadHow).
func (d Dialect) TokenPromptAdvice(n int, how string) string {
	if d.TokenPrompts() || n == 0 {
		return ""
	}
	if how == "" {
		how = TextWorkloadHow
	}
	return fmt.Sprintf("engine %s takes only text prompts on /v1/completions, and %d request(s) of the workload are token ids: "+
		"make a text or chat workload (%s)", d, n, how)
}

// TextWorkloadHow is how servecmp makes a text workload of exact prompt
// lengths from the command line.
const TextWorkloadHow = "servecmp workload random --tokenizer FILE --prompt text"

// TokenPromptsKnown reports whether TokenPrompts is a measured or
// documented fact for the engine. For the others (a plain
// OpenAI-compatible server, TGI) a benchmark of token-id prompts tries
// one before the load.
func (d Dialect) TokenPromptsKnown() bool {
	switch d {
	case VLLM, SGLang, TRTLLM, LlamaCpp, Ollama:
		return true
	}
	return false
}

// OllamaTemplateKind names how a model's template (as /api/show gives
// it) treats a completions prompt: "raw" (passed through untouched),
// "wrapped" (in the template, usually a chat template) or "unknown" (no
// template given).
func OllamaTemplateKind(template string) string {
	switch strings.TrimSpace(template) {
	case OllamaRawTemplate:
		return "raw"
	case "":
		return "unknown"
	}
	return "wrapped"
}
