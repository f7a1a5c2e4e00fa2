package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/check/checkreport"
)

// runDir writes an output directory as servecmp run leaves it: a check,
// each side's sweep and runs (results, records, step records), a failed
// run-a-3 and an incomplete run-b-3; it returns the directory.
func runDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	step := func(name, status string) string {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writeJSON(t, d, stepFile, map[string]string{"schema": "servecmp.step/1", "step": name, "status": status})
		return d
	}
	n := 0
	for _, name := range []string{"sweep-a", "sweep-b", "run-a-1", "run-b-1", "run-a-2", "run-b-2", "run-a-10", "run-b-10", "run-a-3", "run-b-3"} {
		status := "complete"
		switch name {
		case "run-a-3":
			status = "failed"
		case "run-b-3":
			status = "incomplete"
		}
		d := step(name, status)
		n++
		r := goodResult(2, t0.Add(time.Duration(n)*time.Minute))
		r.RunID = fmt.Sprintf("%016x", n)
		writeJSON(t, d, resultFile, r)
		if strings.HasPrefix(name, "run-") {
			writeRecords(t, d, recordsFile, tiedRecord(rec1, r.RunID, "abc"), tiedRecord(rec2, r.RunID, "abc"))
		}
	}
	d := step(checkDir, "complete")
	writeJSON(t, d, checkFile, checkreport.Report{Schema: checkreport.Schema, Summary: checkreport.Summary{Passed: true, Requests: 2, ExactMatch: 2}})
	return dir
}

func stepNames(runs []Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, filepath.Base(filepath.Dir(r.Path)))
	}
	return out
}

// TestLoadRunDirectory: --a DIR and --b DIR of a run directory take each
// side's complete sweep and runs (runs in numeric order), the runs'
// records tied by run id, and the run's check; a pattern of step
// folders works too.
func TestLoadRunDirectory(t *testing.T) {
	dir := runDir(t)
	in, warnings, err := LoadInput(Paths{A: []string{dir}, B: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stepNames(in.A), []string{"sweep-a", "run-a-1", "run-a-2", "run-a-10"}; !slices.Equal(got, want) {
		t.Errorf("A: %v, want %v", got, want)
	}
	if got, want := stepNames(in.B), []string{"sweep-b", "run-b-1", "run-b-2", "run-b-10"}; !slices.Equal(got, want) {
		t.Errorf("B: %v, want %v", got, want)
	}
	if len(in.RecordsA) != 3 || len(in.RecordsB) != 3 || in.Check == nil || len(warnings) != 0 {
		t.Errorf("records %d/%d, check %v, warnings %q", len(in.RecordsA), len(in.RecordsB), in.Check != nil, warnings)
	}
	// The step folders by pattern: their results, and the records beside
	// them found by run id (no check: only a run directory names one).
	in, warnings, err = LoadInput(Paths{A: []string{filepath.Join(dir, "run-a-*")}, B: []string{filepath.Join(dir, "run-b-[12]")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.A) != 4 || len(in.B) != 2 || len(in.RecordsA) != 4 || len(in.RecordsB) != 2 || in.Check != nil || len(warnings) != 0 {
		t.Errorf("pattern: %v %v, records %d/%d, check %v, warnings %q", stepNames(in.A), stepNames(in.B), len(in.RecordsA), len(in.RecordsB), in.Check != nil, warnings)
	}
}

// TestRecordsBeside: a folder of results with their records beside them
// needs no --records flags; a file of another run is never taken, and a
// run two files claim gets neither, with a warning.
func TestRecordsBeside(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	res := func(name, id string, at time.Duration) string {
		r := goodResult(2, t0.Add(at))
		r.RunID = id
		writeRecords(t, dir, strings.TrimSuffix(name, ".json")+".jsonl", tiedRecord(rec1, id, "abc"), tiedRecord(rec2, id, "abc"))
		return writeJSON(t, dir, name, r)
	}
	a1, b1 := res("a1.json", "a1a1a1a1a1a1a1a1", 0), res("b1.json", "b1b1b1b1b1b1b1b1", time.Minute)
	a2, b2 := res("a2.json", "a2a2a2a2a2a2a2a2", 2*time.Minute), res("b2.json", "b2b2b2b2b2b2b2b2", 3*time.Minute)
	in, warnings, err := LoadInput(Paths{A: []string{a1, a2}, B: []string{b1, b2}})
	if err != nil || len(in.RecordsA) != 2 || len(in.RecordsB) != 2 || len(warnings) != 0 {
		t.Fatalf("records %d/%d, warnings %q, err %v", len(in.RecordsA), len(in.RecordsB), warnings, err)
	}
	for _, r := range in.RecordsA {
		if !strings.HasPrefix(filepath.Base(r.Path), "a") {
			t.Errorf("A took %s", r.Path)
		}
	}
	writeRecords(t, dir, "a1-copy.jsonl", tiedRecord(rec1, "a1a1a1a1a1a1a1a1", "abc"))
	in, warnings, err = LoadInput(Paths{A: []string{a1, a2}, B: []string{b1, b2}})
	if err != nil || len(in.RecordsA) != 1 || len(warnings) != 1 || !strings.Contains(warnings[0], "2 records files beside its result carry its run id") ||
		!strings.Contains(warnings[0], "--records-a") {
		t.Fatalf("records %d, warnings %q, err %v", len(in.RecordsA), warnings, err)
	}
}
