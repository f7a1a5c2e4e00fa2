package experiment

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/compare"
)

// TestCompareReadsRunDirectory holds compare's reading of a run
// directory (compare --a DIR --b DIR) to this package's plan and file
// names: the same results, records and check the run's own report
// compares.
func TestCompareReadsRunDirectory(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	put := func(path string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]string{}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, s := range Plan(parse(t, planSrc), "wl") {
		d, err := st.Begin(s)
		if err != nil {
			t.Fatal(err)
		}
		switch s.Kind {
		case KindCheck:
			put(filepath.Join(d, CheckFile), checkreport.Report{Schema: checkreport.Schema, Summary: checkreport.Summary{Passed: true}})
		case KindSweep, KindRun:
			ct := 1.0
			id := fmt.Sprintf("%016x", i+1)
			put(filepath.Join(d, ResultFile), result.Result{Schema: result.Schema, RunID: id, StartedAt: t0.Add(time.Duration(i) * time.Minute),
				Workload: result.WorkloadInfo{SHA256: "wl", Count: 1}, Summary: result.Summary{RequestsOK: 1, DurationS: 1, CompletionTimeS: &ct}})
			put(filepath.Join(d, RecordsFile), map[string]any{"schema": result.RecordSchema, "run_id": id, "workload_sha256": "wl",
				"id": "r1", "ok": true, "sent_s": 0, "ttft_ms": 1, "e2e_ms": 2, "chunk_times_ms": []float64{1, 2}})
			want[s.Side] = append(want[s.Side], filepath.Join(d, ResultFile))
		}
		if err := st.Finish(s, StatusComplete, nil); err != nil {
			t.Fatal(err)
		}
	}
	in, warnings, err := compare.LoadInput(compare.Paths{A: []string{dir}, B: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	paths := func(runs []compare.Run) []string {
		var out []string
		for _, r := range runs {
			out = append(out, r.Path)
		}
		return out
	}
	if !slices.Equal(paths(in.A), want["a"]) || !slices.Equal(paths(in.B), want["b"]) {
		t.Errorf("A %v, B %v; want %v, %v", paths(in.A), paths(in.B), want["a"], want["b"])
	}
	if len(in.RecordsA) != 3 || len(in.RecordsB) != 3 || in.CheckPath != filepath.Join(dir, KindCheck, CheckFile) || len(warnings) != 0 {
		t.Errorf("records %d/%d, check %q, warnings %q", len(in.RecordsA), len(in.RecordsB), in.CheckPath, warnings)
	}
}
