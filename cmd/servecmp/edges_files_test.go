package main

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// TestOutputsNeverDestroyInputs runs every command that writes a file
// with that file naming one of its inputs, and with /dev/null: the input
// is refused before any work and left unchanged, and /dev/null stays a
// character device.
func TestOutputsNeverDestroyInputs(t *testing.T) {
	dir := t.TempDir()
	wl := benchWorkload(t, 4, 4)
	res := writeResult(t, dir, "a.json", "m")
	resB := writeResultWith(t, dir, "b.json", func(r *result.Result) { r.Summary.RequestsOK = 9 })
	sharegpt := filepath.Join(dir, "sharegpt.json")
	os.WriteFile(sharegpt, []byte(`[{"id":"x","conversations":[{"from":"human","value":"hello there friend"},{"from":"gpt","value":"hi to you too"}]}]`), 0o644)
	export := servingExport(t, dir, "r.sqlite", 1, "", "")
	summary := filepath.Join(dir, "s.json")
	if code, _, e := runCmd(t, []string{"analyze", "--save", summary, export}, nil); code != 0 {
		t.Fatalf("analyze --save: %s", e)
	}
	// The tokenizer, chat template and key file are inputs too (the
	// check comes before any of them is read, so their content is moot).
	tok, tmpl, key := filepath.Join(dir, "tok.json"), filepath.Join(dir, "t.jinja"), filepath.Join(dir, "key")
	for _, p := range []string{tok, tmpl, key} {
		os.WriteFile(p, []byte("keep me"), 0o644)
	}
	hash := func(p string) [32]byte { b, _ := os.ReadFile(p); return sha256.Sum256(b) }
	refused := [][]string{
		{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--concurrency", "1", "--tokenizer", tok, "--records", tok},
		{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--concurrency", "1", "--api-key-file", key, "--out", key},
		{"profile", "--url", "http://127.0.0.1:1", "--workload", wl, "--concurrency", "1", "--tokenizer", tok, "--out", tok},
		{"check", "--a", "http://127.0.0.1:1", "--b", "http://127.0.0.1:2", "--workload", wl, "--api-key-file", key, "--out", key},
		{"workload", "random", "--num", "2", "--input-len", "4", "--output-len", "4", "--tokenizer", tok, "--out", tok, "--force"},
		{"workload", "random", "--num", "2", "--input-len", "4", "--output-len", "4", "--tokenizer", tok, "--chat-template", tmpl, "--out", tmpl, "--force"},
		{"workload", "from-jsonl", wl, "--tokenizer", tok, "--out", tok, "--force"},
		{"workload", "dataset", sharegpt, "--tokenizer", tok, "--out", tok, "--force"},
		{"analyze", "--save", export, export},
		{"merge", "--save", summary, summary},
		{"workload", "from-jsonl", wl, "--out", wl, "--force"},
		{"workload", "sharegpt", sharegpt, "--out", sharegpt, "--force"},
		{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--concurrency", "1", "--records", wl},
		{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--concurrency", "1", "--out", wl},
		{"check", "--a", "http://127.0.0.1:1", "--b", "http://127.0.0.1:2", "--workload", wl, "--out", wl},
		{"compare", "--a", res, "--b", resB, "--xlsx", res},
	}
	before := map[string][32]byte{}
	for _, p := range []string{wl, res, resB, sharegpt, export, summary, tok, tmpl, key} {
		before[p] = hash(p)
	}
	for _, args := range refused {
		code, _, e := runCmd(t, args, nil)
		if code == 0 || !strings.Contains(e, "is also an input") {
			t.Errorf("%v: exit %d, stderr %q; want a refusal naming the input", args, code, e)
		}
	}
	for p, h := range before {
		if hash(p) != h {
			t.Errorf("%s was changed", p)
		}
	}
	devNull := [][]string{
		{"analyze", "--save", os.DevNull, export},
		{"merge", "--save", os.DevNull, summary},
		{"workload", "random", "--num", "2", "--input-len", "4", "--output-len", "4", "--out", os.DevNull, "--force"},
		{"compare", "--a", res, "--b", resB, "--xlsx", os.DevNull},
	}
	for _, args := range devNull {
		if code, _, e := runCmd(t, args, nil); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, e)
		}
		if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("%v: %s is no longer a character device", args, os.DevNull)
		}
	}
}

// TestInputsRefuseFIFOs gives a named pipe without a writer to every
// command's file inputs: each refuses it at once instead of blocking.
func TestInputsRefuseFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no named pipes here:", err)
	}
	res := writeResult(t, dir, "a.json", "m")
	wl := benchWorkload(t, 4, 4)
	for _, args := range [][]string{
		{"analyze", fifo},
		{"merge", fifo},
		{"classify", "--rules", fifo, "gemm"},
		{"rules", "check", fifo},
		{"workload", "from-jsonl", fifo, "--out", filepath.Join(dir, "o.jsonl")},
		{"workload", "sharegpt", fifo, "--out", filepath.Join(dir, "o.jsonl")},
		{"workload", "info", fifo},
		{"benchmark", "--url", "http://127.0.0.1:1", "--workload", fifo, "--concurrency", "1"},
		{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--concurrency", "1", "--manifest-file", fifo},
		{"compare", "--a", fifo, "--b", res},
		{"compare", "--a", res, "--b", res, "--records-a", fifo},
		{"compare", "--a", res, "--b", res, "--profile-a", fifo},
		{"compare", "--a", res, "--b", res, "--check", fifo},
		{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--concurrency", "1", "--api-key-file", fifo},
		{"check", "--a", "http://127.0.0.1:1", "--b", "http://127.0.0.1:2", "--workload", wl, "--api-key-file", fifo},
		{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--concurrency", "1", "--api-key-file", "/dev/zero"},
	} {
		done := make(chan string, 1)
		go func() {
			code, _, e := runCmd(t, args, nil)
			if code == 0 {
				e = "exit 0: " + e
			}
			done <- e
		}()
		select {
		case e := <-done:
			if !strings.Contains(e, "named pipe") && !strings.Contains(e, "not a regular file") && !strings.Contains(e, "character device") {
				t.Errorf("%v: stderr %q; want a refusal of the named pipe", args, e)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v blocked on a named pipe", args)
		}
	}
}
