package workload

import (
	"strings"
	"testing"
)

// TestImportsCountWithTokenizer: with a tokenizer, ShareGPT and JSONL
// imports carry exact input lengths and reply-derived max_tokens, and
// their header names the tokenizer.
func TestImportsCountWithTokenizer(t *testing.T) {
	tok := sharedTokenizer(t, "hf/qwen2.5/tokenizer.json")
	q, a := "Tell me about the weather in Paris in spring, please.", "It is mild and often rainy, with blossoms everywhere."
	sg := `[{"id":"x","conversations":[{"from":"human","value":"` + q + `"},{"from":"gpt","value":"` + a + `"}]}]`
	opts := ShareGPTOptions{ImportOptions: ImportOptions{Tokenizer: tok}}
	reqs, _, err := ShareGPT("sg.json", strings.NewReader(sg), opts)
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].InputLen != tok.Count(q) || reqs[0].MaxTokens != tok.Count(a) || reqs[0].InputLen == ApproxTokens(q) {
		t.Fatalf("input_len %d max_tokens %d, want %d %d", reqs[0].InputLen, reqs[0].MaxTokens, tok.Count(q), tok.Count(a))
	}
	jl := `{"prompt":"` + q + `","max_tokens":3}` + "\n" + `{"messages":[{"role":"system","content":"Be kind."},{"role":"user","content":"` + q + `"}],"max_tokens":3}` + "\n"
	reqs, _, err = FromJSONL("w.jsonl", strings.NewReader(jl), ImportOptions{Tokenizer: tok})
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].InputLen != tok.Count(q) || reqs[1].InputLen != tok.Count(q)+tok.Count("Be kind.") {
		t.Fatalf("input_len %d %d", reqs[0].InputLen, reqs[1].InputLen)
	}
	h := (&ImportOptions{Tokenizer: tok}).Header()
	if h.TokenizerHash != tok.Hash() || h.Tokenizer != "tokenizer.json" || (&ImportOptions{}).Header() != nil {
		t.Fatalf("header %+v", h)
	}
}
