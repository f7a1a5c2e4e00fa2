package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/workload"
)

func runWorkloadCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestWorkloadRandomCLIByteIdentical(t *testing.T) {
	dir := t.TempDir()
	args := []string{"workload", "random", "--num", "50", "--input-len", "normal:64,16", "--output-len", "16:32",
		"--seed", "7", "--prefix-len", "8", "--vocab", "5000", "--temperature", "0.6", "--top-p", "0.9", "--request-rate", "5"}
	var files [][]byte
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		p := filepath.Join(dir, name)
		code, out, errs := runWorkloadCLI(t, append(args, "--out", p)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if !strings.Contains(out, "50 requests") || !strings.Contains(out, p) {
			t.Errorf("summary %q", out)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("same arguments gave different files")
	}
	w, err := workload.Load(filepath.Join(dir, "a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r := w.Requests[0]
	if r.Sampling.TopP == nil || *r.Sampling.TopP != 0.9 || r.Sampling.TopK != nil || r.Sampling.Seed == nil || r.ArrivalOffsetS == nil {
		t.Errorf("sampling/arrival %+v", r)
	}
	// A frozen file is not overwritten without --force.
	code, _, errs := runWorkloadCLI(t, append(args, "--out", filepath.Join(dir, "a.jsonl"))...)
	if code != 1 || !strings.Contains(errs, "exists") {
		t.Errorf("overwrite: exit %d %q", code, errs)
	}
	code, _, _ = runWorkloadCLI(t, append(args, "--out", filepath.Join(dir, "a.jsonl"), "--force")...)
	if code != 0 {
		t.Errorf("--force: exit %d", code)
	}
}

func TestWorkloadCLIErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"prompt": "x", "max_tokens": 2}`+"\n"+`{"prompt": 3}`+"\n"), 0o644)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"workload", "random", "--num", "2", "--input-len", "a", "--output-len", "3", "--out", filepath.Join(dir, "x")}, 2, "--input-len"},
		{[]string{"workload", "random", "--num", "2", "--input-len", "3"}, 2, "required"},
		{[]string{"workload", "random", "--num", "0", "--input-len", "3", "--output-len", "3", "--out", filepath.Join(dir, "x")}, 2, "--num"},
		{[]string{"workload", "from-jsonl", bad, "--out", filepath.Join(dir, "y")}, 1, "bad.jsonl:2:"},
		{[]string{"workload", "from-jsonl", filepath.Join(dir, "missing"), "--out", filepath.Join(dir, "y")}, 1, "missing"},
		{[]string{"workload", "info", bad}, 1, "bad.jsonl:1: empty id"},
	}
	for _, tt := range tests {
		code, _, errs := runWorkloadCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
}

func TestWorkloadImportCLI(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "p.jsonl")
	os.WriteFile(src, []byte(`{"prompt": "hello", "output_len": 4, "meta": 1}`+"\n"), 0o644)
	out := filepath.Join(dir, "w.jsonl")
	code, stdout, errs := runWorkloadCLI(t, "workload", "from-jsonl", src, "--out", out)
	if code != 0 || !strings.Contains(stdout, "1 requests") || !strings.Contains(errs, "ignored keys: meta") {
		t.Fatalf("exit %d %q %q", code, stdout, errs)
	}
	sg := filepath.Join(dir, "sg.json")
	os.WriteFile(sg, []byte(`[{"id":"a","conversations":[{"from":"human","value":"what is a good name for a cat"},{"from":"gpt","value":"Whiskers is a classic choice for a cat."}]}]`), 0o644)
	code, stdout, errs = runWorkloadCLI(t, "workload", "sharegpt", sg, "--out", filepath.Join(dir, "s.jsonl"), "--num", "3")
	if code != 0 || !strings.Contains(stdout, "1 requests") || !strings.Contains(errs, "only 1 usable") {
		t.Fatalf("exit %d %q %q", code, stdout, errs)
	}
	code, stdout, _ = runWorkloadCLI(t, "workload", "info", filepath.Join(dir, "s.jsonl"))
	if code != 0 || !strings.Contains(stdout, "chat 1") || !strings.Contains(stdout, "sha256") {
		t.Errorf("info: %d %q", code, stdout)
	}
}

func TestWorkloadOutChecked(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"prompt":"hello there","max_tokens":4}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"out is the input", []string{"workload", "from-jsonl", in, "--out", in, "--force"}},
		{"out in a missing directory", []string{"workload", "random", "--num", "2", "--input-len", "4", "--output-len", "4",
			"--out", filepath.Join(dir, "missing", "w.jsonl")}},
	} {
		code, _, errs := runWorkloadCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errs, "--out") {
			t.Errorf("%s: exit %d, want 2 naming --out: %s", tc.name, code, errs)
		}
	}
	if b, _ := os.ReadFile(in); !strings.Contains(string(b), "hello there") {
		t.Error("the input was overwritten")
	}
}
