package workload

import (
	"strings"
	"testing"
)

func TestFromJSONL(t *testing.T) {
	in := `{"prompt": "hello world", "output_len": 12, "extra": 1}
{"id": "chat1", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}

{"prompt": [5, 6, 7], "max_tokens": 3, "arrival_offset_s": 0.5}
{"prompt_token_ids": [8, 9], "output_len": 4, "note": "x"}
`
	temp := 0.5
	reqs, st, err := FromJSONL("in.jsonl", strings.NewReader(in), ImportOptions{FixedLength: true,
		Sampling: Sampling{Temperature: &temp}, RequestSeeds: true, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if st.Read != 4 || st.Kept != 4 || strings.Join(st.IgnoredKeys, ",") != "extra,note" {
		t.Errorf("stats %+v", st)
	}
	want := []struct {
		id   string
		kind Kind
		max  int
		in   int
	}{{"l1", KindText, 12, 0}, {"chat1", KindChat, 5, 0}, {"l4", KindTokens, 3, 3}, {"l5", KindTokens, 4, 2}}
	for i, w := range want {
		r := reqs[i]
		if r.ID != w.id || r.Kind() != w.kind || r.MaxTokens != w.max || r.InputLen != w.in || !r.FixedLength {
			t.Errorf("request %d: %+v", i, r)
		}
		if r.Sampling.Seed == nil || *r.Sampling.Temperature != 0.5 {
			t.Errorf("request %d: sampling %+v", i, r.Sampling)
		}
	}
	if reqs[2].ArrivalOffsetS == nil || *reqs[2].ArrivalOffsetS != 0.5 {
		t.Error("arrival offset lost")
	}
	// --output-len overrides the file.
	reqs, _, err = FromJSONL("in.jsonl", strings.NewReader(in), ImportOptions{OutputLen: 64})
	if err != nil || reqs[0].MaxTokens != 64 || reqs[1].MaxTokens != 64 {
		t.Errorf("override: %v", err)
	}
}

func TestFromJSONLErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"prompt": "x"}`, "in.jsonl:1: no output length"},
		{"{\"prompt\": \"x\", \"max_tokens\": 1}\n{\"prompt\": 5, \"max_tokens\": 1}", "in.jsonl:2: \"prompt\" must be"},
		{`{"prompt": "x", "messages": [{"role":"user","content":"y"}], "max_tokens": 1}`, "more than one prompt form"},
		{`{"prompt": [1], "prompt_token_ids": [2], "max_tokens": 1}`, "both"},
		{`{"id": "a", "prompt": "x", "max_tokens": 1}` + "\n" + `{"id": "a", "prompt": "y", "max_tokens": 1}`, `duplicate id "a"`},
		{`{"prompt": "x", "max_tokens": 1`, "in.jsonl:1: invalid JSON"},
		{``, "no records"},
		{`{"prompt": "", "max_tokens": 1}`, "empty"},
	}
	for _, tt := range tests {
		_, _, err := FromJSONL("in.jsonl", strings.NewReader(tt.in), ImportOptions{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want %q", tt.in, err, tt.want)
		}
	}
}

const shareGPTSample = `[
 {"id": "a", "conversations": [{"from": "human", "value": "Tell me a story about a cat and a dog please"}, {"from": "gpt", "value": "Once upon a time there was a cat who lived with a dog in a house."}]},
 {"id": "b", "conversations": [{"from": "gpt", "value": "I start"}, {"from": "human", "value": "odd"}]},
 {"id": "c", "conversations": [{"from": "human", "value": "only one turn here"}]},
 {"id": "d", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "A fairly long reply that goes on"}]},
 {"id": 7, "conversations": [{"from": "human", "value": "What is the capital of France, and why?"}, {"from": "gpt", "value": "Paris is the capital of France for historical reasons."}, {"from": "human", "value": "more"}]}
]`

func TestShareGPT(t *testing.T) {
	reqs, st, err := ShareGPT("sg.json", strings.NewReader(shareGPTSample), ShareGPTOptions{MinLen: 4, MaxInputLen: 1024, MaxTotalLen: 2048,
		ImportOptions: ImportOptions{FixedLength: true}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Read != 5 || st.Kept != 2 || len(st.Skipped) != 3 {
		t.Errorf("stats %+v", st)
	}
	if reqs[0].ID != "a" || reqs[1].ID != "7" {
		t.Errorf("ids %s %s", reqs[0].ID, reqs[1].ID)
	}
	r := reqs[0]
	reply := "Once upon a time there was a cat who lived with a dog in a house."
	if r.Kind() != KindChat || r.Messages[0].Role != "user" || r.MaxTokens != ApproxTokens(reply) || r.MaxTokens != (len(reply)+3)/4 {
		t.Errorf("request %+v", r)
	}
	// Shuffle and --num are deterministic from the seed.
	opts := ShareGPTOptions{Num: 1, ImportOptions: ImportOptions{Seed: 1, OutputLen: 100}}
	a, _, _ := ShareGPT("sg.json", strings.NewReader(shareGPTSample), opts)
	b, _, _ := ShareGPT("sg.json", strings.NewReader(shareGPTSample), opts)
	if len(a) != 1 || a[0].ID != b[0].ID || a[0].MaxTokens != 100 {
		t.Errorf("num/seed: %+v %+v", a, b)
	}
	if _, _, err := ShareGPT("sg.json", strings.NewReader(`{"id": 1}`), ShareGPTOptions{}); err == nil || !strings.Contains(err.Error(), "JSON array") {
		t.Errorf("object input: %v", err)
	}
	if _, _, err := ShareGPT("sg.json", strings.NewReader(`[{"id": "x", "conversations": 3}]`), ShareGPTOptions{}); err == nil || !strings.Contains(err.Error(), "sg.json: conversation 1") {
		t.Errorf("bad element: %v", err)
	}
}

func TestApproxTokens(t *testing.T) {
	for s, want := range map[string]int{"": 1, "abc": 1, "abcd": 1, "abcde": 2, "héllo wörld!": 3, "日本語": 1} {
		if got := ApproxTokens(s); got != want {
			t.Errorf("ApproxTokens(%q) = %d, want %d", s, got, want)
		}
	}
}
