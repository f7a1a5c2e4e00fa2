package workload

import (
	"bytes"
	"strings"
	"testing"
)

func TestHeaderRoundTrip(t *testing.T) {
	reqs := []Request{{ID: "a", Prompt: "hello", MaxTokens: 4, InputLen: 1}}
	h := &Header{Tokenizer: "tokenizer.json", TokenizerHash: "ab12", Prompt: KindText}
	var buf bytes.Buffer
	if err := WriteWithHeader(&buf, h, reqs); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `{"header":{"tokenizer":"tokenizer.json","tokenizer_hash":"ab12","prompt":"text"}}`+"\n") {
		t.Fatalf("file %q", buf.String())
	}
	w, err := Parse("w.jsonl", buf.Bytes())
	if err != nil || w.Header == nil || *w.Header != *h || len(w.Requests) != 1 {
		t.Fatalf("%v %+v", err, w)
	}
	// No header: the bytes are exactly Write's.
	var plain, none bytes.Buffer
	_ = Write(&plain, reqs)
	_ = WriteWithHeader(&none, nil, reqs)
	if !bytes.Equal(plain.Bytes(), none.Bytes()) {
		t.Fatal("a nil header changed the file")
	}
	for _, bad := range []string{`{"header":{"tokenizer_hash":"x","bogus":1}}`, `{"header":null}`} {
		if _, err := Parse("w.jsonl", []byte(bad+"\n"+`{"id":"a","prompt":"x","max_tokens":1}`)); err == nil || !strings.Contains(err.Error(), "w.jsonl:1: header") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestSessionValidation(t *testing.T) {
	msg := []Message{{Role: "user", Content: "hi"}}
	off := 1.0
	for _, tc := range []struct {
		reqs []Request
		want string
	}{
		{[]Request{{ID: "a", Messages: msg, MaxTokens: 1, Session: "s", Turn: 1}}, "want turn 0"},
		{[]Request{{ID: "a", Messages: msg, MaxTokens: 1, Session: "s"}, {ID: "b", Messages: msg, MaxTokens: 1, Session: "s", Turn: 2}}, "want turn 1"},
		{[]Request{{ID: "a", Prompt: "x", MaxTokens: 1, Session: "s"}}, "must be a chat prompt"},
		{[]Request{{ID: "a", Messages: msg, MaxTokens: 1, Turn: 1}}, "without a session"},
		{[]Request{{ID: "a", Messages: msg, MaxTokens: 1, Session: "s"}, {ID: "b", Messages: msg, MaxTokens: 1, Session: "s", Turn: 1, ArrivalOffsetS: &off}}, "first turn"},
	} {
		err := Validate(tc.reqs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.reqs, err, tc.want)
		}
	}
	ok := []Request{{ID: "a", Messages: msg, MaxTokens: 1, Session: "s"}, {ID: "x", Prompt: "p", MaxTokens: 1},
		{ID: "b", Messages: msg, MaxTokens: 1, Session: "s", Turn: 1}}
	if err := Validate(ok); err != nil {
		t.Fatal(err)
	}
}
