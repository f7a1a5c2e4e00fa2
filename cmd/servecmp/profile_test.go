package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/profile"
	"github.com/servecmp/servecmp/servesim"
)

// TestProfileCommand: profile against serve-sim with a profiler writes
// the result with its profile block, the records and the trace; analyze
// --work-from then carries the window's work.
func TestProfileCommand(t *testing.T) {
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	srv, _ := benchServer(t, servesim.Config{EOSProb: -1, DecodeBase: 2 * time.Millisecond, ProfileDir: traces})
	out, recs := filepath.Join(dir, "result.json"), filepath.Join(dir, "records.jsonl")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"profile", "--url", srv.URL, "--workload", benchWorkload(t, 400, 16), "--concurrency", "4",
		"--profile-after", "100ms", "--profile-for", "300ms", "--trace-dir", traces, "--out", out, "--records", recs, "--metrics-url", "none"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"vllm profiler API", "window work", traces + ": 1 new file(s)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	var res profile.Result
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &res); err != nil || res.Result == nil || res.Profile == nil {
		t.Fatalf("result %s: %v", out, err)
	}
	if res.Schema != result.Schema || res.Profile.WindowWork.OutputTokens == 0 || len(res.Profile.Files) != 1 {
		t.Errorf("result: schema %q, profile %+v", res.Schema, res.Profile)
	}
	schemas := compileSchemas(t) // the profile block is part of result.json
	validateFile(t, schemas, "result", out)
	if r := readResult(t, out); r.Summary.RequestsOK == 0 {
		t.Error("a benchmark reader does not read the profile result")
	}
	if fi, err := os.Stat(recs); err != nil || fi.Size() == 0 {
		t.Errorf("records: %v", err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"analyze", "--work-from", out, "--format", "json", res.Profile.Files[0]}, &stdout, &stderr); code != 0 {
		t.Fatalf("analyze exit %d: %s", code, stderr.String())
	}
	if want := `"from": "` + out + `"`; !strings.Contains(stdout.String(), want) {
		t.Errorf("analyze output lacks %s", want)
	}
}

// TestProfileFailures: an engine without a profiler API, or whose
// profiler endpoint is not routed, is refused (exit 1) before any
// request (TestProfileProbesFirst); a failed start exits 1 with the
// result and the records written (profile's TestFaults).
func TestProfileFailures(t *testing.T) {
	dir := t.TempDir()
	srv, auths := benchServer(t, servesim.Config{EOSProb: -1, EngineName: "tgi"})
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "r.json")
	code := run(context.Background(), []string{"profile", "--url", srv.URL, "--engine", "tgi", "--workload", benchWorkload(t, 4, 2),
		"--concurrency", "1", "--out", out, "--metrics-url", "none"}, &stdout, &stderr)
	// The one /v1/ request is the engine detection's GET /v1/models.
	if code != 1 || !strings.Contains(stderr.String(), "no profiler API") || len(auths()) != 1 {
		t.Errorf("tgi: exit %d, %d requests, stderr %s", code, len(auths()), stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run wrote a result")
	}
}

func TestProfileHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"profile", "--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"nsys profile --capture-range=cudaProfilerApi --capture-range-end=repeat",
		`--profiler-config '{"profiler": "torch"`, `"activities": ["CUDA_PROFILER"]`, "--profile-stop-timeout", "--concurrency"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
