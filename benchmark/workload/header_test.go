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
