package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/servesim"
)

const testAPIKey = "sk-test-DO-NOT-LEAK-4242"

// benchServer is a zero-delay simulated engine that records the
// Authorization headers of the /v1/ requests it receives.
func benchServer(t *testing.T, cfg servesim.Config) (*httptest.Server, func() []string) {
	t.Helper()
	sim := servesim.New(cfg)
	var mu sync.Mutex
	var auths []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			mu.Lock()
			auths = append(auths, r.Header.Get("Authorization"))
			mu.Unlock()
		}
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); sim.Close() })
	return s, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string{}, auths...) }
}

func benchWorkload(t *testing.T, n, out int) string {
	t.Helper()
	var reqs []workload.Request
	temp := 0.0
	for i := range n {
		reqs = append(reqs, workload.Request{ID: "r" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), PromptTokens: []int{10, 11, 12, i + 13},
			MaxTokens: out, FixedLength: true, InputLen: 4, Sampling: workload.Sampling{Temperature: &temp}})
	}
	p := filepath.Join(t.TempDir(), "w.jsonl")
	if _, err := workload.WriteFile(p, reqs); err != nil {
		t.Fatal(err)
	}
	return p
}

func readResult(t *testing.T, path string) *result.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r result.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func TestBenchmarkCommand(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testAPIKey)
	srv, auths := benchServer(t, servesim.Config{EOSProb: -1})
	dir := t.TempDir()
	wl := benchWorkload(t, 24, 6)
	out, recs := filepath.Join(dir, "result.json"), filepath.Join(dir, "records.jsonl")
	mf := filepath.Join(dir, "m.txt")
	if err := os.WriteFile(mf, []byte("# hardware\ngpu_type = H100\ngpu_count=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"benchmark", "--url", srv.URL, "--workload", wl, "--concurrency", "4",
		"--warmup", "2", "--reset-prefix-cache", "--out", out, "--records", recs, "--manifest-file", mf,
		"--manifest", "gpu_count=8", "--manifest", "model=user-model", "--manifest", "site=lab1"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	r := readResult(t, out)
	if r.Schema != result.Schema || r.Incomplete || r.Summary.RequestsOK != 24 || r.Summary.OutputTokens != 24*6 ||
		r.Workload.Count != 24 || len(r.Workload.SHA256) != 64 || r.Load.Concurrency != 4 {
		t.Fatalf("result %+v", r)
	}
	m := r.Manifest
	if m.Engine != "vllm" || m.EngineVersion == "" || m.Model != "user-model" || m.GPUCount != 8 || m.GPUType != "H100" ||
		m.Extra["site"] != "lab1" || m.LoadPolicy == "" {
		t.Fatalf("manifest %+v", m)
	}
	if r.ServerMetrics == nil {
		t.Fatalf("no server metrics")
	}
	f, err := os.Open(recs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := result.ReadRecords(f)
	if err != nil || len(rs) != 24 {
		t.Fatalf("%d records, %v", len(rs), err)
	}
	for _, rec := range rs {
		if !rec.OK || rec.CompletionTokens != 6 || len(rec.ChunkTimesMs) == 0 || strings.HasSuffix(rec.ID, "-warmup") {
			t.Fatalf("record %+v", rec)
		}
	}
	if !strings.Contains(stdout.String(), "ttft") {
		t.Fatalf("no text summary:\n%s", stdout.String())
	}
	// The key reached the server and nothing else.
	for _, a := range auths() {
		if a != "Bearer "+testAPIKey {
			t.Fatalf("server got auth %q", a)
		}
	}
	for name, s := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String(), "result": mustRead(t, out), "records": mustRead(t, recs)} {
		if strings.Contains(s, testAPIKey) || strings.Contains(s, "DO-NOT-LEAK") {
			t.Fatalf("API key leaked into %s", name)
		}
	}
}

func mustRead(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBenchmarkAPIKeyFile(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv, auths := benchServer(t, servesim.Config{EOSProb: -1})
	kf := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(kf, []byte(testAPIKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"benchmark", "--url", srv.URL, "--workload", benchWorkload(t, 3, 2),
		"--rate", "200", "--arrival", "constant", "--api-key-file", kf, "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, a := range auths() {
		if a != "Bearer "+testAPIKey {
			t.Fatalf("auth %q", a)
		}
	}
	if strings.Contains(mustRead(t, out)+stdout.String()+stderr.String(), testAPIKey) {
		t.Fatal("API key leaked")
	}
}

func TestBenchmarkUnreachable(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"benchmark", "--url", "http://" + addr, "--workload", benchWorkload(t, 2, 2),
		"--concurrency", "1", "--out", out}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "unreachable") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a result was written for an unreachable engine")
	}
}

func TestBenchmarkGarbageServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			_, _ = w.Write([]byte(`{"data":[{"id":"m","owned_by":"vllm"}]}`))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {not json\n\n\x00\xff garbage\n"))
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"benchmark", "--url", srv.URL, "--workload", benchWorkload(t, 4, 2),
		"--concurrency", "2", "--out", out, "--metrics-url", "none"}, &stdout, &stderr)
	if code != cli.ExitTooManyFailures || !strings.Contains(stderr.String(), "no request succeeded") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	r := readResult(t, out)
	if r.Summary.RequestsOK != 0 || r.Summary.FailedByClass[result.ClassBadResponse] != 4 {
		t.Fatalf("%+v", r.Summary)
	}
}

func TestBenchmarkInterrupt(t *testing.T) {
	srv, _ := benchServer(t, servesim.Config{EOSProb: -1, DecodeBase: 5 * time.Millisecond})
	dir := t.TempDir()
	out, recs := filepath.Join(dir, "r.json"), filepath.Join(dir, "rec.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"benchmark", "--url", srv.URL, "--workload", benchWorkload(t, 200, 20),
		"--concurrency", "2", "--out", out, "--records", recs}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	r := readResult(t, out)
	if !r.Incomplete || r.Summary.RequestsOK == 0 || r.Summary.RequestsNotSent == 0 {
		t.Fatalf("incomplete %v %+v", r.Incomplete, r.Summary)
	}
	f, _ := os.Open(recs)
	defer f.Close()
	rs, err := result.ReadRecords(f)
	if err != nil || len(rs) != r.Summary.RequestsOK+r.Summary.RequestsFailed+r.Summary.RequestsCancelled {
		t.Fatalf("%d records, %v", len(rs), err)
	}
}

func TestBenchmarkSweep(t *testing.T) {
	srv, _ := benchServer(t, servesim.Config{EOSProb: -1})
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"benchmark", "--url", srv.URL, "--workload", benchWorkload(t, 16, 4),
		"--sweep-concurrency", "1,2,4", "--out", out, "--metrics-url", "none"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	r := readResult(t, out)
	if r.Sweep == nil || len(r.Sweep.Steps) != 3 || r.Sweep.Kind != "concurrency" || r.Sweep.Saturated != (r.Sweep.SaturationAt != nil) {
		t.Fatalf("%+v", r.Sweep)
	}
}

func TestBenchmarkUsage(t *testing.T) {
	wl := benchWorkload(t, 2, 2)
	for _, args := range [][]string{
		{"benchmark", "--workload", wl, "--concurrency", "1"},
		{"benchmark", "--url", "http://x", "--concurrency", "1"},
		{"benchmark", "--url", "http://x", "--workload", wl},
		{"benchmark", "--url", "http://x", "--workload", wl, "--concurrency", "1", "--rate", "2"},
		{"benchmark", "--url", "http://x", "--workload", wl, "--rate", "2", "--arrival", "uniform"},
		{"benchmark", "--url", "http://x", "--workload", wl, "--sweep-concurrency", "1,x"},
		{"benchmark", "--url", "http://x", "--workload", wl, "--concurrency", "1", "--engine", "foo"},
		{"benchmark", "--url", "http://x", "--workload", wl, "--concurrency", "1", "--manifest", "novalue"},
		{"benchmark", "--url", "http://x", "--workload", wl, "--concurrency", "1", "--manifest", "gpu_count=many"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args[1:], code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"benchmark", "--url", "http://x", "--workload", "/nonexistent.jsonl", "--concurrency", "1"}, &stdout, &stderr); code != 1 {
		t.Errorf("missing workload: exit %d", code)
	}
}

func TestBenchmarkServerCounterIncreases(t *testing.T) {
	// The scraped counters must cover the measured run and nothing else:
	// the baseline sample after the warmup and before the first measured
	// request, the closing one after the last. A run shorter than the
	// 500 ms scrape interval is the hard case.
	srv, _ := benchServer(t, servesim.Config{EOSProb: -1, DecodeBase: time.Millisecond})
	wl := benchWorkload(t, 16, 5)
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"benchmark", "--url", srv.URL, "--workload", wl, "--concurrency", "4",
		"--warmup", "3", "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	r := readResult(t, out)
	sm := r.ServerMetrics
	if sm == nil {
		t.Fatal("no server metrics")
	}
	want := map[string]int64{"prompt_tokens": r.Summary.InputTokens, "generation_tokens": r.Summary.OutputTokens}
	for _, m := range sm.Metrics {
		w, ok := want[m.Name]
		if !ok {
			continue
		}
		delete(want, m.Name)
		if m.Increase == nil {
			t.Errorf("%s: no increase, want %d (the run's own token count)", m.Name, w)
		} else if int64(*m.Increase) != w {
			t.Errorf("%s increase %v, want %d (the run's own token count)", m.Name, *m.Increase, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("counters missing: %v", want)
	}
}

func TestBenchmarkWarmPrefixCacheWarning(t *testing.T) {
	// A second run of the same workload finds its prompts in the server's
	// prefix cache; without --reset-prefix-cache the run must say so.
	srv, _ := benchServer(t, servesim.Config{EOSProb: -1, DecodeBase: time.Millisecond})
	long := make([]workload.Request, 8)
	for i := range long {
		ids := make([]int, 64)
		for j := range ids {
			ids[j] = 100 + i*64 + j
		}
		long[i] = workload.Request{ID: "p" + string(rune('a'+i)), PromptTokens: ids, MaxTokens: 3, FixedLength: true, InputLen: 64}
	}
	wl := filepath.Join(t.TempDir(), "long.jsonl")
	if _, err := workload.WriteFile(wl, long); err != nil {
		t.Fatal(err)
	}
	bench := func(extra ...string) string {
		var stdout, stderr bytes.Buffer
		args := append([]string{"benchmark", "--url", srv.URL, "--workload", wl, "--concurrency", "2"}, extra...)
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr.String())
		}
		return stderr.String()
	}
	bench()
	if e := bench(); !strings.Contains(e, "prefix cache served") {
		t.Errorf("warm second run without a warning:\n%s", e)
	}
	if e := bench("--reset-prefix-cache"); strings.Contains(e, "prefix cache served") {
		t.Errorf("warning despite --reset-prefix-cache:\n%s", e)
	}
}

func TestBenchmarkIgnoredFlagsAreUsageErrors(t *testing.T) {
	// A flag the chosen load would silently ignore makes the result
	// misdescribe the offered load: it is refused before any request.
	wl := benchWorkload(t, 4, 2)
	for _, extra := range [][]string{
		{"--concurrency", "2", "--max-concurrency", "1"},
		{"--sweep-concurrency", "1,2", "--max-concurrency", "1"},
		{"--concurrency", "2", "--arrival", "gamma"},
		{"--concurrency", "2", "--burstiness", "0.5"},
		{"--rate", "5", "--arrival", "poisson", "--burstiness", "0.5"},
		{"--rate", "5", "--drain", "cancel", "--drain-timeout", "1s"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--metrics-url", "none"}, extra...)
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", extra, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	// The same flags where they apply are accepted (the engine is then
	// unreachable: exit 1, not 2).
	args := []string{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--rate", "5", "--arrival", "gamma", "--burstiness", "0.5", "--max-concurrency", "2"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 1 {
		t.Errorf("valid open-loop flags: exit %d, want 1\n%s", code, stderr.String())
	}
}

// countingServer counts every request it receives, whatever the path.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	sim := servesim.New(servesim.Config{EOSProb: -1})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); sim.Close() })
	return s, &n
}

func TestBenchmarkOutputsCheckedBeforeAnyRequest(t *testing.T) {
	srv, requests := countingServer(t)
	dir := t.TempDir()
	wl := benchWorkload(t, 4, 2)
	before := mustRead(t, wl)
	mf := filepath.Join(dir, "m.txt")
	if err := os.WriteFile(mf, []byte("gpu_type=H100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-such-dir", "r.json")
	same := filepath.Join(dir, "same.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"records is the workload", []string{"--records", wl}, "--records"},
		{"out is the workload", []string{"--out", wl}, "--out"},
		{"out is the manifest file", []string{"--out", mf, "--manifest-file", mf}, "--out"},
		{"out in a missing directory", []string{"--out", missing}, "--out"},
		{"records in a missing directory", []string{"--records", missing}, "--records"},
		{"out and records the same", []string{"--out", same, "--records", same}, "same file"},
		{"a bad sweep value", []string{"--sweep-concurrency", "1,2,0"}, "sweep"},
		{"a huge sweep value late in the list", []string{"--sweep-concurrency", "1,1e300"}, "sweep value 1e+300"},
		{"a huge rate late in the list", []string{"--sweep-rate", "1,1e300"}, "rate above"},
		{"a rate that only waits", []string{"--rate", "1e-300"}, "below 1.65e-06 (one request a week"},
		{"a sweep rate that only waits", []string{"--sweep-rate", "1e-300"}, "below 1.65e-06 (one request a week"},
		{"out is a directory", []string{"--out", dir}, "--out"},
		{"a bad failed share", []string{"--max-failed-share", "-1"}, "--max-failed-share"},
		{"a URL without scheme", []string{"--url", "localhost:8000"}, "http://"},
		{"a malformed URL", []string{"--url", "http://[::1"}, "not a valid URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"benchmark", "--url", srv.URL, "--workload", wl}
			if !slices.Contains(tc.args, "--sweep-concurrency") && !slices.Contains(tc.args, "--sweep-rate") && !slices.Contains(tc.args, "--rate") {
				args = append(args, "--concurrency", "1")
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(args, tc.args...), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, want 2 naming %s: %s", code, tc.want, stderr.String())
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the server before the arguments were refused", n)
	}
	if mustRead(t, wl) != before {
		t.Error("the workload file was changed")
	}
	if _, err := os.Stat(same); err == nil {
		t.Error("an output was written")
	}
}

func TestCheckOutCheckedBeforeAnyRequest(t *testing.T) {
	srv, requests := countingServer(t)
	wl := benchWorkload(t, 2, 2)
	for _, out := range []string{filepath.Join(t.TempDir(), "missing", "c.json"), wl} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"check", "--a", srv.URL, "--b", srv.URL, "--model", "sim-model",
			"--workload", wl, "--out", out}, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "--out") {
			t.Errorf("--out %s: exit %d, want 2: %s", out, code, stderr.String())
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}
