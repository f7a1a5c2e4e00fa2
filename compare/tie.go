package compare

// This file ties each records file to the result it belongs to. Records
// written with run ids (servecmp.record/2) name their run and workload on
// every line and are matched by run id, in any order; older records are
// paired in order with the results that carry no run id, as before.

import (
	"fmt"
	"slices"
)

// sideFiles is one side's results and records files, with the flags that
// named them.
type sideFiles struct {
	flag, recFlag string
	runs          []Run
	recs          []Records
}

// tieSides ties the records files of both sides to their results
// (tieRecords).
func tieSides(in *Input) error {
	a := sideFiles{flag: "--a", recFlag: "--records-a", runs: in.A, recs: in.RecordsA}
	b := sideFiles{flag: "--b", recFlag: "--records-b", runs: in.B, recs: in.RecordsB}
	if err := tieRecords(a, b); err != nil {
		return err
	}
	return tieRecords(b, a)
}

// tieRecords ties every records file of s to a result of s: a file with a
// run id to the result with that id, with the same workload, no two
// files to one result, and no more records per step than the result
// counts requests; files without a run id as tieLegacy says. A file
// holding the records of a result of other, or of no result given, is an
// error naming it.
func tieRecords(s, other sideFiles) error {
	var legacy []Records
	tied := map[string]string{} // run id → the records file tied to it
	for _, rec := range s.recs {
		if len(rec.Records) == 0 || rec.Records[0].RunID == "" {
			legacy = append(legacy, rec)
			continue
		}
		run, err := runOf(s, other, rec)
		if err != nil {
			return err
		}
		id := run.Result.RunID
		if first, ok := tied[id]; ok {
			return fmt.Errorf("%s: %s and %s both hold the records of %s (run id %s); give each run's records once", s.recFlag, first, rec.Path, run.Path, id)
		}
		tied[id] = rec.Path
		if err := recordsMatch(rec, run, ""); err != nil {
			return err
		}
	}
	return tieLegacy(s, legacy)
}

// runOf finds the result of s whose run id the records file rec carries
// (checkRecords made every line carry the same) and checks that both
// name one workload.
func runOf(s, other sideFiles, rec Records) (Run, error) {
	id, sha := rec.Records[0].RunID, rec.Records[0].WorkloadSHA256
	byID := func(r Run) bool { return r.Result.RunID == id }
	if i := slices.IndexFunc(s.runs, byID); i >= 0 {
		run := s.runs[i]
		if want := run.Result.Workload.SHA256; sha != want {
			return Run{}, fmt.Errorf("%s %s: records of workload sha256 %s, but its result %s ran workload sha256 %s", s.recFlag, rec.Path, orNone(short(sha)), run.Path, short(want))
		}
		return run, nil
	}
	if i := slices.IndexFunc(other.runs, byID); i >= 0 {
		return Run{}, fmt.Errorf("%s %s holds the records of %s %s: swapped?", s.recFlag, rec.Path, other.flag, other.runs[i].Path)
	}
	if !slices.ContainsFunc(s.runs, func(r Run) bool { return r.Result.Workload.SHA256 == sha }) {
		return Run{}, fmt.Errorf("%s %s: records of another workload (sha256 %s) than the %s results ran: not the records of any of them", s.recFlag, rec.Path, orNone(short(sha)), s.flag)
	}
	return Run{}, fmt.Errorf("%s %s: records of run %s, which is none of the %s results (the records of another run?)", s.recFlag, rec.Path, id, s.flag)
}

// tieLegacy ties the records files without a run id (written before run
// ids) as compare did before them: when there are as many as results
// without a run id, file i must fit result i of those. A file with
// records but no run id cannot belong to a result that carries one, so
// it is refused when every result of the side does.
func tieLegacy(s sideFiles, legacy []Records) error {
	var runs []Run
	for _, r := range s.runs {
		if r.Result.RunID == "" {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		for _, rec := range legacy {
			if len(rec.Records) > 0 {
				return fmt.Errorf("%s %s: records without a run id, but every %s result has one: they cannot be the records of any of them", s.recFlag, rec.Path, s.flag)
			}
		}
	}
	if len(runs) != len(legacy) {
		return nil
	}
	for i := range legacy {
		if err := recordsMatch(legacy[i], runs[i], " (records without a run id and results are paired in the order given)"); err != nil {
			return err
		}
	}
	return nil
}

// recordsMatch checks that a records file fits a result: no step holds
// more records than the result's step sent requests (ok, failed or
// cancelled). how ends the message.
func recordsMatch(rec Records, run Run, how string) error {
	want := map[int]int{}
	if sw := run.Result.Sweep; sw != nil && len(sw.Steps) > 0 {
		for i, st := range sw.Steps {
			want[i] = st.Summary.RequestsOK + st.Summary.RequestsFailed + st.Summary.RequestsCancelled
		}
	} else {
		s := run.Result.Summary
		want[0] = s.RequestsOK + s.RequestsFailed + s.RequestsCancelled
	}
	got := map[int]int{}
	for i := range rec.Records {
		got[rec.Records[i].Step]++
	}
	for step, n := range got {
		if w, ok := want[step]; !ok || n > w {
			return fmt.Errorf("%s does not belong to %s: %d records in step %d, but the result counts %d requests there%s", rec.Path, run.Path, n, step, w, how)
		}
	}
	return nil
}
