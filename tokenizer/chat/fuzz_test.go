package chat

import (
	"strings"
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

// FuzzRender renders arbitrary templates over a small conversation: no
// panic escapes, every error is one line, and the budget ends loops.
func FuzzRender(f *testing.F) {
	f.Add("{% for m in messages %}{{ m.role | upper }}{{ m['content'] | trim }}{% endfor %}")
	f.Add("{% macro g(x, y=2) %}{{ x * y }}{% endmacro %}{{ g(3) }}{{ g('a', y=3) }}")
	f.Add("{{ messages | selectattr('role', 'equalto', 'user') | map(attribute='content') | join(',') }}")
	f.Add("{{ {'a': [1, none]} | tojson(indent=-3) }}{{ 'x'[::-2] }}{{ range(3, 0, -1) | list }}")
	f.Add("{% set x %}{{ 1 // 0 }}{% endset %}{% filter upper %}a{% endfilter %}")
	f.Fuzz(func(t *testing.T, src string) {
		tp, err := Parse("f.jinja", src)
		if err != nil {
			return
		}
		_, err = tp.Render([]Message{{"user", " hi "}, {"assistant", "yo"}}, Options{AddGenerationPrompt: true})
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}
