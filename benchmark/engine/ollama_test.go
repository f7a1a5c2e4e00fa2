package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestOllamaFacts: what every dialect says about prompt forms, metrics,
// usage chunks, repeats and server-side templates, and what each cannot
// do. Only Ollama differs from the defaults on the first five.
func TestOllamaFacts(t *testing.T) {
	for _, name := range Names {
		d := Dialect(name)
		o := d == Ollama
		if d.TokenPrompts() == o || (d.MetricsPath() == "") != o || d.ZeroUsageChunks() != o ||
			(d.RepeatLimit() == OllamaRepeatLimit) != o || d.TemplatesCompletions() != o {
			t.Errorf("%s: prompt/metrics/usage/repeat/template facts wrong", d)
		}
		if (d.TokenPromptAdvice(3, "") != "") != o || d.TokenPromptAdvice(0, "") != "" {
			t.Errorf("%s: advice %q", d, d.TokenPromptAdvice(3, ""))
		}
	}
	want := []string{"fixed output lengths (no ignore_eos)", "token-id prompts (string prompts only)",
		"prefix-cache reset", "server metrics (no /metrics)"}
	if got := Ollama.Cannot(); !slices.Equal(got, want) {
		t.Errorf("Ollama cannot %q, want %q", got, want)
	}
	if got := VLLM.Cannot(); len(got) != 0 {
		t.Errorf("vLLM cannot %q", got)
	}
	if got := LlamaCpp.Cannot(); len(got) != 0 {
		t.Errorf("llama.cpp cannot %q (its partial reset is explained elsewhere)", got)
	}
	if got := OpenAI.Cannot(); !slices.Equal(got, []string{"fixed output lengths (no ignore_eos)", "prefix-cache reset"}) {
		t.Errorf("openai cannot %q", got)
	}
	if got := Ollama.TokenPromptAdvice(1, "X"); !strings.HasSuffix(got, "(X)") {
		t.Errorf("advice %q ignores how", got)
	}
	if OpenAI.TokenPromptsKnown() || TGI.TokenPromptsKnown() || !Ollama.TokenPromptsKnown() || !VLLM.TokenPromptsKnown() {
		t.Error("TokenPromptsKnown")
	}
	adv := Ollama.TokenPromptAdvice(5, "")
	for _, w := range []string{"engine ollama", "5 request(s)", "--tokenizer FILE --prompt text"} {
		if !strings.Contains(adv, w) {
			t.Errorf("advice %q lacks %q", adv, w)
		}
	}
	if strings.Contains(adv, "\n") {
		t.Errorf("advice is not one line: %q", adv)
	}
}

func TestOllamaTemplateKind(t *testing.T) {
	for _, tc := range []struct{ tmpl, want string }{
		{"{{ .Prompt }}", "raw"},
		{" {{ .Prompt }}\n", "raw"},
		{"{{- .Prompt }}", "wrapped"},
		{"", "unknown"},
		{" \n", "unknown"},
		{"{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}<|im_start|>assistant\n", "wrapped"},
	} {
		if got := OllamaTemplateKind(tc.tmpl); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.tmpl, got, tc.want)
		}
	}
}
