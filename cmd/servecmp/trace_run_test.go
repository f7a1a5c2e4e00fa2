//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRunTraceWorkload: `servecmp run` with workload.trace materialises
// the replay into its output directory and runs both engines on the
// trace's own schedule (runs without a load).
func TestRunTraceWorkload(t *testing.T) {
	pa, pb := freePort(t), freePort(t)
	trace, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "traces", "conversation.jsonl"))
	exp := runExp(t, pa, pb, "workload: {trace: {file: "+trace+", format: mooncake, time_scale: 0.01, limit: 40}}\ncheck: {requests: 2}\nruns: {count: 1}\n")
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := servecmpRun(t, exp, out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if got, want := stepsRun(stderr), []string{"check", "run-a-1", "run-b-1", "report"}; !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	var res struct {
		Load    struct{ Mode string }
		Summary struct {
			RequestsOK int      `json:"requests_ok"`
			Implied    *float64 `json:"implied_prefix_reuse_share"`
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "run-a-1", "result.json"))
	if err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatal(err)
	}
	if res.Load.Mode != "trace" || res.Summary.RequestsOK != 40 || res.Summary.Implied == nil || *res.Summary.Implied <= 0 {
		t.Errorf("result: %+v", res)
	}
}
