package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/servecmp/servecmp/experiment"
	"github.com/servecmp/servecmp/internal/testkit/llamaserver"
	"github.com/servecmp/servecmp/servesim"
)

// The first minutes as a new user lives them: each test reads the lines
// servecmp prints, as they are printed.

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// refusedURL is a loopback URL nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String()
	l.Close()
	return u
}

// TestWrongModelNamesTheCause: a model the server does not serve fails
// every request; the error line quotes the server's own message and
// names the models it serves.
func TestWrongModelNamesTheCause(t *testing.T) {
	s, _ := benchServer(t, servesim.Config{ModelName: "served-model", EngineName: "vllm"})
	wl := benchWorkload(t, 8, 4)
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"benchmark", "--url", s.URL, "--model", "wrong-model", "--workload", wl,
		"--concurrency", "2", "--progress", "off"}, &o, &e)
	last := lastLine(e.String())
	if code != 4 || !strings.Contains(last, "no request succeeded (8 failed: http_404=8)") ||
		!strings.Contains(last, "The model `wrong-model` does not exist.") ||
		!strings.Contains(last, "the models the server lists at /v1/models: served-model") {
		t.Fatalf("exit %d, last stderr line:\n%s", code, last)
	}
}

// TestBaseURLWithV1: the OpenAI SDK's base_url (ending in /v1) works as
// --url, for benchmark and check.
func TestBaseURLWithV1(t *testing.T) {
	s, _ := benchServer(t, servesim.Config{ModelName: "m", EngineName: "vllm"})
	wl := benchWorkload(t, 4, 2)
	out := filepath.Join(t.TempDir(), "r.json")
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"benchmark", "--url", s.URL + "/v1", "--workload", wl, "--concurrency", "2",
		"--progress", "off", "--out", out}, &o, &e); code != 0 {
		t.Fatalf("benchmark --url .../v1: exit %d: %s", code, e.String())
	}
	if r := readResult(t, out); r.Manifest.Model != "m" || r.Manifest.URL != s.URL {
		t.Fatalf("manifest model %q url %q", r.Manifest.Model, r.Manifest.URL)
	}
	o.Reset()
	e.Reset()
	if code := run(context.Background(), []string{"check", "--a", s.URL + "/v1/", "--b", s.URL, "--workload", wl}, &o, &e); code != 0 {
		t.Fatalf("check --a .../v1/: exit %d: %s%s", code, o.String(), e.String())
	}
}

// TestCheckNamesServedModels: check says which model each side serves
// and notes when they differ.
func TestCheckNamesServedModels(t *testing.T) {
	a, _ := benchServer(t, servesim.Config{ModelName: "model-a", EngineName: "vllm"})
	b, _ := benchServer(t, servesim.Config{ModelName: "model-b", EngineName: "vllm"})
	wl := benchWorkload(t, 2, 2)
	var o, e bytes.Buffer
	run(context.Background(), []string{"check", "--a", a.URL, "--b", b.URL, "--workload", wl}, &o, &e)
	text := o.String()
	for _, want := range []string{
		"A: " + a.URL + " model model-a (auto; serves model-a)",
		"B: " + b.URL + " model model-b (auto; serves model-b)",
		`note: A and B run different models: A "model-a" (serves model-a), B "model-b" (serves model-b)`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("check output lacks %q:\n%s", want, text)
		}
	}
}

// TestRunSaysUnreachable: run against an engine that is not up says so
// before any step starts (one line, no failed correctness check), and
// before a single request reaches the engine that is up.
func TestRunSaysUnreachable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("run needs a Unix system")
	}
	up, posts := countingSim(t)
	for _, tc := range []struct {
		name, a, b, check, side string
	}{
		{"both down, with a check", refusedURL(t), refusedURL(t), "check: {requests: 2}\n", "a"},
		{"A up, B down", up, refusedURL(t), "", "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			exp := filepath.Join(dir, "exp.yaml")
			src := "a: {url: \"" + tc.a + "\", model: m}\nb: {url: \"" + tc.b + "\", model: m}\n" +
				"workload: {random: {num: 8, input_len: 4, output_len: 2, seed: 1}}\n" + tc.check + "runs: {count: 2, concurrency: 2}\n"
			if err := os.WriteFile(exp, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			var o, e bytes.Buffer
			code := run(context.Background(), []string{"run", exp, "--out", filepath.Join(dir, "out")}, &o, &e)
			got := strings.TrimSpace(e.String())
			want := "servecmp: " + exp + ": engine " + tc.side + " at http://127.0.0.1:"
			if code != 1 || strings.Contains(got, "\n") || !strings.HasPrefix(got, want) ||
				!strings.HasSuffix(got, "is unreachable (connection refused): start it first, or let run start it ("+tc.side+".launch in the experiment file)") {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 and one line starting %q", code, got, want)
			}
			if n := posts.Load(); n != 0 {
				t.Fatalf("%d requests sent to the engine that is up", n)
			}
		})
	}
}

// countingSim is a serve-sim engine that counts the POST requests it gets.
func countingSim(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	sim := servesim.New(servesim.Config{ModelName: "m", EngineName: "vllm"})
	posts := new(atomic.Int64)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); sim.Close() })
	return s.URL, posts
}

// TestUsageMistakes: an unknown flag gets the nearest flags and the
// command's own help; an output path that is a directory is a usage
// mistake (exit 2) whichever flag names it.
func TestUsageMistakes(t *testing.T) {
	dir := t.TempDir()
	sqlite := filepath.Join("..", "..", "testdata", "demo", "vllm-like.sqlite")
	wl := benchWorkload(t, 2, 2)
	for _, tc := range []struct {
		args  []string
		lines []string
	}{
		{[]string{"benchmark", "--concurency", "4"}, []string{
			"servecmp: unknown flag: --concurency (did you mean --concurrency?)",
			"Run 'servecmp benchmark --help' for usage."}},
		{[]string{"compare", "--recrods-a", "x"}, []string{
			"servecmp: unknown flag: --recrods-a (did you mean --records-a or --records-b?)",
			"Run 'servecmp compare --help' for usage."}},
		{[]string{"workload", "random", "--tokeniser", "t.json"}, []string{
			"servecmp: unknown flag: --tokeniser (did you mean --tokenizer?)",
			"Run 'servecmp workload random --help' for usage."}},
		{[]string{"analyze", "--save", dir, sqlite}, []string{
			"servecmp: --save " + dir + ": is a directory", "Run 'servecmp analyze --help' for usage."}},
		{[]string{"benchmark", "--url", "http://127.0.0.1:1", "--workload", wl, "--concurrency", "1", "--out", dir}, []string{
			"servecmp: --out " + dir + ": is a directory", "Run 'servecmp benchmark --help' for usage."}},
		{[]string{"compare", "--a", "x.json", "--b", "y.json", "--html", dir}, []string{
			"servecmp: --html " + dir + ": is a directory", "Run 'servecmp compare --help' for usage."}},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), tc.args, &o, &e)
		if got := strings.Split(strings.TrimSpace(e.String()), "\n"); code != 2 || strings.Join(got, "\n") != strings.Join(tc.lines, "\n") {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 2 and:\n%s", tc.args, code, e.String(), strings.Join(tc.lines, "\n"))
		}
	}
}

// TestTopLevelHelpStartsWithRun: the help a new user reads first names
// run first, in its examples and in the command list; run --help shows
// an experiment file that parses; workload random --help says what
// --tokenizer changes.
func TestTopLevelHelpStartsWithRun(t *testing.T) {
	var o, e bytes.Buffer
	run(context.Background(), []string{"--help"}, &o, &e)
	help := o.String()
	ex := strings.Index(help, "Examples:\n")
	if ex < 0 || !strings.HasPrefix(help[ex+len("Examples:\n"):], "  servecmp run ") {
		t.Errorf("the first example is not servecmp run:\n%s", help)
	}
	cmds := strings.Index(help, "(start here):\n")
	if cmds < 0 || !strings.HasPrefix(help[cmds+len("(start here):\n"):], "  run ") {
		t.Errorf("run is not the first command listed:\n%s", help)
	}
	o.Reset()
	run(context.Background(), []string{"run", "--help"}, &o, &e)
	yaml := exampleFile(t, o.String())
	p := filepath.Join(t.TempDir(), "exp.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.Load(p); err != nil {
		t.Errorf("run --help's experiment file does not load: %v\n%s", err, yaml)
	}
	o.Reset()
	run(context.Background(), []string{"workload", "random", "--help"}, &o, &e)
	for _, want := range []string{"--tokenizer FILE", "real text", "exactly --input-len tokens", "NOT COMPARABLE"} {
		if !strings.Contains(o.String(), want) {
			t.Errorf("workload random --help lacks %q", want)
		}
	}
}

// exampleFile cuts the experiment file out of run --help: the indented
// lines after "An experiment file".
func exampleFile(t *testing.T, help string) string {
	t.Helper()
	_, rest, ok := strings.Cut(help, "An experiment file")
	if !ok {
		t.Fatalf("run --help shows no experiment file:\n%s", help)
	}
	var b strings.Builder
	started := false
	for _, l := range strings.Split(rest, "\n")[1:] {
		switch {
		case strings.HasPrefix(l, "  "):
			started = true
			b.WriteString(l[2:] + "\n")
		case started:
			return b.String()
		}
	}
	return b.String()
}

// TestProfileProbesFirst: against an engine without a profiler endpoint,
// profile says so before sending a single request.
func TestProfileProbesFirst(t *testing.T) {
	url, posts := countingSim(t)
	wl := benchWorkload(t, 64, 8)
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"profile", "--url", url, "--workload", wl, "--concurrency", "2",
		"--profile-after", "10ms", "--progress", "off", "--out", filepath.Join(t.TempDir(), "p.json")}, &o, &e)
	last := lastLine(e.String())
	if code != 1 || !strings.HasPrefix(last, "servecmp: the server has no profiler endpoint (/start_profile is not routed; probed before any request, none was sent): vLLM: start the server with --profiler-config") {
		t.Fatalf("exit %d, stderr:\n%s", code, e.String())
	}
	if n := posts.Load(); n != 0 {
		t.Fatalf("%d POST requests before the refusal, want none", n)
	}
}

// TestWarningsOnceAndTrue: the README's minimal experiment file (no
// reset_prefix_cache) warns about the warm prefix cache once, in words
// that are true (the cache was warm; nothing calls the runs
// incomparable), then names the steps that repeated it; a workload that
// declares a shared prefix (--prefix-len) raises no cache alarm on a
// cold server.
func TestWarningsOnceAndTrue(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("run needs a Unix system")
	}
	pa, pb := freePort(t), freePort(t)
	exp := runExp(t, pa, pb, "workload: {random: {num: 16, input_len: 64, output_len: 4, seed: 1}}\ncheck: {requests: 2}\n"+
		"sweep: {concurrency: [2, 4]}\nruns: {count: 2, concurrency: 4}\n")
	code, _, stderr := servecmpRun(t, exp, filepath.Join(t.TempDir(), "out"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var warm, again []string
	for _, l := range strings.Split(stderr, "\n") {
		switch {
		case strings.Contains(l, "incomparable"):
			t.Errorf("a warning calls the runs incomparable: %s", l)
		case strings.Contains(l, "warning: the server's prefix cache served"):
			warm = append(warm, l)
		case strings.Contains(l, `warning "the server's prefix cache served`) && strings.Contains(l, "came again from"):
			again = append(again, l)
		}
	}
	if len(warm) != 1 || !strings.HasPrefix(warm[0], "servecmp run: run-a-1: warning: ") ||
		!strings.Contains(warm[0], "its prompts were cached before this run began") || len(again) != 1 ||
		!strings.Contains(again[0], "came again from run-") || !strings.Contains(again[0], "run-a-2") {
		t.Errorf("want one warm-cache warning from run-a-1 and one line naming the steps that repeated it; stderr:\n%s", stderr)
	}

	s, _ := benchServer(t, servesim.Config{ModelName: "m", EngineName: "vllm", EOSProb: -1})
	wl := filepath.Join(t.TempDir(), "prefix.jsonl")
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"workload", "random", "--num", "16", "--input-len", "16", "--prefix-len", "48",
		"--output-len", "2", "--seed", "1", "--out", wl}, &o, &e); code != 0 {
		t.Fatalf("workload random --prefix-len: exit %d: %s", code, e.String())
	}
	e.Reset()
	if code := run(context.Background(), []string{"benchmark", "--url", s.URL, "--workload", wl, "--concurrency", "2",
		"--progress", "off"}, &o, &e); code != 0 || strings.Contains(e.String(), "prefix cache") {
		t.Errorf("benchmark of a declared shared prefix on a cold server: exit %d, stderr:\n%s", code, e.String())
	}
}

// TestTokenizerCorrectSetUpIsQuiet: a workload made with the engine's own
// tokenizer (real text), measured with --tokenizer against llama.cpp's
// server, prints no warning, although the decoded answers never
// re-tokenize exactly; and serve-sim, which counts words, is never held
// to a tokenizer. Skips without the shared engine or tokenizer.
func TestTokenizerCorrectSetUpIsQuiet(t *testing.T) {
	tok := filepath.Join(sharedTok, "gguf", "ggml-vocab-llama-spm.gguf")
	if _, err := os.Stat(tok); err != nil {
		t.Skip("shared tokenizer test data absent")
	}
	wl := filepath.Join(t.TempDir(), "text.jsonl")
	if code, _, errs := runWorkloadCLI(t, "workload", "random", "--tokenizer", tok, "--prompt", "text", "--num", "12",
		"--input-len", "48", "--output-len", "16", "--seed", "1", "--out", wl); code != 0 {
		t.Fatalf("workload random --tokenizer: exit %d: %s", code, errs)
	}
	sim, _ := benchServer(t, servesim.Config{ModelName: "m", EngineName: "vllm", EOSProb: -1})
	urls := []string{sim.URL}
	if !testing.Short() {
		urls = append(urls, llamaserver.Start(t, 4, "--cache-ram", "0", "--no-cache-prompt").URL)
	}
	for _, url := range urls {
		var o, e bytes.Buffer
		code := run(context.Background(), []string{"benchmark", "--url", url, "--tokenizer", tok, "--workload", wl,
			"--concurrency", "4", "--progress", "off", "--metrics-url", "none"}, &o, &e) // a second-long run: too few scrapes
		if code != 0 || strings.TrimSpace(e.String()) != "" {
			t.Errorf("benchmark --tokenizer against %s: exit %d, stderr:\n%s", url, code, e.String())
		}
	}
}

// TestMakeSaysFirstBuild: before a build that will compile SQLite (the
// driver stale in the build cache), make says, on stderr, that it takes
// minutes and why; before one that reuses it, nothing. The go tool is
// replaced by a script that answers go list and records the rest, so
// nothing is built.
func TestMakeSaysFirstBuild(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("make not installed")
	}
	dir := t.TempDir()
	fake, log := filepath.Join(dir, "go"), filepath.Join(dir, "calls")
	script := "#!/bin/sh\nif [ \"$1\" = list ]; then echo \"$STALE\"; else echo \"$*\" >>" + log + "; fi\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		stale, target, sqlite string
		note                  bool
		tags                  string
	}{
		{"true", "build", "bundled", true, ""},
		{"false", "build", "bundled", false, ""},
		{"true", "test", "system", true, "-tags libsqlite3"},
	} {
		os.Remove(log)
		cmd := exec.Command(makeBin, "-s", "-C", filepath.Join("..", ".."), tc.target, "GO="+fake, "SQLITE="+tc.sqlite)
		cmd.Env = append(os.Environ(), "STALE="+tc.stale)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("make %s: %v\n%s%s", tc.target, err, o.String(), e.String())
		}
		said := strings.HasPrefix(e.String(), "make: this build compiles SQLite (C, through cgo) first: minutes on a small machine")
		calls := mustReadFile(t, log)
		if said != tc.note || !strings.HasPrefix(calls, tc.target+" "+tc.tags) {
			t.Errorf("make %s SQLITE=%s with the driver stale=%s: stderr %q, go called with %q", tc.target, tc.sqlite, tc.stale, e.String(), calls)
		}
	}
}
