package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/atomicfile"
)

// sampleTrace is the repository's small Mooncake trace.
var sampleTrace, _ = filepath.Abs(filepath.Join("..", "testdata", "traces", "conversation.jsonl"))

// TestParseTrace: a trace workload with its defaults; runs that give no
// load replay on the trace's schedule.
func TestParseTrace(t *testing.T) {
	src := strings.Replace(base, "{random: {num: 4, input_len: 8, output_len: 4}}", "{trace: {file: "+sampleTrace+", format: mooncake, time_scale: 0.1, limit: 20, start: 5s}}", 1)
	src = strings.Replace(src, "{concurrency: 2}", "{count: 2}", 1)
	e, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Trace{File: sampleTrace, Format: workload.TraceMooncake, BlockSize: 512, TimeScale: 0.1, StartS: 5, Limit: 20, Vocab: 32000, FixedLength: true}
	if e.Workload.Trace == nil || *e.Workload.Trace != want || e.Runs.Kind != LoadTrace || e.Workload.Random != nil {
		t.Fatalf("workload %+v, runs %+v", e.Workload.Trace, e.Runs)
	}
	dir := t.TempDir()
	d, err := atomicfile.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	path := filepath.Join(dir, WorkloadFile)
	if err := materialiseTrace(context.Background(), want, d); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Load(path)
	if err != nil || len(w.Requests) != 20 || w.Header.Trace.TimeScale != 0.1 || w.Header.Trace.StartS != 5 {
		t.Fatalf("materialised %v: %+v", err, w)
	}
	st, _ := os.Stat(path)
	if err := materialiseTrace(context.Background(), want, d); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(path); !st2.ModTime().Equal(st.ModTime()) {
		t.Error("an unchanged trace workload was rewritten")
	}
}

func TestParseTraceErrors(t *testing.T) {
	wl := func(trace string) string {
		return strings.Replace(base, "{random: {num: 4, input_len: 8, output_len: 4}}", "{trace: "+trace+"}", 1)
	}
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"missing", wl("{time_scale: 1}"), []string{`x.yaml:3: workload.trace: missing "file"`, `x.yaml:3: workload.trace: missing "format"`}},
		{"format", wl("{file: " + sampleTrace + ", format: sharegpt}"), []string{`x.yaml:3: workload.trace.format: unknown value "sharegpt" (want mooncake or azure)`}},
		{"no file", wl("{file: nothere.jsonl, format: azure}"), []string{`x.yaml:3: workload.trace.file: nothere.jsonl is not a readable file`}},
		{"time scale", wl("{file: " + sampleTrace + ", format: azure, time_scale: 0}"), []string{`x.yaml:3: workload.trace.time_scale: must be > 0, got 0`}},
		{"block size", wl("{file: " + sampleTrace + ", format: mooncake, block_size: 100000}"), []string{`x.yaml:3: workload.trace: --block-size must be in [1, 65536], got 100000`}},
		{"rate", strings.Replace(wl("{file: "+sampleTrace+", format: mooncake}"), "{concurrency: 2}", "{rate: 2}", 1),
			[]string{`x.yaml:4: runs, sweep: a trace workload sends every request at its own arrival time`}},
		{"no load without a trace", strings.Replace(base, "{concurrency: 2}", "{count: 2}", 1), []string{`x.yaml:4: runs: want one of concurrency, rate (only a trace workload may give neither)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.src))
			if err == nil {
				t.Fatal("accepted")
			}
			lines := strings.Split(err.Error(), "\n")
			for i, w := range tc.want {
				if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
					t.Errorf("want line %q in:\n%s", w, err)
				}
			}
			if len(lines) != len(tc.want) {
				t.Errorf("%d errors, want %d:\n%s", len(lines), len(tc.want), err)
			}
		})
	}
}
