package chat

import (
	"testing"
)

// FuzzParse feeds arbitrary template text to the chat-template parser
// (templates come from a model's tokenizer_config.json): it never panics.
// Rendering is left out: a template may loop as long as its author wrote.
func FuzzParse(f *testing.F) {
	f.Add("{% for m in messages %}<|{{ m.role }}|>{{ m['content'] | trim }}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}")
	f.Add("{{ bos_token }}{% set x = 1 + 2 * (3 - 4) %}{{ x ~ 'a' }}{# comment #}")
	f.Add("{% if %}{{")
	f.Fuzz(func(t *testing.T, src string) {
		Parse("t.jinja", src)
	})
}
