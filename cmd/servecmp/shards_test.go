//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/experiment"
	"github.com/servecmp/servecmp/servesim"
)

// simServer is serve-sim in this process, with step times long enough
// (10 ms a decode step) that the client's own overhead is small beside
// them.
func simServer(t *testing.T) string {
	t.Helper()
	sim := servesim.New(servesim.Config{MaxRunning: 64, DecodeBase: 10 * time.Millisecond, PrefillPerToken: 20 * time.Microsecond, EOSProb: -1, ModelName: "m"})
	s := httptest.NewServer(sim)
	t.Cleanup(func() { s.Close(); sim.Close() })
	return s.URL
}

// runOK runs servecmp in this process and fails the test on a non-zero
// exit.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var o, e bytes.Buffer
	if code := run(context.Background(), args, &o, &e); code != 0 {
		t.Fatalf("servecmp %s: exit %d\n%s", strings.Join(args, " "), code, e.String())
	}
	return o.String()
}

// shardProcs runs n `servecmp benchmark --shard i/n` processes (this test
// binary as servecmp) that start together at one instant, and returns
// their result and records files.
func shardProcs(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	cmds := make([]*exec.Cmd, n)
	errs := make([]bytes.Buffer, n)
	var files []string
	for i := range n {
		out, recs := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i)), filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
		a := append([]string{"benchmark", "--shard", fmt.Sprintf("%d/%d", i, n), "--start-at", start, "--out", out, "--records", recs, "--progress", "off"}, args...)
		cmds[i] = exec.Command(self, a...)
		cmds[i].Env = append(os.Environ(), asMainEnv+"=1")
		cmds[i].Stdout, cmds[i].Stderr = &bytes.Buffer{}, &errs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
		files = append(files, out, recs)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d/%d: %v\n%s", i, n, err, errs[i].String())
		}
	}
	return files
}

// TestShardedBenchmarkEndToEnd: 4 shard processes against serve-sim,
// merged, give the counts of one process sending the whole workload at
// the total concurrency, and its percentiles within noise; compare reads
// the merged result and records as any other, and refuses a lone shard.
func TestShardedBenchmarkEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve-sim and five benchmarks")
	}
	url, dir := simServer(t), t.TempDir()
	wl := filepath.Join(dir, "wl.jsonl")
	runOK(t, "workload", "random", "--num", "240", "--input-len", "32:128", "--output-len", "8:24", "--seed", "3", "--out", wl)
	common := []string{"--url", url, "--model", "m", "--workload", wl, "--reset-prefix-cache", "--metrics-url", "none"}
	single, singleRecs := filepath.Join(dir, "single.json"), filepath.Join(dir, "single.jsonl")
	runOK(t, append([]string{"benchmark", "--concurrency", "16", "--out", single, "--records", singleRecs, "--progress", "off"}, common...)...)
	files := shardProcs(t, dir, 4, append([]string{"--concurrency", "4"}, common...)...)
	merged, mergedRecs := filepath.Join(dir, "merged.json"), filepath.Join(dir, "merged.jsonl")
	runOK(t, append([]string{"merge", "--out", merged, "--records", mergedRecs}, files...)...)
	a, b := readResult(t, single), readResult(t, merged)
	sa, sb := a.Summary, b.Summary
	if sa.RequestsOK != 240 || sb.RequestsOK != sa.RequestsOK || sb.RequestsFailed != 0 || sb.InputTokens != sa.InputTokens || sb.OutputTokens != sa.OutputTokens ||
		sb.TTFT.Count != sa.TTFT.Count || sb.ITL.Count != sa.ITL.Count || b.Load.Concurrency != 16 || b.Load.Requests != 240 {
		t.Fatalf("merged %d ok, %d/%d tokens, %d itl, load %+v; single %d ok, %d/%d tokens, %d itl", sb.RequestsOK, sb.InputTokens, sb.OutputTokens,
			sb.ITL.Count, b.Load, sa.RequestsOK, sa.InputTokens, sa.OutputTokens, sa.ITL.Count)
	}
	t.Logf("single: ttft p50 %.2f p90 %.2f, tpot p50 %.2f p90 %.2f, e2e p50 %.2f p90 %.2f ms, %.1f output tok/s",
		sa.TTFT.P50, sa.TTFT.P90, sa.TPOT.P50, sa.TPOT.P90, sa.E2E.P50, sa.E2E.P90, sa.OutputThroughput)
	t.Logf("merged: ttft p50 %.2f p90 %.2f, tpot p50 %.2f p90 %.2f, e2e p50 %.2f p90 %.2f ms, %.1f output tok/s; starts spread %.2f ms",
		sb.TTFT.P50, sb.TTFT.P90, sb.TPOT.P50, sb.TPOT.P90, sb.E2E.P50, sb.E2E.P90, sb.OutputThroughput, 1000*b.Shards.StartSpreadS)
	near := func(name string, x, y, rel, abs float64) {
		if math.Abs(x-y) > math.Max(rel*y, abs) {
			t.Errorf("%s: merged %.2f, single %.2f: further apart than %.0f%% or %g", name, x, y, 100*rel, abs)
		}
	}
	near("tpot p50", sb.TPOT.P50, sa.TPOT.P50, 0.15, 1)
	near("e2e p50", sb.E2E.P50, sa.E2E.P50, 0.15, 10)
	near("e2e p90", sb.E2E.P90, sa.E2E.P90, 0.15, 10)
	near("ttft p50", sb.TTFT.P50, sa.TTFT.P50, 0.5, 10)
	near("output throughput", sb.OutputThroughput, sa.OutputThroughput, 0.2, 0)
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"compare", "--a", merged, "--b", single, "--records-a", mergedRecs, "--records-b", singleRecs}, &o, &e)
	if code != 0 || strings.Contains(o.String(), "NOT COMPARABLE") {
		t.Errorf("compare merged vs single: exit %d\n%s\n%s", code, o.String(), e.String())
	}
	o.Reset()
	e.Reset()
	code = run(context.Background(), []string{"compare", "--a", files[0], "--b", single}, &o, &e)
	if code != 2 && code != 1 || !strings.Contains(e.String(), "shard 0/4 of a sharded run") {
		t.Errorf("compare of a lone shard: exit %d, %s", code, e.String())
	}
	checkMergedRecords(t, mergedRecs, b)
	schemas := compileSchemas(t)
	for _, f := range []struct{ schema, path string }{{"result", files[0]}, {"record", files[1]}, {"result", merged}, {"record", mergedRecs}} {
		validateFile(t, schemas, f.schema, f.path)
	}
	shard, _ := os.ReadFile(files[0])
	if doc := strings.Replace(string(shard), `"servecmp.shard/1"`, `"servecmp.result/2"`, 1); validate(schemas["result"], []byte(doc)) == nil {
		t.Error("a whole-run result with a shard block matches result.json")
	}
}

// checkMergedRecords: the merged records carry the merged run id and
// count from the merged t=0.
func checkMergedRecords(t *testing.T, path string, res *result.Result) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := result.ReadRecords(f)
	if err != nil || len(recs) != 240 {
		t.Fatalf("%d merged records: %v", len(recs), err)
	}
	for _, r := range recs {
		if r.RunID != res.RunID || r.Shard == nil || r.SentS < 0 {
			t.Fatalf("record %s: run %s shard %v sent %g", r.ID, r.RunID, r.Shard, r.SentS)
		}
	}
}

// TestShardFlags: the sharding flags are checked before anything is
// sent, and merge keeps each kind's flags to its kind.
func TestShardFlags(t *testing.T) {
	wl := benchWorkload(t, 8, 2)
	base := []string{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--concurrency", "1"}
	soon := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--start-at", soon}, "give --shard i/N"},
		{[]string{"--shard", "1/4"}, "--start-at: required with --shard"},
		{[]string{"--shard", "4/4", "--start-at", soon}, "i must be 0 to N-1"},
		{[]string{"--shard", "0/4", "--start-at", "tomorrow"}, "want an RFC 3339 time"},
		{[]string{"--shard", "0/4", "--start-at", "2020-01-01T00:00:00Z"}, "in the past"},
		{[]string{"--shard", "0/9", "--start-at", soon}, "shard 0 would be empty"},
	}
	for _, tt := range tests {
		var o, e bytes.Buffer
		code := run(context.Background(), append(slicesClone(base), tt.args...), &o, &e)
		if code != 2 || !strings.Contains(e.String(), tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, e.String(), tt.want)
		}
	}
	sum := filepath.Join(t.TempDir(), "n0.json")
	runOK(t, "analyze", "--save", sum, filepath.Join("..", "..", "testdata", "demo", "vllm-like.sqlite"))
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"merge", "--out", "x.json", sum}, &o, &e); code != 2 || !strings.Contains(e.String(), "--out does not apply to analysis summaries") {
		t.Errorf("merge --out of summaries: exit %d, %q", code, e.String())
	}
	// An input that cannot be read is named as such, not taken for a
	// summary.
	o.Reset()
	e.Reset()
	missing := filepath.Join(t.TempDir(), "gone.json")
	if code := run(context.Background(), []string{"merge", "--out", "x.json", missing}, &o, &e); code != 1 ||
		!strings.Contains(e.String(), "gone.json") || strings.Contains(e.String(), "does not apply") {
		t.Errorf("merge --out of a missing file: exit %d, %q", code, e.String())
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// TestRunSharded: runs.shards sends each run from that many local shard
// processes and merges them into the run's result, which the report
// reads like any other; the total load is the experiment's.
func TestRunSharded(t *testing.T) {
	if testing.Short() {
		t.Skip("launches two engines and shard processes")
	}
	pa, pb := freePort(t), freePort(t)
	exp := runExp(t, pa, pb, `workload: {random: {num: 32, input_len: 32, output_len: 16, seed: 1}}
check: {requests: 2}
runs: {count: 1, concurrency: 8, shards: 2, warmup: 4, reset_prefix_cache: true}
slo: {ttft_ms: "p99<=500"}
`)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := servecmpRun(t, exp, out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, side := range []string{"a", "b"} {
		dir := filepath.Join(out, "run-"+side+"-1")
		res := readResult(t, filepath.Join(dir, "result.json"))
		if res.Schema != result.Schema || res.Shards == nil || res.Shards.Count != 2 || res.Load.Concurrency != 8 || res.Load.Warmup != 4 ||
			res.Summary.RequestsOK != 32 || res.Phases.Warmup.RequestsSent != 4 || res.Summary.SLOResult == nil || res.ServerMetrics == nil {
			t.Errorf("run-%s-1: schema %s, shards %+v, load %+v, %d ok, warmup %+v", side, res.Schema, res.Shards, res.Load, res.Summary.RequestsOK, res.Phases.Warmup)
		}
		for _, f := range []string{"records.jsonl", "shards/shard-0.json", "shards/shard-1.jsonl", "shards/shard-1.log"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("run-%s-1: %v", side, err)
			}
		}
		if s0 := readResult(t, filepath.Join(dir, "shards", "shard-1.json")); s0.ServerMetrics != nil || s0.Load.Concurrency != 4 || s0.Load.Warmup != 0 {
			t.Errorf("shard 1 of run-%s-1: metrics %v, load %+v (want no scrape, concurrency 4, no warmup)", side, s0.ServerMetrics != nil, s0.Load)
		}
	}
	if !strings.Contains(stdout, "ttft_ms") || strings.Contains(stdout, "NOT COMPARABLE") {
		t.Errorf("report:\n%s", stdout)
	}
}

// shardsAlive lists the shard processes whose command line names dir.
func shardsAlive(dir string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if cl := strings.ReplaceAll(string(b), "\x00", " "); err == nil && strings.Contains(cl, "--shard ") && strings.Contains(cl, dir) {
			out = append(out, cl)
		}
	}
	return out
}

// TestRunShardedInterrupt: one Ctrl-C to a sharded `servecmp run` in its
// measured phase reaches the shards once: they drain, write what they
// measured, the run merges it into an incomplete result, marks the step
// incomplete and exits 1, and no shard is left running.
func TestRunShardedInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("launches two engines and shard processes")
	}
	pa, pb := freePort(t), freePort(t)
	exp := runExp(t, pa, pb, `workload: {random: {num: 400, input_len: 32, output_len: 32, seed: 2}}
check: {requests: 2}
runs: {count: 1, concurrency: 4, shards: 2}
`)
	out := filepath.Join(t.TempDir(), "out")
	cmd := startRun(t, exp, out, "run-a-1", experiment.StatusIncomplete)
	defer killEngines(t, pa, pb)
	time.Sleep(shardLeadForTest + 1500*time.Millisecond) // into the measured phase
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1", err)
	}
	if alive := shardsAlive(out); len(alive) > 0 {
		t.Fatalf("shards left running: %v", alive)
	}
	if st := stepStatus(t, out, "run-a-1"); st != experiment.StatusIncomplete {
		t.Errorf("run-a-1: %q, want incomplete", st)
	}
	res := readResult(t, filepath.Join(out, "run-a-1", "result.json"))
	if !res.Incomplete || res.Shards == nil || res.Summary.RequestsOK == 0 || res.Summary.RequestsNotSent == 0 || res.Summary.RequestsCancelled != 0 {
		t.Errorf("interrupted sharded run: incomplete %v, shards %v, %d ok, %d not sent, %d cancelled (one interrupt drains, the second cancels)",
			res.Incomplete, res.Shards != nil, res.Summary.RequestsOK, res.Summary.RequestsNotSent, res.Summary.RequestsCancelled)
	}
}

// shardLeadForTest is run's lead before the shards' start for a small
// workload file (experiment's shardLead).
const shardLeadForTest = 3 * time.Second
