package experiment

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestDocGrammar keeps the grammar in the package doc true: its example
// file parses, and the only complaints are the alternatives it shows side
// by side on purpose.
func TestDocGrammar(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	in := false
	for _, l := range strings.Split(string(src), "\n") {
		code, ok := strings.CutPrefix(l, "//\t")
		switch {
		case ok && strings.HasPrefix(code, "a:"):
			in = true
		case !ok:
			in = false
		}
		if in {
			block = append(block, code)
		}
	}
	if len(block) < 40 {
		t.Fatalf("grammar block not found (%d lines)", len(block))
	}
	_, err = Parse("doc.yaml", []byte(strings.Join(block, "\n")))
	if err == nil {
		t.Fatal("the doc's side-by-side alternatives were accepted")
	}
	got := strings.Split(err.Error(), "\n")
	for i, l := range got {
		got[i] = l[strings.Index(l, ": ")+2:] // drop "doc.yaml:LINE"
	}
	want := []string{
		"workload.file: workload.jsonl is not a readable file",
		"workload.random.tokenizer: tokenizer.json is not a readable file",
		"workload.trace.file: conversation_trace.jsonl is not a readable file",
		"workload.trace.tokenizer: tokenizer.json is not a readable file",
		"workload: give only one of file and random and trace",
		"profile: give only one of for and steps",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the doc's grammar gives:\n%s\nwant only:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
