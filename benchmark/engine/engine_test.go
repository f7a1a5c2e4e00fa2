package engine

import "testing"

func TestDialects(t *testing.T) {
	for _, tc := range []struct {
		d                Dialect
		fixed, generate  bool
		chatMax, reset   string
		logprobsChat     any
		logprobsComplete any
		versions         int
	}{
		{VLLM, true, false, "max_completion_tokens", "/reset_prefix_cache", true, 0, 1},
		{SGLang, true, true, "max_completion_tokens", "/flush_cache", nil, nil, 2},
		{TRTLLM, true, false, "max_tokens", "", nil, nil, 1},
		{TGI, false, false, "max_tokens", "", true, 1, 1},
		{OpenAI, false, false, "max_completion_tokens", "", true, 1, 0},
		{LlamaCpp, true, false, "max_completion_tokens", "", true, 1, 0},
		{Ollama, false, false, "max_tokens", "", true, nil, 1},
	} {
		d := tc.d
		llama := d == LlamaCpp
		if d.FixedLength() != tc.fixed || d.TopK() != tc.fixed || d.ContinuousUsage() != (tc.fixed && !llama) ||
			d.MinTokens() != (tc.fixed && !llama) || d.Generate() != tc.generate ||
			d.ChatMaxTokens() != tc.chatMax || d.PrefixCacheReset() != tc.reset || d.Logprobs(true) != tc.logprobsChat ||
			d.Logprobs(false) != tc.logprobsComplete || len(d.VersionPaths()) != tc.versions {
			t.Errorf("%s: dialect facts differ from the table", d)
		}
		if !Valid(string(d)) {
			t.Errorf("%s not valid", d)
		}
	}
	if !Valid(Auto) || Valid("foo") || Valid("") {
		t.Error("Valid")
	}
}
