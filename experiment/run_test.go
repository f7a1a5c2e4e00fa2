//go:build unix

package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/atomicfile"
)

// TestDemoExperiment keeps make demo's file valid: it parses, launches
// both engines with servecmp and interleaves its runs.
func TestDemoExperiment(t *testing.T) {
	e, err := Load(filepath.Join("..", "testdata", "demo", "experiment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if e.A.Launch == nil || e.B.Launch == nil || e.A.Launch.Command[0] != "servecmp" || e.Runs.Order != OrderInterleaved || len(e.SLO) == 0 || e.Sweep == nil {
		t.Fatalf("demo experiment %+v", e)
	}
}

// TestDemoOllamaExperiments keeps make demo-ollama's files valid (they
// name the shared engines' model file as the tokenizer, so they parse
// only where it is): the same model name on both sides, text prompts, a
// launch per engine with a readiness URL of its own.
func TestDemoOllamaExperiments(t *testing.T) {
	for _, name := range []string{"ollama.yaml", "ollama-templated.yaml"} {
		e, err := Load(filepath.Join("..", "testdata", "demo", name))
		if err != nil && strings.Contains(err.Error(), "tokenizer") && strings.Contains(err.Error(), "not a readable file") {
			t.Skipf("shared engines absent: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		r := e.Workload.Random
		if e.A.Model != e.B.Model || r == nil || r.Prompt != PromptText || e.A.Launch == nil || e.B.Launch == nil ||
			!strings.HasSuffix(e.A.Launch.ReadyURL, "/health") || !strings.HasSuffix(e.B.Launch.ReadyURL, "/v1/models/tiny-exact") {
			t.Errorf("%s: %+v", name, e)
		}
	}
}

// TestLayer2Failures: an analyze step without its profile fails without
// stopping the run, and the report is then given no profiles, with the
// reason layer 2 is missing; once both analyses are done it gets both
// summaries.
func TestLayer2Failures(t *testing.T) {
	e, err := Parse("exp.yaml", []byte(`a: {url: "http://127.0.0.1:1", model: m}
b: {url: "http://127.0.0.1:2", model: m}
workload: {random: {num: 2, input_len: 4, output_len: 2}}
runs: {count: 1, concurrency: 1}
profile: {for: 5s}
`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	r := &runner{e: e, st: st, o: RunOptions{Stderr: &stderr}, out: &Outcome{Plan: Plan(e, "wl")}}
	step := func(name string) Step {
		return r.out.Plan[slices.IndexFunc(r.out.Plan, func(s Step) bool { return s.Name == name })]
	}
	finish := func(name string, status Status, cause error) {
		if _, err := st.Begin(step(name)); err != nil {
			t.Fatal(err)
		}
		if err := st.Finish(step(name), status, cause); err != nil {
			t.Fatal(err)
		}
	}
	finish("profile-a", StatusComplete, nil)
	finish("analyze-a", StatusComplete, nil)
	finish("profile-b", StatusFailed, errors.New(`step profile-b: engine b: engine "openai" has no profiler API servecmp can drive`))
	if err := r.step(context.Background(), step("analyze-b")); err != nil {
		t.Fatalf("a failed analysis stops the run: %v", err)
	}
	if f, _ := st.Read(step("analyze-b")); f.Status != StatusFailed || !strings.Contains(f.Error, "step profile-b did not complete") {
		t.Errorf("analyze-b: %+v", f)
	}
	if !strings.Contains(stderr.String(), "the report still comes out with layer 1") {
		t.Errorf("stderr %q", stderr.String())
	}
	a, b, missing := r.profiles()
	if a != nil || b != nil || !strings.Contains(missing, "layer 2 (GPU time) was not captured") || !strings.Contains(missing, "no profiler API") {
		t.Errorf("profiles %v %v, missing %q", a, b, missing)
	}
	finish("profile-b", StatusComplete, nil)
	finish("analyze-b", StatusComplete, nil)
	a, b, missing = r.profiles()
	if len(a) != 1 || len(b) != 1 || filepath.Base(filepath.Dir(b[0])) != "analyze-b" || missing != "" {
		t.Errorf("profiles %v %v, missing %q", a, b, missing)
	}
}

// TestMaterialiseOnce: the random workload is written once; an unchanged
// spec leaves the file (and its time) alone, a changed one rewrites it.
func TestMaterialiseOnce(t *testing.T) {
	dir := t.TempDir()
	d, err := atomicfile.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	path := filepath.Join(dir, WorkloadFile)
	rnd := Random{Num: 3, InputLen: "8", OutputLen: "4", Seed: 1, Vocab: 100, FixedLength: true, RequestSeeds: true}
	ctx := context.Background()
	if err := materialise(ctx, rnd, d); err != nil {
		t.Fatal(err)
	}
	old := time.Unix(1, 0)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	h1, _ := HashFile(path)
	if err := materialise(ctx, rnd, d); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(old) {
		t.Error("an unchanged workload was rewritten")
	}
	rnd.Seed = 2
	if err := materialise(ctx, rnd, d); err != nil {
		t.Fatal(err)
	}
	if h2, _ := HashFile(path); h2 == h1 {
		t.Error("a changed workload was not rewritten")
	}
}

// TestMaterialiseText: with a tokenizer the random workload is text of
// the exact lengths under it, with the tokenizer's header; the prompt
// form changes the file (and so every measuring step's key).
func TestMaterialiseText(t *testing.T) {
	tok := filepath.Join("..", "..", "shared", "testdata", "tokenizers", "gguf", "ggml-vocab-llama-spm.gguf")
	if _, err := os.Stat(tok); err != nil {
		t.Skipf("shared tokenizer absent: %v", err)
	}
	rnd := Random{Num: 3, InputLen: "12", OutputLen: "4", Seed: 1, Vocab: 100, RequestSeeds: true, Tokenizer: tok, Prompt: PromptText}
	hashes := map[string]string{}
	for _, form := range []string{PromptText, PromptChat} {
		rnd.Prompt = form
		dir := t.TempDir()
		d, err := atomicfile.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		path := filepath.Join(dir, WorkloadFile)
		if err := materialise(context.Background(), rnd, d); err != nil {
			t.Fatal(err)
		}
		wl, err := workload.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		want := workload.KindText
		if form == PromptChat {
			want = workload.KindChat
		}
		if wl.Header == nil || wl.Header.TokenizerHash == "" || wl.Requests[0].Kind() != want || wl.Requests[0].InputLen != 12 {
			t.Errorf("%s: header %+v, first request %+v", form, wl.Header, wl.Requests[0])
		}
		hashes[form], _ = HashFile(path)
	}
	if hashes[PromptText] == hashes[PromptChat] {
		t.Error("the prompt form does not change the workload")
	}
}
