package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/infile"
)

// Paths names the files of a comparison: benchmark results, per-request
// records and profile analyses of each side, and a check report ("" for
// none).
type Paths struct {
	A, B               []string
	RecordsA, RecordsB []string
	ProfilesA          []string
	ProfilesB          []string
	Check              string
}

// LoadInput reads every file of p into an Input whose statistical
// settings are left zero. Run directories of servecmp run give their
// steps (fromRunDirs), then patterns and directories are expanded
// (Expand); a side given no records takes those beside its results that
// carry one of its run ids (recordsBeside). Every file is checked against its schema; a
// file or run given twice on one side is refused, and every records file
// is tied to its result (tieRecords: by run id, any order; older records
// without one are paired in order when a side has as many of them as
// results without a run id). The error names the first file that cannot
// be read or does not fit; the warnings say what the files given limit.
func LoadInput(p Paths) (Input, []string, error) {
	var in Input
	var warnings []string
	p, err := Expand(fromRunDirs(p))
	if err != nil {
		return in, nil, err
	}
	if in.A, err = loadAll(p.A, LoadRun); err != nil {
		return in, nil, err
	}
	if in.B, err = loadAll(p.B, LoadRun); err != nil {
		return in, nil, err
	}
	for _, s := range []struct {
		flag string
		recs *[]string
		runs []Run
	}{{"--records-a", &p.RecordsA, in.A}, {"--records-b", &p.RecordsB, in.B}} {
		if len(*s.recs) == 0 {
			var w []string
			*s.recs, w = recordsBeside(s.flag, s.runs)
			warnings = append(warnings, w...)
		}
	}
	if (len(p.RecordsA) == 0) != (len(p.RecordsB) == 0) {
		warnings = append(warnings, "records given for one side only; latency rows use per-run values")
	}
	if in.RecordsA, err = loadAll(p.RecordsA, LoadRecords); err != nil {
		return in, nil, err
	}
	if in.RecordsB, err = loadAll(p.RecordsB, LoadRecords); err != nil {
		return in, nil, err
	}
	if in.ProfilesA, err = loadAll(p.ProfilesA, LoadProfile); err != nil {
		return in, nil, err
	}
	if in.ProfilesB, err = loadAll(p.ProfilesB, LoadProfile); err != nil {
		return in, nil, err
	}
	if p.Check != "" {
		if in.Check, err = LoadCheck(p.Check); err != nil {
			return in, nil, err
		}
		in.CheckPath = p.Check
	}
	if err := checkSides(p, &in); err != nil {
		return in, nil, err
	}
	return in, warnings, nil
}

// loadAll reads every path with load, in order, and stops at the first
// error.
func loadAll[T any](paths []string, load func(string) (T, error)) ([]T, error) {
	var out []T
	for _, p := range paths {
		v, err := load(p)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// LoadRun reads a benchmark result file.
func LoadRun(path string) (Run, error) {
	data, err := infile.ReadFile(path)
	if err != nil {
		return Run{}, err
	}
	return parseRun(path, data)
}

// parseRun parses and checks the result file data read from path.
func parseRun(path string, data []byte) (Run, error) {
	var res result.Result
	if err := json.Unmarshal(data, &res); err != nil {
		return Run{}, fmt.Errorf("%s: not a benchmark result: %v", path, err)
	}
	if sh := res.Shard; res.Schema == result.ShardSchema && sh != nil {
		return Run{}, fmt.Errorf("%s: shard %d/%d of a sharded run, which measured only its part of the load: merge the shards first (servecmp merge --out RESULT --records RECORDS SHARD_FILES...)", path, sh.Index, sh.Count)
	}
	if !result.KnownSchema(res.Schema) {
		return Run{}, fmt.Errorf("%s: schema %q, want %q or %q (a servecmp benchmark --out file)", path, res.Schema, result.Schema, result.PreviousSchema)
	}
	if err := checkResultJSON(path, data, &res); err != nil {
		return Run{}, err
	}
	// A result written before manifests were scrubbed may carry a key in
	// a launch command line: none reaches the report.
	res.Manifest.Scrub()
	return Run{Path: path, Result: &res}, nil
}

// LoadRecords reads a records.jsonl file (result.ReadRecords); a
// malformed line is an error naming the file and line.
func LoadRecords(path string) (Records, error) {
	f, err := infile.Open(path)
	if err != nil {
		return Records{}, err
	}
	defer f.Close()
	return parseRecords(path, f)
}

// parseRecords reads and checks the records read from path.
func parseRecords(path string, f io.Reader) (Records, error) {
	recs, err := result.ReadRecords(f)
	if err != nil {
		return Records{}, fmt.Errorf("%s: %v", path, err)
	}
	if err := checkRecords(path, recs); err != nil {
		return Records{}, err
	}
	return Records{Path: path, Records: recs}, nil
}

// LoadProfile reads an analysis: a saved summary (analyze --save) or the
// analyze --format json document, with its derived figures recomputed.
func LoadProfile(path string) (Profile, error) {
	rep, err := classify.ReadReportFile(path)
	if err != nil {
		return Profile{}, err
	}
	if len(rep.Ranks) == 0 {
		return Profile{}, errors.New(path + ": analysis has no ranks")
	}
	return Profile{Path: path, Report: rep}, nil
}

// LoadCheck reads a check report written by servecmp check.
func LoadCheck(path string) (*checkreport.Report, error) {
	data, err := infile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseCheck(path, data)
}

// parseCheck parses the check report data read from path.
func parseCheck(path string, data []byte) (*checkreport.Report, error) {
	var r checkreport.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a check report: %v", path, err)
	}
	if !checkreport.KnownSchema(r.Schema) {
		return nil, fmt.Errorf("%s: schema %q, want %q or %q (a servecmp check --out file)", path, r.Schema, checkreport.Schema, checkreport.PreviousSchema)
	}
	return &r, nil
}

// All returns every input path of p, for checking outputs against them.
func (p Paths) All() []string {
	out := slices.Concat(p.A, p.B, p.RecordsA, p.RecordsB, p.ProfilesA, p.ProfilesB)
	if p.Check != "" {
		out = append(out, p.Check)
	}
	return out
}

// CheckOutputs checks, before any file is read, the outputs of a
// comparison: the workbook path must be writable and none of the inputs;
// the plot directory, when it exists, must be a directory.
func (p Paths) CheckOutputs(xlsxPath, plotDir string) error {
	if err := atomicfile.CheckWritable("--xlsx", xlsxPath, p.All()...); err != nil {
		return err
	}
	if plotDir == "" {
		return nil
	}
	if st, err := os.Stat(plotDir); err == nil && !st.IsDir() {
		return fmt.Errorf("--plots %s: not a directory", plotDir)
	}
	return nil
}
