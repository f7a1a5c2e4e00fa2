package flagopts

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
)

// TestOutputTrace: a wrong flag is a usage error naming it, before the
// trace is read; a bad trace is an ordinary error naming the file; a good
// one is written with its summary.
func TestOutputTrace(t *testing.T) {
	dir := t.TempDir()
	path, bad := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "bad.jsonl")
	trace := `{"timestamp": 0, "input_length": 20, "output_length": 4, "hash_ids": [1, 2]}
{"timestamp": 250, "input_length": 12, "output_length": 3, "hash_ids": [1, 3]}
`
	if err := os.WriteFile(path, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"timestamp": 0, "input_length": 20}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mc := workload.TraceSpec{Format: workload.TraceMooncake, BlockSize: 10}
	for _, tc := range []struct {
		name   string
		in     string
		spec   workload.TraceSpec
		prompt string
		tok    string
		usage  bool
		want   string
	}{
		{"format", path, workload.TraceSpec{Format: "sharegpt"}, "", "", true, `--format "sharegpt"`},
		{"time scale", path, workload.TraceSpec{Format: workload.TraceMooncake, TimeScale: -1}, "", "", true, "--time-scale"},
		{"block size", path, workload.TraceSpec{Format: workload.TraceMooncake, BlockSize: -2}, "", "", true, "--block-size"},
		{"limit", path, workload.TraceSpec{Format: workload.TraceMooncake, Limit: -1}, "", "", true, "--limit"},
		{"text without tokenizer", path, mc, "text", "", true, "--prompt text needs --tokenizer"},
		{"chat", path, mc, "chat", "", true, `--prompt "chat"`},
		{"ids with tokenizer", path, mc, "ids", "tok.json", true, "--tokenizer applies to --prompt text"},
		{"bad trace", bad, mc, "", "", false, "bad.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.jsonl")
			o := &Output{Path: out, Tokenizer: tc.tok}
			err := o.Trace(context.Background(), &bytes.Buffer{}, &bytes.Buffer{}, tc.in, tc.spec, tc.prompt, func(...string) {})
			var ue *cli.UsageError
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &ue) != tc.usage {
				t.Errorf("err %v (usage error %v), want %q, usage error %v", err, errors.As(err, &ue), tc.want, tc.usage)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Error("a file was written")
			}
		})
	}
	out := filepath.Join(dir, "wl.jsonl")
	var stdout, log bytes.Buffer
	o := &Output{Path: out, FixedLength: true}
	if err := o.Trace(context.Background(), &stdout, &log, path, mc, "", func(...string) {}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "workload: 2 requests  sha256 ") || !strings.Contains(log.String(), "read 2 trace lines, kept 2") {
		t.Errorf("stdout %q, log %q", stdout.String(), log.String())
	}
	if err := o.Trace(context.Background(), &stdout, &log, path, mc, "", func(...string) {}); err == nil {
		t.Error("an existing --out was replaced without --force")
	}
}
