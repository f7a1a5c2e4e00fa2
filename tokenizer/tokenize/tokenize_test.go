package tokenize

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyTokenizer writes a small SentencePiece-style tokenizer.json with a
// BOS post-processor and a tokenizer_config.json naming <s>.
func tinyTokenizer(t *testing.T) string {
	dir := t.TempDir()
	tok := `{"added_tokens": [{"id": 0, "content": "<s>", "special": true, "normalized": false}],
		"normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
		"post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}],
			"special_tokens": {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]}}},
		"model": {"type": "BPE", "vocab": {"<s>": 0, "▁": 1, "a": 2, "b": 3, "▁a": 4, "▁ab": 5}, "merges": ["▁ a", "▁a b"]}}`
	write(t, dir, "tokenizer_config.json", `{"bos_token": "<s>", "eos_token": null}`)
	return write(t, dir, "tokenizer.json", tok)
}

func write(t *testing.T, dir, name, data string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun(t *testing.T) {
	tok := tinyTokenizer(t)
	dir := t.TempDir()
	jsonl := write(t, dir, "p.jsonl", `{"prompt": "ab a"}`+"\n\n"+`{"prompt": "b"}`+"\n")
	tmpl := write(t, dir, "t.jinja", "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}{{ eos_token }}")
	msgs := write(t, dir, "m.json", `[{"role": "user", "content": "ab"}]`)
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"json", Options{Texts: []string{"ab a", "<s>a"}}, `{"text":"ab a","count":2,"ids":[5,4],"pieces":[" ab"," a"]}` + "\n" +
			`{"text":"\u003cs\u003ea","count":2,"ids":[0,4],"pieces":["\u003cs\u003e"," a"]}` + "\n"},
		{"text special", Options{Texts: []string{"ab"}, Format: "text", Special: true}, `2 tokens: 0="<s>" 5=" ab"` + "\n"},
		{"jsonl", Options{File: jsonl, Field: "prompt", Format: "text"}, "2 tokens: 5=\" ab\" 4=\" a\"\n2 tokens: 1=\" \" 3=\"b\"\n"},
		{"chat", Options{Template: tmpl, Messages: msgs, Format: "text"}, `2 tokens: 0="<s>" 5=" ab"` + "\n"},
	}
	for _, tc := range tests {
		tc.o.Tokenizer = tok
		var out bytes.Buffer
		if err := Run(context.Background(), tc.o, &out); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if out.String() != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, out.String(), tc.want)
		}
	}
	var r result
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Tokenizer: tok, Texts: []string{"a"}}, &out); err != nil || json.Unmarshal(out.Bytes(), &r) != nil || r.Count != 1 {
		t.Errorf("json output %q: %v", out.String(), err)
	}
}

func TestRunErrors(t *testing.T) {
	tok := tinyTokenizer(t)
	bad := write(t, t.TempDir(), "bad.jsonl", "{\"text\": 3}\n")
	tests := []struct {
		o       Options
		usage   bool
		wantErr string
	}{
		{Options{Texts: []string{"a"}}, true, "--tokenizer"},
		{Options{Tokenizer: tok}, true, "exactly one input"},
		{Options{Tokenizer: tok, Texts: []string{"a"}, File: bad}, true, "exactly one input"},
		{Options{Tokenizer: tok, Texts: []string{"a"}, Format: "xml"}, true, "--format"},
		{Options{Tokenizer: tok, Template: "t.jinja"}, true, "go together"},
		{Options{Tokenizer: tok, File: bad}, false, bad + `:1: field "text" is missing or not a string`},
		{Options{Tokenizer: filepath.Join(t.TempDir(), "none.json"), Texts: []string{"a"}}, false, "none.json"},
	}
	for _, tc := range tests {
		o := tc.o
		usage := o.Validate() != nil
		err := Run(context.Background(), tc.o, &bytes.Buffer{})
		if err == nil || usage != tc.usage || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: error %v (usage %v), want %q", tc.o, err, tc.usage, tc.wantErr)
		}
	}
}
