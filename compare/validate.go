package compare

// This file checks loaded files before any figure is computed from
// them: each against its schema, each side for files given twice, and
// each records file against the result it belongs to.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/infile"
)

// checkResultJSON checks the parts of a result that must be present and
// sane: a summary (a result without one would compare as zeros), a
// workload with a hash and a count, and counts and times that are not
// negative.
func checkResultJSON(path string, data []byte, res *result.Result) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("%s: not a benchmark result: %v", path, err)
	}
	for _, k := range []string{"summary", "workload", "manifest"} {
		if v, ok := raw[k]; !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return fmt.Errorf("%s: result has no %q (not a complete servecmp benchmark --out file)", path, k)
		}
	}
	if res.Workload.Count <= 0 || res.Workload.SHA256 == "" {
		return fmt.Errorf("%s: result names no workload (count %d, sha256 %q)", path, res.Workload.Count, res.Workload.SHA256)
	}
	if err := checkSummary(&res.Summary); err != nil {
		return fmt.Errorf("%s: summary: %v", path, err)
	}
	if res.Sweep != nil {
		for i := range res.Sweep.Steps {
			if err := checkSummary(&res.Sweep.Steps[i].Summary); err != nil {
				return fmt.Errorf("%s: sweep step %d: %v", path, i, err)
			}
		}
	}
	return nil
}

// checkSummary refuses negative counts and negative or non-finite
// figures.
func checkSummary(s *result.Summary) error {
	for name, n := range map[string]int64{"requests_ok": int64(s.RequestsOK), "requests_failed": int64(s.RequestsFailed),
		"requests_cancelled": int64(s.RequestsCancelled), "requests_not_sent": int64(s.RequestsNotSent),
		"input_tokens": s.InputTokens, "output_tokens": s.OutputTokens} {
		if n < 0 {
			return fmt.Errorf("%s is negative (%d)", name, n)
		}
	}
	figs := map[string]float64{"duration_s": s.DurationS, "request_throughput": s.RequestThroughput,
		"input_throughput": s.InputThroughput, "output_throughput": s.OutputThroughput}
	if s.CompletionTimeS != nil {
		figs["completion_time_s"] = *s.CompletionTimeS
	}
	for name, f := range figs {
		if f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("%s is %g", name, f)
		}
	}
	return nil
}

// checkRecords refuses a records file whose lines belong to more than
// one run (the files of two runs concatenated), whose request ids repeat
// within a step (a file concatenated with itself) or whose times are
// negative or out of order.
func checkRecords(path string, recs []result.Record) error {
	type key struct {
		step int
		id   string
	}
	seen := make(map[key]bool, len(recs))
	for i := range recs {
		r := &recs[i]
		if err := sameRun(r, &recs[0]); err != nil {
			return fmt.Errorf("%s: record %d: %v: the records of two runs in one file (concatenated?); give each run's records file on its own", path, i+1, err)
		}
		k := key{r.Step, r.ID}
		if seen[k] {
			return fmt.Errorf("%s: request %q appears twice in step %d (a records file given or concatenated twice?)", path, r.ID, r.Step)
		}
		seen[k] = true
		if err := checkRecordTimes(r); err != nil {
			return fmt.Errorf("%s: record %d (request %q): %v", path, i+1, r.ID, err)
		}
	}
	return nil
}

// sameRun checks that record r names the run and workload that first,
// the file's first record, names.
func sameRun(r, first *result.Record) error {
	switch {
	case r.RunID != first.RunID:
		return fmt.Errorf("run id %s, but record 1 has %s", orNone(r.RunID), orNone(first.RunID))
	case r.WorkloadSHA256 != first.WorkloadSHA256:
		return fmt.Errorf("workload sha256 %s, but record 1 has %s", orNone(short(r.WorkloadSHA256)), orNone(short(first.WorkloadSHA256)))
	}
	return nil
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// short abbreviates a sha256 for messages: its first 16 digits.
func short(sha string) string {
	if len(sha) > 16 {
		return sha[:16] + "…"
	}
	return sha
}

// checkRecordTimes checks one record's times: none negative, the stream
// no shorter than its first chunk, chunks in order.
func checkRecordTimes(r *result.Record) error {
	if r.Step < 0 {
		return fmt.Errorf("step %d is negative", r.Step)
	}
	for name, v := range map[string]float64{"scheduled_s": r.ScheduledS, "sent_s": r.SentS, "ttft_ms": r.TTFTMs,
		"e2e_ms": r.E2EMs, "done_ms": r.DoneMs} {
		if v < 0 || math.IsInf(v, 0) {
			return fmt.Errorf("%s is %g", name, v)
		}
	}
	if r.PromptTokens < 0 || r.CompletionTokens < 0 {
		return fmt.Errorf("negative token counts (%d prompt, %d completion)", r.PromptTokens, r.CompletionTokens)
	}
	if r.OK && r.TTFTMs > 0 && r.E2EMs < r.TTFTMs {
		return fmt.Errorf("e2e_ms %g is before ttft_ms %g", r.E2EMs, r.TTFTMs)
	}
	prev := 0.0
	for _, c := range r.ChunkTimesMs {
		if c < prev || math.IsInf(c, 0) {
			return fmt.Errorf("chunk times go back (%g after %g)", c, prev)
		}
		prev = c
	}
	return nil
}

// noDuplicateRuns refuses a side that names one run twice: the same
// file (through any path or link), two results with one run id (a copy,
// edited or not), or a copy of a result that carries its start time
// (results written before started_at existed may legitimately be
// identical, so for them only the same file counts).
func noDuplicateRuns(flag string, runs []Run) error {
	for i := range runs {
		for j := range i {
			a, b := runs[j], runs[i]
			same := sameFile(a.Path, b.Path) || a.Result.RunID != "" && a.Result.RunID == b.Result.RunID
			if !same && !a.Result.StartedAt.IsZero() && a.Result.StartedAt.Equal(b.Result.StartedAt) {
				ia, erra := idOf(a.Path)
				ib, errb := idOf(b.Path)
				same = erra == nil && errb == nil && ia == ib
			}
			if same {
				return fmt.Errorf("%s: %s and %s are the same run; give each run once", flag, a.Path, b.Path)
			}
		}
	}
	return nil
}

// sameFile reports whether a and b name one file.
func sameFile(a, b string) bool {
	sa, erra := os.Stat(a)
	sb, errb := os.Stat(b)
	return erra == nil && errb == nil && os.SameFile(sa, sb)
}

// fileID identifies a file by content, so that a run given twice (the
// same path, a link, or a copy) is caught.
type fileID [sha256.Size]byte

func idOf(path string) (fileID, error) {
	data, err := infile.ReadFile(path)
	if err != nil {
		return fileID{}, err
	}
	return sha256.Sum256(data), nil
}

// noDuplicates refuses a side (flag) that names the same file content
// twice: one run counted twice looks like two agreeing runs.
func noDuplicates(flag string, paths []string) error {
	seen := map[fileID]string{}
	for _, p := range paths {
		id, err := idOf(p)
		if err != nil {
			return err
		}
		if first, ok := seen[id]; ok {
			return fmt.Errorf("%s: %s and %s are the same file or identical copies; give each run once", flag, first, p)
		}
		seen[id] = p
	}
	return nil
}

// checkSides checks what LoadInput read: no file given twice within a
// kind and side, no run given twice on a side, and each records file tied
// to its result (tieRecords).
func checkSides(p Paths, in *Input) error {
	for _, g := range []struct {
		flag  string
		paths []string
	}{{"--records-a", p.RecordsA}, {"--records-b", p.RecordsB}, {"--profile-a", p.ProfilesA}, {"--profile-b", p.ProfilesB}} {
		if err := noDuplicates(g.flag, g.paths); err != nil {
			return err
		}
	}
	if err := noDuplicateRuns("--a", in.A); err != nil {
		return err
	}
	if err := noDuplicateRuns("--b", in.B); err != nil {
		return err
	}
	return tieSides(in)
}
