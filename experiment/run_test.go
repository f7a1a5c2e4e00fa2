//go:build unix

package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestRunRefusesProfile: a profile block is refused before anything is
// written, with a message that says where profiles come from.
func TestRunRefusesProfile(t *testing.T) {
	e, err := Parse("exp.yaml", []byte(`a: {url: "http://127.0.0.1:1", model: m}
b: {url: "http://127.0.0.1:2", model: m}
workload: {random: {num: 2, input_len: 4, output_len: 2}}
runs: {count: 1, concurrency: 1}
profile: {for: 5s}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	_, err = Run(context.Background(), e, out, RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "exp.yaml: profile:") || !strings.Contains(err.Error(), "servecmp profile") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output directory made: %v", err)
	}
}

// TestMaterialiseOnce: the random workload is written once; an unchanged
// spec leaves the file (and its time) alone, a changed one rewrites it.
func TestMaterialiseOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), WorkloadFile)
	rnd := Random{Num: 3, InputLen: "8", OutputLen: "4", Seed: 1, Vocab: 100, FixedLength: true, RequestSeeds: true}
	if err := materialise(rnd, path); err != nil {
		t.Fatal(err)
	}
	old := time.Unix(1, 0)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	h1, _ := HashFile(path)
	if err := materialise(rnd, path); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(old) {
		t.Error("an unchanged workload was rewritten")
	}
	rnd.Seed = 2
	if err := materialise(rnd, path); err != nil {
		t.Fatal(err)
	}
	if h2, _ := HashFile(path); h2 == h1 {
		t.Error("a changed workload was not rewritten")
	}
}
