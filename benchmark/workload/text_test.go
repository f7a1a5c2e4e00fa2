package workload

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/servecmp/servecmp/tokenizer"
)

// tokDir is the shared tokenizer test data, relative to this package.
const tokDir = "../../../shared/testdata/tokenizers"

// sharedTokenizer loads a shared tokenizer file or skips the test.
func sharedTokenizer(t testing.TB, rel string) *tokenizer.Tokenizer {
	t.Helper()
	path := filepath.Join(tokDir, rel)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("shared tokenizer test data absent: %v", err)
	}
	tok, err := tokenizer.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestExactLengthPrompts is the figure: 1,000 text and 1,000 chat
// prompts of lengths drawn from 128:4096, made by the workload random code
// path and re-tokenized, each has exactly its requested length.
func TestExactLengthPrompts(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	for _, tc := range []struct {
		file string
		kind Kind
	}{{"hf/qwen2.5/tokenizer.json", KindText}, {"hf/llama3/tokenizer.json", KindChat}} {
		tok := sharedTokenizer(t, tc.file)
		in, _ := ParseLength("128:4096")
		out, _ := ParseLength("16")
		spec := RandomSpec{Num: n, InputLen: in, OutputLen: out, Seed: 7, Text: &TextPrompts{Tokenizer: tok, Kind: tc.kind}}
		start := time.Now()
		reqs, err := Random(spec)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s: %d prompts in %v", tc.file, tc.kind, n, time.Since(start))
		lr := rand.New(rand.NewPCG(7, streamLengths))
		for i := range reqs {
			r := &reqs[i]
			req := in.Sample(lr)
			_ = out.Sample(lr)
			got := 0
			if tc.kind == KindText {
				got = tok.Count(r.Prompt)
			} else {
				for _, m := range r.Messages {
					got += tok.Count(m.Content)
				}
			}
			if got != req || r.InputLen != req {
				t.Fatalf("%s: %s: requested %d tokens, input_len %d, re-tokenized %d", tc.file, r.ID, req, r.InputLen, got)
			}
		}
		if len(reqs) != n {
			t.Fatalf("%d requests, want %d", len(reqs), n)
		}
	}
}

// TestTextPrefixAndTemplate checks shared prefixes (the same leading token
// ids in every prompt) and client-side templates (the rendered prompt has
// the requested length) on several tokenizer families.
func TestTextPrefixAndTemplate(t *testing.T) {
	in, _ := ParseLength("40:300")
	out, _ := ParseLength("8")
	for _, file := range []string{"hf/llama3/tokenizer.json", "hf/gpt2/tokenizer.json", "gguf/ggml-vocab-llama-spm.gguf", "hf/phi-3-mini/tokenizer.json"} {
		tok := sharedTokenizer(t, file)
		spec := RandomSpec{Num: 50, InputLen: in, OutputLen: out, Seed: 3, PrefixLen: 64, Text: &TextPrompts{Tokenizer: tok, Kind: KindText}}
		reqs, err := Random(spec)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		first := tok.Encode(reqs[0].Prompt)[:64]
		for _, r := range reqs {
			ids := tok.Encode(r.Prompt)
			if len(ids) != r.InputLen || !slices.Equal(ids[:64], first) {
				t.Fatalf("%s: %s: %d tokens (input_len %d), shared prefix kept: %v", file, r.ID, len(ids), r.InputLen, slices.Equal(ids[:64], first))
			}
		}
	}
	tok := sharedTokenizer(t, "hf/llama3/tokenizer.json")
	tpl, name, hash, err := ReadTemplate(filepath.Join(tokDir, "templates/meta-llama-Llama-3.1-8B-Instruct.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tp := &TextPrompts{Tokenizer: tok, Kind: KindChat, Template: tpl, TemplateFile: name, TemplateHash: hash}
	spec := RandomSpec{Num: 30, InputLen: in, OutputLen: out, Seed: 3, PrefixLen: 32, Text: tp}
	reqs, err := Random(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if r.Prompt == "" || tok.Count(r.Prompt) != r.InputLen || r.InputLen < 72 {
			t.Fatalf("%s: rendered prompt has %d tokens, input_len %d", r.ID, tok.Count(r.Prompt), r.InputLen)
		}
	}
	if h := spec.Header(); h.ChatTemplateHash != hash || h.TokenizerHash != tok.Hash() || h.Prompt != KindChat {
		t.Fatalf("header %+v", h)
	}
}

// BenchmarkTenThousandPrompts makes the prompts of a 10,000-request
// workload of 1,000-token text prompts (the speed figure: < 10 s
// on 2 cores).
func BenchmarkTenThousandPrompts(b *testing.B) {
	tok := sharedTokenizer(b, "hf/llama3/tokenizer.json")
	in, _ := ParseLength("1000")
	out, _ := ParseLength("100")
	for b.Loop() {
		if _, err := Random(RandomSpec{Num: 10000, InputLen: in, OutputLen: out, Text: &TextPrompts{Tokenizer: tok, Kind: KindText}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCountTenThousandPrompts counts (as imports and benchmark
// --tokenizer do) the prompts of a 10,000-request workload of 1,000-token
// text prompts.
func BenchmarkCountTenThousandPrompts(b *testing.B) {
	tok := sharedTokenizer(b, "hf/llama3/tokenizer.json")
	in, _ := ParseLength("1000")
	out, _ := ParseLength("100")
	reqs, err := Random(RandomSpec{Num: 10000, InputLen: in, OutputLen: out, Text: &TextPrompts{Tokenizer: tok, Kind: KindText}})
	if err != nil {
		b.Fatal(err)
	}
	opts := ImportOptions{Tokenizer: tok}
	b.ResetTimer()
	for b.Loop() {
		for i := range reqs {
			if n := opts.inputLen(&reqs[i]); n != 1000 {
				b.Fatalf("%s: %d tokens", reqs[i].ID, n)
			}
		}
	}
}

// TestTextPromptsStopAtInterrupt is the case: making many long
// text prompts stops soon after its context ends (the first Ctrl-C), not
// when every prompt is made.
func TestTextPromptsStopAtInterrupt(t *testing.T) {
	tok := sharedTokenizer(t, "hf/qwen2.5/tokenizer.json")
	in, _ := ParseLength("4096")
	out, _ := ParseLength("16")
	spec := RandomSpec{Num: 20000, InputLen: in, OutputLen: out, Seed: 7, Text: &TextPrompts{Tokenizer: tok, Kind: KindText}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := RandomContext(ctx, spec)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the context's", err)
	}
	el := time.Since(start)
	t.Logf("returned %v after the start (interrupt at 300ms)", el)
	if el > 10*time.Second {
		t.Errorf("returned %v after the start, long after the interrupt", el)
	}
}
