package compare

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark"
)

// goodResult is a minimal valid result of n requests, all ok.
func goodResult(n int, started time.Time) *benchmark.Result {
	ct := 2.0
	return &benchmark.Result{Schema: benchmark.Schema, StartedAt: started,
		Workload: benchmark.WorkloadInfo{Path: "w.jsonl", SHA256: "abc", Count: n},
		Summary:  benchmark.Summary{RequestsOK: n, DurationS: 2, RequestThroughput: float64(n) / 2, CompletionTimeS: &ct}}
}

func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeRecords(t *testing.T, dir, name string, recs ...string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(recs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	rec1 = `{"id":"r1","ok":true,"sent_s":0.1,"ttft_ms":10,"e2e_ms":30,"chunk_times_ms":[10,20,30]}`
	rec2 = `{"id":"r2","ok":true,"sent_s":0.2,"ttft_ms":12,"e2e_ms":35,"chunk_times_ms":[12,35]}`
)

// TestLoadInputRefuses checks every class of input that must not reach
// a verdict: invalid results, duplicate runs, duplicate or reversed
// records, records that do not belong to their result.
func TestLoadInputRefuses(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := writeJSON(t, dir, "a.json", goodResult(2, t0))
	b := writeJSON(t, dir, "b.json", goodResult(2, t0.Add(time.Hour)))
	aCopy := writeJSON(t, dir, "a-copy.json", goodResult(2, t0))
	noSummary := filepath.Join(dir, "nosummary.json")
	os.WriteFile(noSummary, []byte(`{"schema":"`+benchmark.Schema+`","workload":{"sha256":"abc","count":2},"manifest":{}}`), 0o644)
	negative := goodResult(2, t0)
	negative.Summary.RequestsFailed = -3
	neg := writeJSON(t, dir, "neg.json", negative)
	noWorkload := goodResult(2, t0)
	noWorkload.Workload = benchmark.WorkloadInfo{}
	nowl := writeJSON(t, dir, "nowl.json", noWorkload)
	recs := writeRecords(t, dir, "a.jsonl", rec1, rec2)
	doubled := writeRecords(t, dir, "doubled.jsonl", rec1, rec2, rec1, rec2)
	three := writeRecords(t, dir, "three.jsonl", rec1, rec2, strings.Replace(rec1, "r1", "r3", 1))
	reversed := writeRecords(t, dir, "reversed.jsonl", strings.Replace(rec1, `"e2e_ms":30`, `"e2e_ms":5`, 1))
	negTime := writeRecords(t, dir, "negtime.jsonl", strings.Replace(rec1, `"sent_s":0.1`, `"sent_s":-4`, 1))
	backChunks := writeRecords(t, dir, "back.jsonl", strings.Replace(rec1, "[10,20,30]", "[10,30,20]", 1))
	tests := []struct {
		name string
		p    Paths
		want string
	}{
		{"ok", Paths{A: []string{a}, B: []string{b}, RecordsA: []string{recs}}, ""},
		{"result without summary", Paths{A: []string{noSummary}, B: []string{b}}, `has no "summary"`},
		{"negative count", Paths{A: []string{neg}, B: []string{b}}, "requests_failed is negative"},
		{"no workload", Paths{A: []string{nowl}, B: []string{b}}, "names no workload"},
		{"same file twice", Paths{A: []string{a, a}, B: []string{b}}, "same run"},
		{"copy of a run", Paths{A: []string{a, aCopy}, B: []string{b}}, "same run"},
		{"records twice", Paths{A: []string{a}, B: []string{b}, RecordsA: []string{recs, recs}}, "identical copies"},
		{"records concatenated", Paths{A: []string{a}, B: []string{b}, RecordsA: []string{doubled}}, "appears twice"},
		{"records of another run", Paths{A: []string{a}, B: []string{b}, RecordsA: []string{three}}, "does not belong"},
		{"reversed times", Paths{A: []string{a}, B: []string{b}, RecordsA: []string{reversed}}, "before ttft_ms"},
		{"negative time", Paths{A: []string{a}, B: []string{b}, RecordsA: []string{negTime}}, "sent_s is -4"},
		{"chunks back in time", Paths{A: []string{a}, B: []string{b}, RecordsA: []string{backChunks}}, "chunk times go back"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := LoadInput(tc.p)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("LoadInput: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadInput = %v, want an error with %q", err, tc.want)
			}
		})
	}
}
