package compare

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// goodResult is a minimal valid result of n requests, all ok.
func goodResult(n int, started time.Time) *result.Result {
	ct := 2.0
	return &result.Result{Schema: result.Schema, StartedAt: started,
		Workload: result.WorkloadInfo{Path: "w.jsonl", SHA256: "abc", Count: n},
		Summary:  result.Summary{RequestsOK: n, DurationS: 2, RequestThroughput: float64(n) / 2, CompletionTimeS: &ct}}
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
	os.WriteFile(noSummary, []byte(`{"schema":"`+result.Schema+`","workload":{"sha256":"abc","count":2},"manifest":{}}`), 0o644)
	negative := goodResult(2, t0)
	negative.Summary.RequestsFailed = -3
	neg := writeJSON(t, dir, "neg.json", negative)
	noWorkload := goodResult(2, t0)
	noWorkload.Workload = result.WorkloadInfo{}
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

// tiedRecord is rec (rec1, rec2) as a servecmp.record/2 line of run id and
// workload sha.
func tiedRecord(rec, id, sha string) string {
	return strings.Replace(rec, `{"id"`, `{"schema":"`+result.RecordSchema+`","run_id":"`+id+`","workload_sha256":"`+sha+`","id"`, 1)
}

// TestLoadInputTiesRecords: records that carry run ids are tied to the
// result of their run on their own side, in any order; swapped sides,
// other runs, other workloads, two files for one run and one run given
// twice are refused with a message that says which; records without run
// ids keep the count rule beside them.
func TestLoadInputTiesRecords(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	result := func(name, id string, at time.Duration) string {
		r := goodResult(2, t0.Add(at))
		r.RunID = id
		return writeJSON(t, dir, name, r)
	}
	const idA1, idA2, idB1 = "a1a1a1a1a1a1a1a1", "a2a2a2a2a2a2a2a2", "b1b1b1b1b1b1b1b1"
	a1, a2, b1 := result("a1.json", idA1, 0), result("a2.json", idA2, 2*time.Hour), result("b1.json", idB1, time.Hour)
	old := writeJSON(t, dir, "old.json", goodResult(2, t0.Add(3*time.Hour)))
	edited := goodResult(2, t0)
	edited.RunID, edited.Warnings = idA1, []string{"edited"}
	a1Edited := writeJSON(t, dir, "a1-edited.json", edited)
	recs := func(name, id, sha string, lines ...string) string {
		for i, l := range lines {
			lines[i] = tiedRecord(l, id, sha)
		}
		return writeRecords(t, dir, name, lines...)
	}
	rA1, rA2, rB1 := recs("a1.jsonl", idA1, "abc", rec1, rec2), recs("a2.jsonl", idA2, "abc", rec1, rec2), recs("b1.jsonl", idB1, "abc", rec1, rec2)
	oldRecs := writeRecords(t, dir, "old.jsonl", rec1, rec2)
	a1Part := recs("a1-part.jsonl", idA1, "abc", rec1)
	a1Twice := recs("a1-twice.jsonl", idA1, "abc", rec1, rec2, rec1, rec2)
	a1a2 := writeRecords(t, dir, "a1a2.jsonl", tiedRecord(rec1, idA1, "abc"), tiedRecord(rec2, idA2, "abc"))
	halfOld := writeRecords(t, dir, "half-old.jsonl", tiedRecord(rec1, idA1, "abc"), rec2)
	otherRun := recs("other-run.jsonl", "0000000000000000", "abc", rec1)
	otherWorkload := recs("other-wl.jsonl", "0000000000000000", "def", rec1)
	wrongSHA := recs("wrong-sha.jsonl", idA1, "def", rec1)
	tooMany := recs("too-many.jsonl", idA1, "abc", rec1, rec2, strings.Replace(rec1, "r1", "r3", 1))
	noID := writeRecords(t, dir, "no-id.jsonl", strings.Replace(tiedRecord(rec1, idA1, "abc"), `"run_id":"`+idA1+`",`, "", 1))
	tests := []struct {
		name string
		p    Paths
		want string
	}{
		{"tied", Paths{A: []string{a1, a2}, B: []string{b1}, RecordsA: []string{rA1, rA2}, RecordsB: []string{rB1}}, ""},
		{"any order", Paths{A: []string{a1, a2}, B: []string{b1}, RecordsA: []string{rA2, rA1}, RecordsB: []string{rB1}}, ""},
		{"some runs without records", Paths{A: []string{a1, a2}, B: []string{b1}, RecordsA: []string{rA2}, RecordsB: []string{rB1}}, ""},
		{"old records beside tied ones", Paths{A: []string{a1, old}, B: []string{b1}, RecordsA: []string{oldRecs, rA1}}, ""},
		{"swapped", Paths{A: []string{a1}, B: []string{b1}, RecordsA: []string{rB1}, RecordsB: []string{rA1}},
			"--records-a " + rB1 + " holds the records of --b " + b1 + ": swapped?"},
		{"swapped b", Paths{A: []string{a1}, B: []string{b1}, RecordsA: []string{rA1}, RecordsB: []string{rA1}},
			"--records-b " + rA1 + " holds the records of --a " + a1 + ": swapped?"},
		{"another workload", Paths{A: []string{a1}, B: []string{b1}, RecordsA: []string{otherWorkload}}, "records of another workload (sha256 def)"},
		{"another run", Paths{A: []string{a1}, B: []string{b1}, RecordsA: []string{otherRun}}, "none of the --a results"},
		{"workload differs from its result", Paths{A: []string{a1}, B: []string{b1}, RecordsA: []string{wrongSHA}}, "ran workload sha256 abc"},
		{"two files for one run", Paths{A: []string{a1, a2}, B: []string{b1}, RecordsA: []string{rA1, a1Part}}, "both hold the records of " + a1},
		{"concatenated with itself", Paths{A: []string{a1}, B: []string{b1}, RecordsA: []string{a1Twice}}, "appears twice"},
		{"two runs in one file", Paths{A: []string{a1, a2}, B: []string{b1}, RecordsA: []string{a1a2}}, "records of two runs in one file"},
		{"half without run id", Paths{A: []string{a1}, B: []string{b1}, RecordsA: []string{halfOld}}, "run id none, but record 1 has " + idA1},
		{"same run twice", Paths{A: []string{a1, a1Edited}, B: []string{b1}}, "same run"},
		{"more records than requests", Paths{A: []string{a1}, B: []string{b1}, RecordsA: []string{tooMany}}, "3 records in step 0"},
		{"old records, new results", Paths{A: []string{a1, a2}, B: []string{b1}, RecordsA: []string{oldRecs}}, "records without a run id"},
		{"record/2 without run id", Paths{A: []string{a1}, B: []string{b1}, RecordsA: []string{noID}}, "without run_id"},
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
