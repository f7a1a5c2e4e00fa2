//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/servecmp/servecmp/experiment"
	"github.com/servecmp/servecmp/output/table"
)

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// runExp is an experiment file for two launched serve-sim engines on pa
// and pb; body holds the workload, check, sweep, runs and slo blocks.
func runExp(t *testing.T, pa, pb int, body string) string {
	t.Helper()
	t.Setenv(asMainEnv, "1") // inherited by the launched engines
	eng := func(side string, port, maxRunning int, name string) string {
		return fmt.Sprintf("%s:\n  launch: \"servecmp serve-sim --addr 127.0.0.1:%d --model m --engine %s --max-running %d --decode-base 2ms --eos-prob -1\"\n"+
			"  url: \"http://127.0.0.1:%d\"\n  model: m\n  gpu_type: simulated\n  gpu_count: 1\n", side, port, name, maxRunning, port)
	}
	src := eng("a", pa, 8, "vllm") + eng("b", pb, 32, "sglang") + "intentional: [engine]\n" + body
	path := filepath.Join(t.TempDir(), "exp.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// servecmpRun runs `servecmp run EXP --out OUT` in this process.
func servecmpRun(t *testing.T, exp, out string) (int, string, string) {
	t.Helper()
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"run", exp, "--out", out}, &o, &e)
	return code, o.String(), e.String()
}

// stepsRun lists the steps a run's stderr says it ran, in order.
func stepsRun(stderr string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^servecmp run: step (\S+) \(`).FindAllStringSubmatch(stderr, -1) {
		out = append(out, m[1])
	}
	return out
}

// stepStatus reads a step's status in out ("" when it never began).
func stepStatus(t *testing.T, out, step string) experiment.Status {
	b, err := os.ReadFile(filepath.Join(out, step, experiment.StepFileName))
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	var f experiment.StepFile
	if err != nil || json.Unmarshal(b, &f) != nil {
		t.Fatalf("step %s: %v", step, err)
	}
	return f.Status
}

// enginesAlive lists the processes whose command line holds one of the
// engines' addresses.
func enginesAlive(ports ...int) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(b), "\x00", " ")
		for _, p := range ports {
			if strings.Contains(cl, "serve-sim") && strings.Contains(cl, "127.0.0.1:"+strconv.Itoa(p)+" ") {
				out = append(out, filepath.Base(d)+": "+cl)
			}
		}
	}
	return out
}

// killEngines ends the engines a killed run left behind (each leads its
// own process group).
func killEngines(t *testing.T, ports ...int) {
	for _, p := range enginesAlive(ports...) {
		pid, _ := strconv.Atoi(strings.SplitN(p, ":", 2)[0])
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(enginesAlive(ports...)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// demoEnds runs make demo's second step (scripts/demo.sh) on the run
// directory out and checks what a user reads at the end of make demo:
// the conclusion, then where the files are, not the whole report; and
// that make demo sends the report of its first step to its file only.
func demoEnds(t *testing.T, out string) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Log("no bash: scripts/demo.sh not run")
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, filepath.Join("..", "..", "scripts", "demo.sh"))
	cmd.Env = append(os.Environ(), "SERVECMP="+self, asMainEnv+"=1", "DEMO_OUT="+out)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("scripts/demo.sh: %v\n%s", err, e.String())
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	report := mustRead(t, filepath.Join(out, "layer2", "report.txt"))
	if len(lines) > 30 || !strings.HasPrefix(report, lines[0]) || !strings.HasPrefix(lines[len(lines)-1], "rerun:") ||
		!strings.Contains(o.String(), "report:   "+out+"/report.txt") {
		t.Errorf("scripts/demo.sh printed %d lines, want the conclusion and the files:\n%s", len(lines), o.String())
	}
	mk := mustRead(t, filepath.Join("..", "..", "Makefile"))
	if !strings.Contains(mk, "bin/servecmp run testdata/demo/experiment.yaml --out demo-out >/dev/null") {
		t.Error("make demo prints the whole report of servecmp run")
	}
}

// TestRunEndToEnd runs a whole experiment with two launched engines, then
// reruns it unchanged (nothing to do) and with a changed SLO (only the
// report is redone, with no engine started).
func TestRunEndToEnd(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	body := `workload: {random: {num: 24, input_len: 32, output_len: 16, seed: 1}}
check: {requests: 4}
sweep: {concurrency: [2, 8]}
runs: {count: 3, concurrency: 4}
slo: {ttft_ms: "p99<=500", e2e_ms: "<=2000"}
`
	exp := runExp(t, pa, pb, body)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := servecmpRun(t, exp, out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if alive := enginesAlive(pa, pb); len(alive) > 0 {
		t.Errorf("engines left running: %v", alive)
	}
	want := []string{"check", "sweep-a", "sweep-b", "run-a-1", "run-b-1", "run-b-2", "run-a-2", "run-a-3", "run-b-3", "report"}
	if got := stepsRun(stderr); !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	for _, f := range []string{"report.txt", "report.json", "review.xlsx", "plots/throughput_latency.svg", "workload.jsonl",
		"logs/engine-a.stderr", "run-b-3/result.json", "run-b-3/records.jsonl", "sweep-a/result.json", "check/check.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("output: %v", err)
		}
	}
	for _, s := range want {
		if st := stepStatus(t, out, s); st != experiment.StatusComplete {
			t.Errorf("step %s: %q", s, st)
		}
	}
	for _, w := range []string{"slo: ttft_ms:p99<=500,e2e_ms<=2000", "goodput_rps", "Capacity under the SLO", "interleaved, counterbalanced"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	var rep struct {
		Run experiment.RunInfo `json:"run"`
		SLO struct {
			Objective string `json:"objective"`
			Capacity  []any  `json:"capacity"`
		} `json:"slo"`
		Design struct{ Layout string } `json:"design"`
	}
	if err := json.Unmarshal([]byte(mustRead(t, filepath.Join(out, "report.json"))), &rep); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Run.RunOrder, want[3:9]) || rep.Design.Layout != "interleaved" || rep.SLO.Objective != "ttft_ms:p99<=500,e2e_ms<=2000" ||
		len(rep.SLO.Capacity) != 2 || len(rep.Run.Steps) != 9 {
		t.Errorf("report.json: %+v", rep)
	}

	first := stdout
	for i, l := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(l); n > table.TextWidth {
			t.Errorf("report line %d is %d columns wide (at most %d): %s", i+1, n, table.TextWidth, l)
		}
	}
	demoEnds(t, out)
	code, stdout, stderr = servecmpRun(t, exp, out)
	if code != 0 || len(stepsRun(stderr)) != 0 || !strings.Contains(stderr, "kept 10 step(s)") || !strings.Contains(stderr, "nothing to do") {
		t.Errorf("unchanged rerun: exit %d\n%s", code, stderr)
	}
	if stdout != first || stdout != mustRead(t, filepath.Join(out, "report.txt")) {
		t.Errorf("unchanged rerun: stdout is not the report again (%d bytes, report %d)", len(stdout), len(first))
	}
	// compare reads the run directory itself: the same results, records
	// and check, so the same conclusion.
	var co, ce bytes.Buffer
	if code := run(context.Background(), []string{"compare", "--a", out, "--b", out, "--intentional", "engine"}, &co, &ce); code != 0 ||
		strings.SplitN(co.String(), "\n", 2)[0] != strings.SplitN(first, "\n", 2)[0] || !strings.Contains(co.String(), "correctness: PASSED") {
		t.Errorf("compare --a %s --b %s: exit %d, first line %q, want %q\n%s", out, out, code, strings.SplitN(co.String(), "\n", 2)[0], strings.SplitN(first, "\n", 2)[0], ce.String())
	}
	// and the step folders by pattern, each run's records found beside
	// its result by run id.
	co.Reset()
	ce.Reset()
	if code := run(context.Background(), []string{"compare", "--a", filepath.Join(out, "run-a-*"), "--b", filepath.Join(out, "run-b-*"),
		"--intentional", "engine"}, &co, &ce); code != 0 || ce.Len() != 0 || !strings.Contains(co.String(), "runs: A 3, B 3, interleaved") ||
		strings.Contains(co.String(), "latency rows compare per-run summary values") {
		t.Errorf("compare --a 'out/run-a-*' --b 'out/run-b-*': exit %d\n%s%s", code, ce.String(), co.String())
	}
	exp2 := runExp(t, pa, pb, strings.Replace(body, "p99<=500", "p99<=400", 1))
	if err := os.Rename(exp2, exp); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = servecmpRun(t, exp, out)
	if got := stepsRun(stderr); code != 0 || !slices.Equal(got, []string{"report"}) || strings.Contains(stderr, "starting engine") {
		t.Errorf("changed SLO: exit %d, steps %v\n%s", code, got, stderr)
	}
	if err := json.Unmarshal([]byte(mustRead(t, filepath.Join(out, "report.json"))), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "ttft_ms:p99<=400") || rep.SLO.Objective != "ttft_ms:p99<=400,e2e_ms<=2000" || len(rep.SLO.Capacity) != 2 {
		t.Errorf("the new report does not hold the sweeps to the new SLO: %+v", rep.SLO)
	}
}

// startRun starts `servecmp run` in a process of its own and waits until
// step's step.json exists with one of the statuses.
func startRun(t *testing.T, exp, out, step string, statuses ...experiment.Status) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "run", exp, "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !slices.Contains(statuses, stepStatus(t, out, step)) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("step %s not %v after 30 s\n%s", step, statuses, stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cmd
}

// slowRuns is a body whose runs last about a second each.
const slowRuns = `workload: {random: {num: 64, input_len: 32, output_len: 32, seed: 2}}
check: {requests: 2}
runs: {count: 2, concurrency: 4}
`

// TestRunResumesAfterKill kills `servecmp run` in the middle of its runs:
// the rerun keeps the steps that completed and does only the others.
func TestRunResumesAfterKill(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	exp := runExp(t, pa, pb, slowRuns)
	out := filepath.Join(t.TempDir(), "out")
	cmd := startRun(t, exp, out, "run-b-1", experiment.StatusComplete)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	killEngines(t, pa, pb) // a killed run cannot stop them
	plan := []string{"check", "run-a-1", "run-b-1", "run-b-2", "run-a-2", "report"}
	var missing []string
	for _, s := range plan {
		if stepStatus(t, out, s) != experiment.StatusComplete {
			missing = append(missing, s)
		}
	}
	if slices.Contains(missing, "run-b-1") || !slices.Contains(missing, "run-b-2") {
		t.Fatalf("steps not complete after the kill: %v", missing)
	}
	code, _, stderr := servecmpRun(t, exp, out)
	if got := stepsRun(stderr); code != 0 || !slices.Equal(got, missing) {
		t.Fatalf("rerun: exit %d, ran %v, want only %v\n%s", code, got, missing, stderr)
	}
	if !strings.Contains(stderr, "kept") || stepStatus(t, out, "report") != experiment.StatusComplete {
		t.Errorf("rerun did not say what it kept, or left no report\n%s", stderr)
	}
}

// TestRunInterruptStopsEngines sends Ctrl-C (SIGINT) during a measured
// run: the launched engines are stopped, the run exits 1, the finished
// steps stay complete and the step under way is marked incomplete.
func TestRunInterruptStopsEngines(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	exp := runExp(t, pa, pb, slowRuns)
	out := filepath.Join(t.TempDir(), "out")
	cmd := startRun(t, exp, out, "run-a-1", experiment.StatusIncomplete)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	defer killEngines(t, pa, pb)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1", err)
	}
	if alive := enginesAlive(pa, pb); len(alive) > 0 {
		t.Fatalf("engines left running after Ctrl-C: %v", alive)
	}
	if st := stepStatus(t, out, "check"); st != experiment.StatusComplete {
		t.Errorf("check: %q, want complete", st)
	}
	if st := stepStatus(t, out, "run-a-1"); st != experiment.StatusIncomplete {
		t.Errorf("run-a-1: %q, want incomplete", st)
	}
	if _, err := os.Stat(filepath.Join(out, "report.json")); err == nil {
		t.Error("an interrupted run left a report")
	}
}

// TestRunBadFiles: a file that cannot run fails with one clear line that
// names the file and line or the engine, exit 2 for a malformed file and 1
// for an engine that cannot serve, and leaves no step complete and no
// report behind.
func TestRunBadFiles(t *testing.T) {
	pa, pb, none := freePort(t), freePort(t), freePort(t)
	good := runExp(t, pa, pb, "workload: {random: {num: 4, input_len: 8, output_len: 4}}\nruns: {count: 1, concurrency: 1}\n")
	src := mustRead(t, good)
	launchB := fmt.Sprintf("\"servecmp serve-sim --addr 127.0.0.1:%d --model m --engine sglang --max-running 32 --decode-base 2ms --eos-prob -1\"", pb)
	tests := []struct {
		name, old, new string
		code           int
		want           []string
	}{
		{"unknown key", "runs: {count: 1,", "runs: {cout: 1,", 2, []string{"exp.yaml:", `runs: unknown key "cout"`}},
		{"missing engine", "b:\n", "c:\n", 2, []string{"exp.yaml:", `missing engine "b"`}},
		{"launch exits at once", launchB, fmt.Sprintf("\"servecmp serve-sim --addr 127.0.0.1:%d --frobnicate\"", pb), 1,
			[]string{"exp.yaml: engine b: exited before it was ready", "frobnicate"}},
		{"readiness timeout", "  launch: " + launchB, fmt.Sprintf("  launch: {command: %s, ready_url: \"http://127.0.0.1:%d/never\", ready_timeout: 1s, grace: 1s}", launchB, none), 1,
			[]string{"exp.yaml: engine b: not ready after 1s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(src, tc.old) {
				t.Fatalf("fixture lacks %q", tc.old)
			}
			exp := filepath.Join(t.TempDir(), "exp.yaml")
			if err := os.WriteFile(exp, []byte(strings.Replace(src, tc.old, tc.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := servecmpRun(t, exp, out)
			if code != tc.code || len(regexp.MustCompile(`(?m)^servecmp: `).FindAllString(stderr, -1)) != 1 {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if stdout != "" {
				t.Errorf("stdout %q", stdout)
			}
			if alive := enginesAlive(pa, pb); len(alive) > 0 {
				t.Errorf("engines left running: %v", alive)
			}
			steps, _ := filepath.Glob(filepath.Join(out, "*", experiment.StepFileName))
			for _, s := range steps {
				if st := stepStatus(t, out, filepath.Base(filepath.Dir(s))); st == experiment.StatusComplete {
					t.Errorf("%s is complete", s)
				}
			}
			if _, err := os.Stat(filepath.Join(out, "report.json")); err == nil {
				t.Error("a report was written")
			}
		})
	}
}

// TestRunCheckStops: engines whose outputs differ fail the pre-flight
// check, which stops the run before the long runs; with on_mismatch:
// continue the run goes on and the report carries the failure.
func TestRunCheckStops(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	body := "workload: {random: {num: 8, input_len: 16, output_len: 8, seed: 1}}\ncheck: {requests: 2%s}\nruns: {count: 1, concurrency: 2}\n"
	exp := runExp(t, pa, pb, fmt.Sprintf(body, ""))
	src := strings.Replace(mustRead(t, exp), "--engine sglang", "--engine sglang --seed 9", 1)
	if err := os.WriteFile(exp, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := servecmpRun(t, exp, out)
	if got := stepsRun(stderr); code != 1 || !slices.Equal(got, []string{"check"}) || !strings.Contains(stderr, "pre-flight check failed") {
		t.Fatalf("exit %d, steps %v\n%s", code, got, stderr)
	}
	if st := stepStatus(t, out, "check"); st != experiment.StatusComplete {
		t.Errorf("check step %q, want complete (the check ran)", st)
	}
	if alive := enginesAlive(pa, pb); len(alive) > 0 {
		t.Errorf("engines left running: %v", alive)
	}
	code, _, stderr = servecmpRun(t, exp, out)
	if got := stepsRun(stderr); code != 1 || len(got) != 0 || !strings.Contains(stderr, "pre-flight check failed") {
		t.Fatalf("rerun after a kept failing check: exit %d, steps %v\n%s", code, got, stderr)
	}
	src = strings.Replace(src, "requests: 2}", "requests: 2, on_mismatch: continue}", 1)
	if err := os.WriteFile(exp, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := servecmpRun(t, exp, out)
	if code != 0 || !strings.Contains(stdout, "correctness: FAILED") {
		t.Fatalf("on_mismatch continue: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
