package workload

import (
	"bytes"
	"strings"
	"testing"
)

// TestHeader: written files open with the schema line; files with and
// without it read the same requests; a wrong or misplaced header is an
// error naming the line.
func TestHeader(t *testing.T) {
	reqs := []Request{{ID: "a", Prompt: "hi", MaxTokens: 2}, {ID: "b", Prompt: "yo", MaxTokens: 3}}
	var buf bytes.Buffer
	if err := Write(&buf, reqs); err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(buf.String(), "\n")
	if first != `{"schema":"servecmp.workload/1","requests":2}` {
		t.Errorf("first line %s", first)
	}
	tests := []struct {
		name, data, err string
	}{
		{"with header", buf.String(), ""},
		{"without header", rest, ""},
		{"blank line first", "\n" + buf.String(), ""},
		{"other schema", `{"schema":"servecmp.result/2"}` + "\n" + rest, `w.jsonl:1: header: schema "servecmp.result/2" is not a servecmp workload`},
		{"newer version", `{"schema":"servecmp.workload/9","requests":2}` + "\n" + rest, `w.jsonl:1: header: schema "servecmp.workload/9" is newer`},
		{"unknown header field", `{"schema":"servecmp.workload/1","x":1}` + "\n" + rest, `w.jsonl:1: header: invalid JSON: unknown field "x"`},
		{"header after a request", rest + first + "\n", `w.jsonl:3: invalid JSON: unknown field "schema"`},
	}
	for _, tc := range tests {
		w, err := Parse("w.jsonl", []byte(tc.data))
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want prefix %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || len(w.Requests) != 2 || w.Requests[1].ID != "b" {
			t.Errorf("%s: %v, %+v", tc.name, err, w)
		}
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	reqs := []Request{{ID: "a", Prompt: "hello", MaxTokens: 4, InputLen: 1}}
	h := &Header{Tokenizer: "tokenizer.json", TokenizerHash: "ab12", Prompt: KindText}
	var buf bytes.Buffer
	if err := WriteWithHeader(&buf, h, reqs); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `{"schema":"servecmp.workload/1","requests":1,"tokenizer":"tokenizer.json","tokenizer_hash":"ab12","prompt":"text"}`+"\n") {
		t.Fatalf("file %q", buf.String())
	}
	w, err := Parse("w.jsonl", buf.Bytes())
	want := *h
	want.Schema, want.Requests = Schema, 1
	if err != nil || w.Header == nil || *w.Header != want || len(w.Requests) != 1 {
		t.Fatalf("%v %+v", err, w)
	}
	// No header fields: the bytes are exactly Write's.
	var plain, none bytes.Buffer
	_ = Write(&plain, reqs)
	_ = WriteWithHeader(&none, nil, reqs)
	if !bytes.Equal(plain.Bytes(), none.Bytes()) {
		t.Fatal("a nil header changed the file")
	}
	for _, bad := range []string{`{"schema":"servecmp.workload/1","requests":1,"tokenizer_hash":"x","bogus":1}`, `{"schema":"servecmp.workload/1","requests":2}`} {
		if _, err := Parse("w.jsonl", []byte(bad+"\n"+`{"id":"a","prompt":"x","max_tokens":1}`)); err == nil || !strings.Contains(err.Error(), "w.jsonl") {
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
