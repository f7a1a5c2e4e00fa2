package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/testkit/golden"
)

func runCompareCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// tokenEngine answers /v1/completions with token ids 10, 11, ...; from
// position div on (div >= 0) it adds 100.
func tokenEngine(div int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			MaxTokens int   `json:"max_tokens"`
			Prompt    []int `json:"prompt"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		ids := make([]int, body.MaxTokens)
		for i := range ids {
			ids[i] = 10 + i
			if div >= 0 && i >= div {
				ids[i] += 100
			}
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"text": "x", "token_ids": ids, "finish_reason": "length"}},
			"usage":   map[string]int{"prompt_tokens": len(body.Prompt), "completion_tokens": len(ids)},
		})
	}))
}

func TestCheckCLI(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.jsonl")
	if _, err := workload.WriteFile(wl, []workload.Request{{ID: "r1", PromptTokens: []int{1, 2}, MaxTokens: 6}, {ID: "r2", PromptTokens: []int{3}, MaxTokens: 3}}); err != nil {
		t.Fatal(err)
	}
	a, same, diff := tokenEngine(-1), tokenEngine(-1), tokenEngine(3)
	defer a.Close()
	defer same.Close()
	defer diff.Close()

	out := filepath.Join(dir, "ok.json")
	code, stdout, stderr := runCompareCLI(t, "check", "--a", a.URL, "--b", same.URL, "--model", "m", "--workload", wl, "--out", out, "--engine-a", "vllm", "--engine-b", "vllm")
	if code != 0 || !strings.Contains(stdout, "check PASSED: 2/2") {
		t.Fatalf("equal engines: exit %d\n%s\n%s", code, stdout, stderr)
	}
	out2 := filepath.Join(dir, "bad.json")
	code, stdout, _ = runCompareCLI(t, "check", "--a", a.URL, "--b", diff.URL, "--model", "m", "--workload", wl, "--out", out2,
		"--quality", "pass", "--quality-note", "gsm8k 0.81 vs 0.80")
	if code != 1 || !strings.Contains(stdout, "first divergence at token 3") {
		t.Fatalf("divergent engines: exit %d\n%s", code, stdout)
	}
	var rep struct {
		Summary struct {
			Requests   int    `json:"requests"`
			ExactMatch int    `json:"exact_match"`
			Evidence   string `json:"evidence"`
		} `json:"summary"`
		Quality struct{ Status, Note string } `json:"quality"`
	}
	data, err := os.ReadFile(out2)
	if err != nil {
		t.Fatal("a failing check must still write its report:", err)
	}
	json.Unmarshal(data, &rep)
	if rep.Summary.Requests != 2 || rep.Summary.ExactMatch != 1 || rep.Summary.Evidence != "token_ids" || rep.Quality.Status != "pass" {
		t.Errorf("report %+v", rep)
	}
	if code, _, _ := runCompareCLI(t, "check", "--a", a.URL, "--workload", wl); code != 2 {
		t.Errorf("missing --b: exit %d, want 2", code)
	}

	// compare carries the check status.
	ra, rb := writeResult(t, dir, "a.json", "m"), writeResult(t, dir, "b.json", "m")
	code, stdout, _ = runCompareCLI(t, "compare", "--a", ra, "--b", rb, "--check", out2)
	if code != 0 || !strings.Contains(stdout, "correctness: FAILED, 1/2") || !strings.Contains(stdout, "quality: pass (gsm8k 0.81 vs 0.80)") {
		t.Errorf("compare with check: exit %d\n%s", code, stdout)
	}
}

func writeResult(t *testing.T, dir, name, model string) string {
	t.Helper()
	return writeResultWith(t, dir, name, func(r *result.Result) { r.Manifest.Model = model })
}

// writeResultWith writes a small benchmark result, changed by edit, to
// dir/name and returns its path.
func writeResultWith(t *testing.T, dir, name string, edit func(*result.Result)) string {
	t.Helper()
	ct := 2.0
	res := result.Result{Schema: result.Schema, Manifest: result.Manifest{Model: "m", GPUType: "H100", GPUCount: 1},
		Workload: result.WorkloadInfo{SHA256: "abc", Count: 10}, Load: result.LoadPolicy{Mode: "concurrency", Concurrency: 2, Requests: 10},
		Summary: result.Summary{RequestsOK: 10, OutputThroughput: 100, RequestThroughput: 5, CompletionTimeS: &ct,
			TTFT: result.Dist{Mean: 10, P50: 10, P99: 20, Count: 10}}}
	edit(&res)
	data, _ := json.Marshal(res)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompareCLI(t *testing.T) {
	dir := t.TempDir()
	a, b, other := writeResult(t, dir, "a.json", "m"), writeResult(t, dir, "b.json", "m"), writeResult(t, dir, "c.json", "other")
	code, stdout, _ := runCompareCLI(t, "compare", "--a", a, "--b", other)
	if code != cli.ExitNotComparable || !strings.Contains(stdout, "NOT COMPARABLE: manifest.model differs") {
		t.Errorf("model mismatch: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCompareCLI(t, "compare", "--a", a, "--b", other, "--intentional", "model", "--format", "json")
	var rep struct {
		Comparable  bool `json:"comparable"`
		Differences []struct {
			Field       string `json:"field"`
			Intentional bool   `json:"intentional"`
		} `json:"differences"`
		Metrics []struct{ Name, Verdict string } `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 {
		t.Fatalf("json: exit %d, %v\n%s", code, err, stdout)
	}
	if !rep.Comparable || len(rep.Differences) != 1 || !rep.Differences[0].Intentional {
		t.Errorf("declared model difference: %+v", rep)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	code, _, stderr := runCompareCLI(t, "compare", "--a", a, "--b", bad)
	if code != 1 || !strings.Contains(stderr, "bad.json") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("bad file: exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := runCompareCLI(t, "compare", "--a", a); code != 2 {
		t.Errorf("missing --b: exit %d, want 2", code)
	}
	if code, _, _ := runCompareCLI(t, "compare", "--a", a, "--b", b, "--format", "yaml"); code != 2 {
		t.Errorf("bad format: exit %d, want 2", code)
	}
	xl, pl := filepath.Join(dir, "r.xlsx"), filepath.Join(dir, "plots")
	if code, _, stderr := runCompareCLI(t, "compare", "--a", a, "--b", b, "--xlsx", xl, "--plots", pl, "--format", "markdown"); code != 0 {
		t.Errorf("xlsx/plots: exit %d %s", code, stderr)
	} else if ents, _ := os.ReadDir(pl); len(ents) == 0 && !strings.Contains(stderr, "no plot written") {
		// Results without records, sweeps or profiles give nothing to
		// plot: the user is told, not left with an empty directory.
		t.Errorf("empty plot directory without a warning: %q", stderr)
	}
	if _, err := os.Stat(xl); err != nil {
		t.Error(err)
	}
}

// compareGolden is testdata/compare of this package, fixed before tests
// change directory.
var compareGolden, _ = filepath.Abs(filepath.Join("testdata", "compare"))

// TestCompareGolden runs whole compare commands in a directory of
// generated results (relative paths keep the outputs free of temporary
// directories) and checks stdout, stderr and the exit code.
func TestCompareGolden(t *testing.T) {
	dir := t.TempDir()
	writeResult(t, dir, "a.json", "m")
	writeResult(t, dir, "b.json", "m")
	writeResult(t, dir, "other.json", "other")
	writeResultWith(t, dir, "failed.json", func(r *result.Result) { r.Summary.RequestsFailed = 2; r.Incomplete = true })
	recs := `{"id":"r1","ok":true,"ttft_ms":10,"e2e_ms":30,"chunk_times_ms":[10,20,30],"chunk_tokens":[1,1,1],"completion_tokens":3}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "a.records.jsonl"), []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{not json"), 0o644)
	t.Chdir(dir)
	tests := []struct {
		name string
		code int
		args []string
	}{
		{"text_not_comparable", cli.ExitNotComparable, []string{"--a", "a.json", "--b", "other.json"}},
		{"json_intentional", 0, []string{"--a", "a.json", "--b", "other.json", "--intentional", "model", "--format", "json"}},
		{"markdown_warnings", 0, []string{"--a", "a.json", "--b", "failed.json", "--records-a", "a.records.jsonl", "--format", "md"}},
		{"csv", cli.ExitNotComparable, []string{"--a", "a.json", "--a", "b.json", "--b", "other.json", "--b", "b.json", "--format", "csv"}},
		{"intentional_unmatched", 0, []string{"--a", "a.json", "--b", "b.json", "--intentional", "nothing"}},
		{"bad_file", 1, []string{"--a", "a.json", "--b", "broken.json"}},
		{"missing_file", 1, []string{"--a", "a.json", "--b", "absent.json"}},
		{"bad_format", 2, []string{"--a", "a.json", "--b", "b.json", "--format", "yaml"}},
		{"bad_alpha", 2, []string{"--a", "a.json", "--b", "b.json", "--alpha", "1"}},
		{"no_b", 2, []string{"--a", "a.json"}},
		{"unknown_flag", 2, []string{"--a", "a.json", "--b", "b.json", "--colour"}},
		{"positional_arg", 2, []string{"--a", "a.json", "--b", "b.json", "extra"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCompareCLI(t, append([]string{"compare"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			golden.Run(t, filepath.Join(compareGolden, tc.name), stdout, stderr)
		})
	}
}
