package benchmark

import (
	"context"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
	"github.com/servecmp/servecmp/tokenizer"
)

func TestDiffPct(t *testing.T) {
	for _, tc := range []struct {
		server, client int64
		n              int
		want           float64
	}{
		{1000, 1000, 10, 0}, {1010, 1000, 10, 0}, {1030, 1000, 10, 2}, {990, 1000, 10, -1}, {5, 0, 1, 0},
	} {
		if got := diffPct(tc.server, tc.client, tc.n); got != tc.want {
			t.Errorf("diffPct(%d, %d, %d) = %v, want %v", tc.server, tc.client, tc.n, got, tc.want)
		}
	}
}

// TestTokenCheck runs text and chat requests with a client tokenizer: the
// fake server reports 5 prompt tokens and answers n "é" characters.
func TestTokenCheck(t *testing.T) {
	path := "../../shared/testdata/tokenizers/hf/gpt2/tokenizer.json"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("shared tokenizer test data absent: %v", err)
	}
	tok, err := tokenizer.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	prompt := "one two three four" // 4 tokens: the server's 5 is one BOS more
	if tok.Count(prompt) != 4 {
		t.Fatalf("prompt has %d tokens", tok.Count(prompt))
	}
	w := &workload.Workload{Path: "t.jsonl", SHA256: "abc", Requests: []workload.Request{
		{ID: "a", Prompt: prompt, MaxTokens: 6}, {ID: "b", Prompt: prompt, MaxTokens: 6},
		{ID: "c", Messages: []workload.Message{{Role: "user", Content: "hello there"}}, MaxTokens: 6},
	}}
	f := &fakeengine.Server{}
	s := f.Start(t)
	c := client.New(client.Options{BaseURL: s.URL, Conns: 4})
	t.Cleanup(c.Close)
	var mu sync.Mutex
	var recs []result.Record
	res, err := Run(context.Background(), Config{Client: c, Engine: "vllm", Model: "m", Workload: w, Tokenizer: tok,
		Load:     result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2},
		OnRecord: func(r *result.Record) error { mu.Lock(); recs = append(recs, *r); mu.Unlock(); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	tc := res.Summary.TokenCheck
	out := int64(tok.Count(strings.Repeat("é", 6)))
	if tc == nil || tc.Requests != 3 || tc.PromptRequests != 2 || tc.ServerPromptTokens != 10 || tc.ClientPromptTokens != 8 ||
		tc.PromptDiffPct != 0 || tc.ClientChatPromptTokens != int64(tok.Count("hello there")) ||
		tc.ServerCompletionTokens != 18 || tc.ClientCompletionTokens != 3*out || tc.TokenizerHash != tok.Hash() {
		t.Fatalf("token check %+v (answer counts %d)", tc, out)
	}
	warned := strings.Contains(strings.Join(res.Warnings, "\n"), "output tokens: the server counted")
	if want := math.Abs(diffPct(18, 3*out, 3)) > RetokenizePct; warned != want {
		t.Errorf("output warning %v, want %v: %v", warned, want, res.Warnings)
	}
	for _, r := range recs {
		if r.ClientCompletionTokens != int(out) || r.ClientPromptTokens == 0 {
			t.Errorf("record %+v", r)
		}
	}
}

// TestTokenWarnings: prompts must agree within TokenDisagreePct; answers,
// which never re-tokenize exactly, within RetokenizePct; a simulated
// server, which has no tokenizer, is never warned about.
func TestTokenWarnings(t *testing.T) {
	for _, tc := range []struct {
		prompt, completion float64
		simulated          bool
		want               []string
	}{
		{0, 0, false, nil},
		{0, -4.5, false, nil}, // re-tokenized nonsense text
		{2, 0, false, []string{"prompt tokens"}},
		{0, -25, false, []string{"output tokens"}},
		{-30, -25, true, nil},
	} {
		var w warnings
		tokenWarnings(&w, &result.TokenCheck{Tokenizer: "t.json", PromptDiffPct: tc.prompt, CompletionDiffPct: tc.completion}, tc.simulated)
		got := w.all()
		if len(got) != len(tc.want) {
			t.Errorf("%+v: warnings %q", tc, got)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tc.want[i]) {
				t.Errorf("%+v: warning %q", tc, got[i])
			}
		}
	}
}
