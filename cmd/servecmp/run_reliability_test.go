//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/servecmp/servecmp/experiment"
)

// quickRuns is a small experiment body: a check and one run per engine.
const quickRuns = `workload: {random: {num: 8, input_len: 16, output_len: 8, seed: 3}}
check: {requests: 2}
runs: {count: 1, concurrency: 2}
`

// writeFiles makes each file of files (path relative to dir → content).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkFiles fails for each file of files missing or changed.
func checkFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		if b, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(b) != c {
			t.Errorf("%s: %q, %v; want it untouched", p, b, err)
		}
	}
}

// TestRunRefusesForeignOutDir is the case: DIR holds a plot, a
// note and the experiment file itself; `run DIR/check/exp.yaml --out DIR`
// refuses (exit 2, one line) and touches none of them.
func TestRunRefusesForeignOutDir(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	src := mustRead(t, runExp(t, pa, pb, quickRuns))
	dir := t.TempDir()
	files := map[string]string{"plots/fig1.png": "png", "check/notes.txt": "notes", "check/exp.yaml": src}
	writeFiles(t, dir, files)
	code, stdout, stderr := servecmpRun(t, filepath.Join(dir, "check", "exp.yaml"), dir)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "not empty and no servecmp run wrote it") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	checkFiles(t, dir, files)
	if alive := enginesAlive(pa, pb); len(alive) > 0 {
		t.Errorf("engines started: %v", alive)
	}
}

// TestRunTouchesOnlyItsOwn: in the directory of an earlier run, files
// the run did not write (a plot, a note in a step folder, the experiment
// file) survive a rerun that redoes every step; no output follows a link
// planted in the directory; a FIFO planted as a step.json does not block
// the rerun.
func TestRunTouchesOnlyItsOwn(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	out := filepath.Join(t.TempDir(), "out")
	exp := runExp(t, pa, pb, quickRuns)
	if code, _, stderr := servecmpRun(t, exp, out); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	src := mustRead(t, exp)
	mine := map[string]string{"plots/fig1.png": "png", "check/notes.txt": "notes", "check/exp.yaml": src}
	writeFiles(t, out, mine)
	exp = filepath.Join(out, "check", "exp.yaml")
	victim := filepath.Join(t.TempDir(), "victim.html")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(out, "report.html"))
	if err := os.Symlink(victim, filepath.Join(out, "report.html")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(out, "run-b-1", experiment.StepFileName)
	_ = os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(t.Context(), []string{"run", exp, "--out", out, "--force"}, &o, &e) }()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("rerun: exit %d\n%s", code, e.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the rerun blocked (on the FIFO?)")
	}
	checkFiles(t, out, mine)
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the report followed a planted link: victim now %q", b)
	}
	if st, err := os.Lstat(filepath.Join(out, "report.html")); err != nil || !st.Mode().IsRegular() {
		t.Errorf("report.html: %v, want a regular file", err)
	}
	if st := stepStatus(t, out, "run-b-1"); st != experiment.StatusComplete {
		t.Errorf("run-b-1 after the FIFO: %q", st)
	}
}

// TestRunLock: a second run on the same --out refuses with one clear
// line while the first holds it, and touches nothing.
func TestRunLock(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	exp := runExp(t, pa, pb, slowRuns)
	out := filepath.Join(t.TempDir(), "out")
	first := startRun(t, exp, out, "run-a-1", experiment.StatusIncomplete)
	defer func() {
		_ = first.Process.Kill()
		_ = first.Wait()
		killEngines(t, pa, pb)
	}()
	before, _ := os.ReadFile(filepath.Join(out, "check", experiment.StepFileName))
	code, _, stderr := servecmpRun(t, exp, out)
	if code != 1 || !regexp.MustCompile(`in use by process \d+ \(another servecmp run on the same directory\)`).MatchString(stderr) ||
		strings.Count(stderr, "\n") != 1 {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "check", experiment.StepFileName)); !bytes.Equal(before, after) {
		t.Error("the refused run changed the first run's steps")
	}
}

// TestRunFailedRerunLeavesNoReport: after a complete run, a rerun whose
// check fails (the engines now differ) stops with exit 1 and leaves no
// report of the earlier run saying the check PASSED.
func TestRunFailedRerunLeavesNoReport(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	exp := runExp(t, pa, pb, quickRuns)
	out := filepath.Join(t.TempDir(), "out")
	if code, stdout, stderr := servecmpRun(t, exp, out); code != 0 || !strings.Contains(stdout, "PASSED") {
		t.Fatalf("first run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	src := strings.Replace(mustRead(t, exp), "--engine sglang", "--engine sglang --seed 9", 1)
	if err := os.WriteFile(exp, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := servecmpRun(t, exp, out)
	if code != 1 || !strings.Contains(stderr, "pre-flight check failed") {
		t.Fatalf("failing rerun: exit %d\n%s", code, stderr)
	}
	for _, f := range []string{"report.html", "report.txt", "report.json", "review.xlsx", "plots"} {
		if _, err := os.Stat(filepath.Join(out, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left by the failed rerun: %v", f, err)
		}
	}
}

// TestRunExitCodes: run exits as compare and benchmark would on its
// report: 3 when NOT COMPARABLE (the engines differ undeclared), 4 when a
// side's runs failed more than 10% of their requests; the report is
// written either way, and a rerun with nothing to do exits the same.
func TestRunExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		code           int
		say            string
	}{
		{"not comparable", "  gpu_type: simulated\n", "  gpu_type: H100\n", 3, "NOT COMPARABLE"},
		{"failures", "--engine sglang", "--engine sglang --error-rate 0.5", 4, "run-b-1: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pa, pb := freePort(t), freePort(t)
			exp := runExp(t, pa, pb, "workload: {random: {num: 16, input_len: 16, output_len: 8, seed: 3}}\ncheck: {requests: 1, on_mismatch: continue}\nruns: {count: 1, concurrency: 2}\n")
			src := mustRead(t, exp)
			if !strings.Contains(src, tc.old) {
				t.Fatalf("fixture lacks %q", tc.old)
			}
			if err := os.WriteFile(exp, []byte(strings.Replace(src, tc.old, tc.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			for i := range 2 {
				code, _, stderr := servecmpRun(t, exp, out)
				if code != tc.code || !strings.Contains(stderr, tc.say) {
					t.Fatalf("run %d: exit %d, want %d saying %q\n%s", i+1, code, tc.code, tc.say, stderr)
				}
				if _, err := os.Stat(filepath.Join(out, "report.json")); err != nil {
					t.Fatalf("run %d: no report: %v", i+1, err)
				}
			}
		})
	}
}

// TestRunAPIKey: engines that demand a key (serve-sim --api-key, as
// vLLM's) get it from OPENAI_API_KEY in every request run sends (probes,
// check, detection, runs); the key, also on the launch command lines,
// reaches no output: no file of the run directory, not stdout, not
// stderr.
func TestRunAPIKey(t *testing.T) {
	const key = "sk-test-0123456789abcdefXYZ"
	t.Setenv("OPENAI_API_KEY", key)
	pa, pb := freePort(t), freePort(t)
	exp := runExp(t, pa, pb, quickRuns)
	src := strings.ReplaceAll(mustRead(t, exp), "--eos-prob -1", "--eos-prob -1 --api-key "+key)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src = strings.Replace(src, "  launch: \"servecmp", "  launch: \"env VLLM_API_KEY="+key+" "+self, 1)
	if err := os.WriteFile(exp, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := servecmpRun(t, exp, out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "PASSED") {
		t.Errorf("the check did not pass with the key:\n%s", stdout)
	}
	for what, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.Contains(s, key) {
			t.Errorf("%s carries the key", what)
		}
	}
	leaks := 0
	_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(key)) {
				t.Errorf("%s carries the key", p)
				leaks++
			}
		}
		return nil
	})
	if !strings.Contains(mustRead(t, filepath.Join(out, "run-a-1", "result.json")), "--api-key [redacted]") {
		t.Error("the manifest does not carry the scrubbed launch command line")
	}
}

// TestRunKilledLeavesNoEngine: SIGKILL of servecmp run (no cleanup runs)
// still ends the engines it launched: the kernel's parent-death signal.
func TestRunKilledLeavesNoEngine(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	exp := runExp(t, pa, pb, slowRuns)
	out := filepath.Join(t.TempDir(), "out")
	cmd := startRun(t, exp, out, "run-a-1", experiment.StatusIncomplete)
	defer killEngines(t, pa, pb)
	if len(enginesAlive(pa, pb)) == 0 {
		t.Fatal("no engine running under the run")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); len(enginesAlive(pa, pb)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("engines outlive a killed run: %v", enginesAlive(pa, pb))
		}
	}
}

// TestRunThirdInterrupt: three Ctrl-Cs end servecmp at once, and the
// engines with it.
func TestRunThirdInterrupt(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	exp := runExp(t, pa, pb, slowRuns)
	out := filepath.Join(t.TempDir(), "out")
	cmd := startRun(t, exp, out, "run-a-1", experiment.StatusIncomplete)
	defer killEngines(t, pa, pb)
	for range 3 {
		_ = cmd.Process.Signal(os.Interrupt)
		time.Sleep(30 * time.Millisecond)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("servecmp still running 5 s after the third interrupt")
	}
	for deadline := time.Now().Add(5 * time.Second); len(enginesAlive(pa, pb)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("engines outlive the third interrupt: %v", enginesAlive(pa, pb))
		}
	}
}

// TestRecordsSurviveSIGKILL: benchmark --records writes each record at
// the named path as its request ends; a SIGKILL midway leaves those
// records there (no temporary file in their place).
func TestRecordsSurviveSIGKILL(t *testing.T) {
	srv, sent := slowAfter(t, 3)
	dir := t.TempDir()
	recs := filepath.Join(dir, "r.jsonl")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "benchmark", "--url", srv.URL, "--workload", benchWorkload(t, 8, 4), "--concurrency", "1",
		"--metrics-url", "none", "--progress", "off", "--out", filepath.Join(dir, "res.json"), "--records", recs)
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); sent.Load() < 4; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the requests never reached the server")
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	b, err := os.ReadFile(recs)
	if err != nil {
		t.Fatalf("no records at the named path after SIGKILL: %v", err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 3 {
		t.Errorf("%d records, want the 3 that ended", n)
	}
	ents, _ := os.ReadDir(dir)
	names := []string{}
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, ".tmp") }) {
		t.Errorf("temporary files left: %v", names)
	}
}

// slowAfter is an engine that answers its first n generation requests
// in full and leaves the next ones hanging until the client goes. It
// counts the generation requests it got.
func slowAfter(t *testing.T, n int64) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var sent atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"m","owned_by":"vllm"}]}`)
			return
		case "/v1/completions", "/v1/chat/completions":
		default:
			http.NotFound(w, r)
			return
		}
		k := sent.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if k > n {
			fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		for range 3 {
			fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\",\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":4}}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(s.Close)
	return s, &sent
}
