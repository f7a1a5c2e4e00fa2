//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/experiment"
)

// profileExp is an experiment file with a profile block for two launched
// serve-sim engines with profilers: a imitates vLLM and names its trace
// directory (trace_dir), b imitates SGLang and is sent the profile step's
// own folder as output_dir. bEngine, when set, forces b's engine name.
func profileExp(t *testing.T, pa, pb int, bEngine string) string {
	t.Helper()
	t.Setenv(asMainEnv, "1") // inherited by the launched engines
	tmp := t.TempDir()
	eng := func(side string, port int, name, traceDir string) string {
		s := fmt.Sprintf("%s:\n  launch: \"servecmp serve-sim --addr 127.0.0.1:%d --model m --engine %s --max-running 16 --decode-base 2ms --eos-prob -1 --profile-dir %s\"\n"+
			"  url: \"http://127.0.0.1:%d\"\n  model: m\n  gpu_type: simulated\n  gpu_count: 1\n", side, port, name, filepath.Join(tmp, "traces-"+side), port)
		if traceDir != "" {
			s += "  trace_dir: " + traceDir + "\n"
		}
		if side == "b" && bEngine != "" {
			s += "  engine: " + bEngine + "\n"
		}
		return s
	}
	src := eng("a", pa, "vllm", filepath.Join(tmp, "traces-a")) + eng("b", pb, "sglang", "") + `intentional: [engine]
workload: {random: {num: 160, input_len: 32, output_len: 24, seed: 1}}
check: {requests: 4, on_mismatch: continue}
runs: {count: 1, concurrency: 8}
profile: {after: 300ms, for: 700ms}
`
	path := filepath.Join(tmp, "exp.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// gpuPart is the part of report.json this test reads.
type gpuPart struct {
	Warnings []string `json:"warnings"`
	GPU      *struct {
		Basis    string `json:"basis"`
		WorkFrom string `json:"work_from"`
		A, B     *struct {
			Paths []string `json:"paths"`
		}
	} `json:"gpu_time"`
}

func readGPUPart(t *testing.T, out string) gpuPart {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, experiment.ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var g gpuPart
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRunProfiles: with a profile block, run captures a profile per
// engine after the runs, analyses each with the work of its window and
// puts layer 2 into the report, normalised per output token by the
// windows' work; a rerun keeps every step.
func TestRunProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("launches two engines")
	}
	pa, pb := freePort(t), freePort(t)
	exp, out := profileExp(t, pa, pb, ""), filepath.Join(t.TempDir(), "out")
	code, _, stderr := servecmpRun(t, exp, out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := []string{"check", "run-a-1", "run-b-1", "profile-a", "profile-b", "analyze-a", "analyze-b", "report"}
	if got := stepsRun(stderr); !slices.Equal(got, want) {
		t.Fatalf("steps %v, want %v\n%s", got, want, stderr)
	}
	g := readGPUPart(t, out)
	if g.GPU == nil || g.GPU.A == nil || g.GPU.B == nil {
		t.Fatalf("report.json has no layer 2 on both sides: %+v\n%s", g, stderr)
	}
	for _, side := range []string{"a", "b"} {
		res := filepath.Join(out, "profile-"+side, experiment.ResultFile)
		if !strings.Contains(g.GPU.WorkFrom, res) {
			t.Errorf("work_from %q does not name %s", g.GPU.WorkFrom, res)
		}
	}
	if g.GPU.Basis != "output_token" {
		t.Errorf("basis %q, want output_token", g.GPU.Basis)
	}
	if p := g.GPU.B.Paths; len(p) != 1 || p[0] != filepath.Join(out, "analyze-b", experiment.SummaryFile) {
		t.Errorf("b's profiles %v", p)
	}
	if traces, _ := filepath.Glob(filepath.Join(out, "profile-b", experiment.TracesDir, "*")); len(traces) == 0 {
		t.Error("b (SGLang, no trace_dir) wrote no trace into the profile step's folder")
	}
	code, _, stderr = servecmpRun(t, exp, out)
	if code != 0 || len(stepsRun(stderr)) != 0 || !strings.Contains(stderr, "nothing to do") {
		t.Fatalf("rerun: exit %d, steps %v\n%s", code, stepsRun(stderr), stderr)
	}
	if alive := enginesAlive(pa, pb); len(alive) > 0 {
		t.Errorf("engines left running: %v", alive)
	}
}

// TestRunProfileNoAPI: an engine without a profiler API fails its profile
// step before any request, with a message that says so; the report still
// comes out, with layer 1 and a warning that layer 2 was not captured.
func TestRunProfileNoAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("launches two engines")
	}
	pa, pb := freePort(t), freePort(t)
	exp, out := profileExp(t, pa, pb, "openai"), filepath.Join(t.TempDir(), "out")
	code, _, stderr := servecmpRun(t, exp, out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if s := stepStatus(t, out, "profile-b"); s != experiment.StatusFailed {
		t.Errorf("profile-b: status %q, want failed", s)
	}
	if _, err := os.Stat(filepath.Join(out, "profile-b", experiment.RecordsFile)); !os.IsNotExist(err) {
		t.Errorf("profile-b sent load before refusing: %v", err)
	}
	if !strings.Contains(stderr, "no profiler API") {
		t.Errorf("stderr does not say why:\n%s", stderr)
	}
	g := readGPUPart(t, out)
	if g.GPU != nil {
		t.Errorf("layer 2 from one side: %+v", g.GPU)
	}
	if !slices.ContainsFunc(g.Warnings, func(w string) bool {
		return strings.Contains(w, "layer 2 (GPU time) was not captured") && strings.Contains(w, "no profiler API")
	}) {
		t.Errorf("report warnings do not say layer 2 was not captured: %q", g.Warnings)
	}
	if _, err := os.Stat(filepath.Join(out, experiment.ReportText)); err != nil {
		t.Errorf("report.txt: %v", err)
	}
}
