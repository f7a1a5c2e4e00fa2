package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/servecmp/servecmp/benchmark/workload"
)

const sharedTok = "../../../shared/testdata/tokenizers"

func writeBytes(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRealTextBadInput: an unsupported tokenizer, a truncated tokenizer
// file and a Parquet file without the named field each fail with exit 1
// and one line naming the file and what is wrong.
func TestRealTextBadInput(t *testing.T) {
	dir := t.TempDir()
	unigram := writeBytes(t, dir, "wordlevel.json", []byte(`{"model":{"type":"WordLevel","vocab":{"a":0}}}`))
	truncated := writeBytes(t, dir, "truncated.json", []byte(`{"model":{"type":"BPE","vocab":{"a":0,"b`))
	type row struct {
		Text string `parquet:"text"`
	}
	pq := filepath.Join(dir, "d.parquet")
	pf, err := os.Create(pq)
	if err != nil {
		t.Fatal(err)
	}
	if err := parquet.Write(pf, []row{{"hello"}}); err != nil {
		t.Fatal(err)
	}
	pf.Close()
	out := filepath.Join(dir, "w.jsonl")
	random := []string{"workload", "random", "--num", "2", "--input-len", "8", "--output-len", "4", "--out", out, "--tokenizer"}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"unsupported", append(random, unigram), []string{unigram, "WordLevel"}},
		{"truncated json", append(random, truncated), []string{truncated}},
		{"parquet field", []string{"workload", "dataset", pq, "--prompt-field", "question", "--out", out}, []string{pq, `"question"`, "text"}},
		{"sharegpt tokenizer", []string{"workload", "sharegpt", pq, "--tokenizer", unigram, "--out", out}, []string{unigram}},
	}
	if gguf := filepath.Join(sharedTok, "gguf/ggml-vocab-gpt-2.gguf"); fileExists(gguf) {
		b, _ := os.ReadFile(gguf)
		cut := writeBytes(t, dir, "cut.gguf", b[:len(b)/3])
		cases = append(cases, struct {
			name string
			args []string
			want []string
		}{"truncated gguf", append(random, cut), []string{cut}})
	}
	for _, tc := range cases {
		code, _, errs := runWorkloadCLI(t, tc.args...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1 (%s)", tc.name, code, errs)
		}
		if strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%s: error is not one line: %q", tc.name, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: stderr %q lacks %q", tc.name, errs, w)
			}
		}
	}
	if code, _, errs := runWorkloadCLI(t, "workload", "random", "--num", "2", "--input-len", "8", "--output-len", "4", "--out", out, "--prompt", "text"); code != 2 || !strings.Contains(errs, "--tokenizer") {
		t.Errorf("--prompt text without a tokenizer: exit %d %q", code, errs)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestWorkloadRandomChatCLI writes a chat workload under a tokenizer and
// reads its header back.
func TestWorkloadRandomChatCLI(t *testing.T) {
	tok := filepath.Join(sharedTok, "hf/qwen2.5/tokenizer.json")
	if !fileExists(tok) {
		t.Skip("shared tokenizer test data absent")
	}
	out := filepath.Join(t.TempDir(), "chat.jsonl")
	code, _, errs := runWorkloadCLI(t, "workload", "random", "--tokenizer", tok, "--prompt", "chat", "--num", "5",
		"--input-len", "50:60", "--output-len", "8", "--prefix-len", "20", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	w, err := workload.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if w.Header == nil || w.Header.Prompt != workload.KindChat || w.Header.Tokenizer != "tokenizer.json" || len(w.Header.TokenizerHash) != 64 {
		t.Fatalf("header %+v", w.Header)
	}
	for _, r := range w.Requests {
		if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.InputLen < 70 || r.InputLen > 80 {
			t.Fatalf("request %+v", r)
		}
	}
}

// TestWorkloadDatasetCLI imports a multi-turn Parquet dataset and shows
// its sessions in workload info.
func TestWorkloadDatasetCLI(t *testing.T) {
	type msg struct {
		Role    string `parquet:"role"`
		Content string `parquet:"content"`
	}
	type row struct {
		Conv []msg `parquet:"conv"`
	}
	dir := t.TempDir()
	pq := filepath.Join(dir, "chats.parquet")
	f, err := os.Create(pq)
	if err != nil {
		t.Fatal(err)
	}
	turns := []msg{{"user", "Hi there"}, {"assistant", "Hello! How can I help?"}, {"user", "Tell me a joke"}, {"assistant", "No."}}
	if err := parquet.Write(f, []row{{turns}, {turns[:2]}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "w.jsonl")
	code, _, errs := runWorkloadCLI(t, "workload", "dataset", pq, "--messages-field", "conv", "--multi-turn", "--out", out)
	if code != 0 || !strings.Contains(errs, "read 2 records, kept 3") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, info, errs := runWorkloadCLI(t, "workload", "info", out)
	if code != 0 || !strings.Contains(info, "sessions    2 (3 turns)") {
		t.Fatalf("info exit %d: %s %s", code, info, errs)
	}
}
