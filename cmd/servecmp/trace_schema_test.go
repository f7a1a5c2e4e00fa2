package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/servesim"
)

// TestTraceOutputsMatchSchemas: trace replay workloads (Mooncake and
// Azure), workload info --format json and the result of replaying one
// match docs/schema; a header with a wrong trace record does not.
func TestTraceOutputsMatchSchemas(t *testing.T) {
	schemas := compileSchemas(t)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	traces, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "traces"))
	sim, _ := benchServer(t, servesim.Config{EOSProb: -1})
	mustRun(t, "workload", "trace", filepath.Join(traces, "conversation.jsonl"), "--format", "mooncake", "--time-scale", "0.01", "--limit", "30", "--out", p("tr.jsonl"))
	mustRun(t, "workload", "trace", filepath.Join(traces, "azure-conv.csv"), "--format", "azure", "--time-scale", "0.01", "--start", "30", "--out", p("az.jsonl"))
	validateFile(t, schemas, "workload", p("tr.jsonl"))
	validateFile(t, schemas, "workload", p("az.jsonl"))
	mustRun(t, "benchmark", "--url", sim.URL, "--workload", p("tr.jsonl"), "--out", p("r.json"))
	validateFile(t, schemas, "result", p("r.json"))

	var info struct {
		Trace struct {
			Implied float64 `json:"implied_prefix_reuse_share"`
			Minutes int     `json:"minutes"`
			Rates   []struct {
				Requests int `json:"requests"`
			} `json:"arrival_rate_per_minute"`
		} `json:"trace"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "workload", "info", "--format", "json", p("tr.jsonl"))), &info); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Summary struct {
			Implied *float64 `json:"implied_prefix_reuse_share"`
		} `json:"summary"`
	}
	data, _ := os.ReadFile(p("r.json"))
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range info.Trace.Rates {
		n += r.Requests
	}
	if info.Trace.Implied <= 0 || n != 30 || len(info.Trace.Rates) != info.Trace.Minutes || res.Summary.Implied == nil || *res.Summary.Implied != info.Trace.Implied {
		t.Errorf("info %+v, result implied %v", info.Trace, res.Summary.Implied)
	}

	wl, _ := os.ReadFile(p("tr.jsonl"))
	head, _, _ := strings.Cut(string(wl), "\n")
	for _, bad := range [][2]string{{`"format":"mooncake"`, `"format":"sharegpt"`}, {`"time_scale":0.01`, `"time_scale":0`}, {`"block_size":512`, `"block_size":"512"`}} {
		doc := strings.Replace(head, bad[0], bad[1], 1)
		if doc == head || validate(schemas["workload"], []byte(doc)) == nil {
			t.Errorf("a header with %s → %s still matches workload.json", bad[0], bad[1])
		}
	}
}
