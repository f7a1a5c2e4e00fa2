package chat

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const templatesDir = "../../../shared/testdata/tokenizers/templates"

func needTemplate(t *testing.T, name string) *Template {
	t.Helper()
	path := filepath.Join(templatesDir, name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("shared templates absent: %v", err)
	}
	tp, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

var conversation = []Message{
	{"system", "Be brief."},
	{"user", "Hi there"},
	{"assistant", "Hello!"},
	{"user", "Count to 3."},
}

func TestRealTemplates(t *testing.T) {
	tests := []struct {
		file string
		msgs []Message
		opt  Options
		want string
	}{
		{"Qwen-Qwen2.5-7B-Instruct.jinja", conversation, Options{AddGenerationPrompt: true},
			"<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n" +
				"<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nCount to 3.<|im_end|>\n<|im_start|>assistant\n"},
		{"Qwen-Qwen2.5-7B-Instruct.jinja", conversation[1:2], Options{},
			"<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n" +
				"<|im_start|>user\nHi there<|im_end|>\n"},
		{"meta-llama-Llama-3.1-8B-Instruct.jinja", conversation, Options{AddGenerationPrompt: true, BOSToken: "<|begin_of_text|>"},
			"<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\n" +
				"Today Date: 26 Jul 2024\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|>" +
				"<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n" +
				"Count to 3.<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"},
		{"microsoft-Phi-3.5-mini-instruct.jinja", conversation, Options{AddGenerationPrompt: true, EOSToken: "<|endoftext|>"},
			"<|system|>\nBe brief.<|end|>\n<|user|>\nHi there<|end|>\n<|assistant|>\nHello!<|end|>\n<|user|>\nCount to 3.<|end|>\n<|assistant|>\n"},
		{"microsoft-Phi-3.5-mini-instruct.jinja", conversation[1:2], Options{EOSToken: "<|endoftext|>"},
			"<|user|>\nHi there<|end|>\n<|endoftext|>"},
		{"google-gemma-2-2b-it.jinja", []Message{{"user", "  Hi  "}, {"assistant", "Yo"}}, Options{AddGenerationPrompt: true, BOSToken: "<bos>"},
			"<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\nYo<end_of_turn>\n<start_of_turn>model\n"},
	}
	for _, tc := range tests {
		tp := needTemplate(t, tc.file)
		got, err := tp.Render(tc.msgs, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.file, got, tc.want)
		}
	}
}

func TestTemplateRaises(t *testing.T) {
	tp := needTemplate(t, "google-gemma-2-2b-it.jinja")
	_, err := tp.Render(conversation, Options{})
	if !errors.Is(err, errRaised) || !strings.Contains(err.Error(), "System role not supported") ||
		!strings.Contains(err.Error(), "google-gemma-2-2b-it.jinja:1:") {
		t.Errorf("error = %v", err)
	}
}

// TestLlama3ConfigTemplate renders the template of hf/llama3's
// tokenizer_config.json (set inside a loop, loop.index0, filter after +).
func TestLlama3ConfigTemplate(t *testing.T) {
	data, err := os.ReadFile("../../../shared/testdata/tokenizers/hf/llama3/tokenizer_config.json")
	if err != nil {
		t.Skipf("shared tokenizer data absent: %v", err)
	}
	var cfg struct {
		ChatTemplate string `json:"chat_template"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	tp, err := Parse("tokenizer_config.json", cfg.ChatTemplate)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tp.Render([]Message{{"user", " Hi \n"}, {"assistant", "Hello"}}, Options{BOSToken: "<|begin_of_text|>"})
	if err != nil {
		t.Fatal(err)
	}
	want := "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>" +
		"<|start_header_id|>assistant<|end_header_id|>\n\nHello<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}

func TestSubset(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a {{ 'x' }} b", "a x b"},
		{"a  {{- 'x' -}}  b", "axb"},
		{"{% if true %}\nyes\n{% endif %}\n", "yes\n"},
		{"  {% if true %}x{% endif %}", "x"},
		{"{{ 'a' }}  {% if true %}x{% endif %}", "a  x"},
		{"{# note #}\nz", "z"},
		{"{% for m in messages %}{{ loop.index }}{{ m.role }}{% if not loop.last %},{% endif %}{% endfor %}", "1user,2assistant"},
		{"{% for m in [] %}x{% else %}empty{% endfor %}", "empty"},
		{"{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}", "2"},
		{"{% set x = 1 %}{% for m in messages %}{% set x = 5 %}{% endfor %}{{ x }}", "1"},
		{"{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -1 % 3 }} {{ 1 / 2 }} {{ 2 * 3 }}", "3 -4 1 2 0.5 6"},
		{"{{ 'a' ~ 1 }} {{ 'abc'[1:] }} {{ 'abc'[-1] }} {{ 'abc'[::-1] }}", "a1 bc c cba"},
		{"{{ messages | length }} {{ messages[0]['content'] }} {{ messages[-1].role }}", "2 hi assistant"},
		{"{{ 'x' if false else 'y' }} {{ 'b' in 'abc' }} {{ 'z' not in 'abc' }}", "y True True"},
		{"{{ undefined_name }}|{{ undefined_name is defined }}|{{ none is none }}|{{ 3 is number }}", "|False|True|True"},
		{"{{ [1, 'a', none] | tojson }} {{ {'k': [true]} | tojson }}", `[1, "a", null] {"k": [true]}`},
		{"{{ {'b': 1} | tojson(indent=2) }}", "{\n  \"b\": 1\n}"},
		{"{{ ['a', 'b'] | join('-') }} {{ ' x '.strip() }} {{ 'a,b'.split(',')[1] }} {{ 'Ab'.lower() }}", "a-b x b ab"},
		{"{{ ['a', 'b', 'a'] | reject('equalto', 'a') | join }} {{ [1, 2] | first }}{{ [1, 2] | last }}", "b 12"},
		{"{% for k, v in {'a': 1, 'b': 2} | items %}{{ k }}={{ v }};{% endfor %}", "a=1;b=2;"},
		{"{% if x is defined %}d{% elif 1 > 2 %}g{% else %}e{% endif %}", "e"},
		{"{{ \"q\\\"}}\" }}", `q"}}`},
		{"{{ range(3) | length }} {{ true and 'x' }} {{ 0 or 'y' }}", "3 x y"},
	}
	msgs := []Message{{"user", "hi"}, {"assistant", "yo"}}
	for _, tc := range tests {
		tp, err := Parse("t.jinja", tc.src)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		got, err := tp.Render(msgs, Options{})
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
}

func TestUnsupported(t *testing.T) {
	tests := []struct{ src, wantErr string }{
		{"line1\n{% include 'x.jinja' %}", "f.jinja:2: unsupported statement \"include\""},
		{"{{ x | frobnicate }}", "f.jinja:1: unsupported filter \"frobnicate\""},
		{"{{ x is frobbed }}", "unsupported test \"frobbed\""},
		{"{{ x.frob() }}", "unsupported method \"frob\""},
		{"{% break %}", "outside a loop"},
		{"{% macro m(a %}{% endmacro %}", "expected"},
		{"{{ " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + " }}", "nested deeper than"},
		{"{% if x %}a", "not closed by {% endif %}"},
		{"{% for x in y %}a", "not closed by {% endfor %}"},
		{"{% endif %}", "unexpected {% endif %}"},
		{"{{ 'a' ", "unclosed tag"},
		{"{{ 'a }}", "unclosed tag"},
		{"{{ a b }}", "unexpected \"b\""},
		{"{{ (a }}", "expected \")\""},
		{"{{ @ }}", "unexpected character"},
	}
	for _, tc := range tests {
		_, err := Parse("f.jinja", tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line containing %q", tc.src, err, tc.wantErr)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	for _, src := range []string{"{{ 1 + 'a' }}", "{{ 1 // 0 }}", "{{ 'a' < 1 }}", "{% for x in 3 %}{% endfor %}", "{% set n.a = 1 %}", "{{ x.y }}", "{{ 'a' * 100000000000 }}"} {
		tp, err := Parse("r.jinja", src)
		if err != nil {
			t.Errorf("%q: parse: %v", src, err)
			continue
		}
		if _, err := tp.Render(nil, Options{}); err == nil || !strings.HasPrefix(err.Error(), "chat template r.jinja:1:") {
			t.Errorf("%q: render error %v", src, err)
		}
	}
}
