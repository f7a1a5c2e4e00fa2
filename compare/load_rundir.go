package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/internal/infile"
)

// This file reads what servecmp run writes, and finds records beside
// results.
//
// A run directory is an output directory of servecmp run: one folder per
// step, each with the step's record (stepFile, whose schema is
// stepSchema) written last, when the step ended. Given to --a (or --b), it
// stands for that side's complete steps: the sweep and the runs
// (sweep-a/result.json, run-a-N/result.json), the runs' records
// (run-a-N/records.jsonl) for --records-a, the analysis of its profile
// (analyze-a/summary.json) for --profile-a, and the check
// (check/check.json) for --check, each unless the flag is given. These
// are the files the run's own report compares; experiment's tests hold
// the names to its plan.

// Names in a run directory (experiment's StepFileName, ResultFile,
// RecordsFile, CheckFile and SummaryFile).
const (
	stepFile    = "step.json"
	stepSchema  = "servecmp.step/"
	resultFile  = "result.json"
	recordsFile = "records.jsonl"
	checkDir    = "check"
	checkFile   = "check.json"
	summaryFile = "summary.json"
)

// stepName matches the steps of one side that --a and --b take: the
// sweep and the numbered runs.
var stepName = regexp.MustCompile(`^(sweep|run|analyze)-([ab])(?:-([0-9]+))?$`)

// runDirSteps lists the complete steps of side in the run directory dir,
// by kind (sweep, run, analyze), runs in numeric order; nil when dir is
// not a run directory.
func runDirSteps(dir, side string) map[string][]string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	steps := map[string][]string{}
	found := false
	for _, e := range ents {
		m := stepName.FindStringSubmatch(e.Name())
		if !e.IsDir() || (m == nil && e.Name() != checkDir) || !complete(filepath.Join(dir, e.Name())) {
			continue
		}
		found = true
		if m != nil && m[2] == side {
			steps[m[1]] = append(steps[m[1]], filepath.Join(dir, e.Name()))
		}
	}
	if !found {
		return nil
	}
	slices.SortFunc(steps["run"], func(a, b string) int { return cmp.Compare(runIndex(a), runIndex(b)) })
	return steps
}

// runIndex is N of a folder run-X-N.
func runIndex(dir string) int {
	n, _ := strconv.Atoi(stepName.FindStringSubmatch(filepath.Base(dir))[3])
	return n
}

// complete reports whether the step folder's record says it completed.
func complete(dir string) bool {
	data, err := infile.ReadFile(filepath.Join(dir, stepFile))
	if err != nil {
		return false
	}
	var f struct{ Schema, Status string }
	return json.Unmarshal(data, &f) == nil && strings.HasPrefix(f.Schema, stepSchema) && f.Status == "complete"
}

// fromRunDirs fills what p leaves empty from the run directories its --a
// and --b name (runDirSteps): each such value is replaced by the side's
// results, and the records, profiles and check come from the same run
// unless given. Other values stay as they are.
func fromRunDirs(p Paths) Paths {
	out := p
	var checks []string
	for _, s := range []struct {
		side           string
		res, recs, pro *[]string
		given          Paths
	}{{"a", &out.A, &out.RecordsA, &out.ProfilesA, p}, {"b", &out.B, &out.RecordsB, &out.ProfilesB, p}} {
		var res, recs, pro []string
		for _, v := range *s.res {
			steps := runDirSteps(v, s.side)
			if steps == nil {
				res = append(res, v)
				continue
			}
			for _, d := range append(steps["sweep"], steps["run"]...) {
				res = append(res, filepath.Join(d, resultFile))
			}
			for _, d := range steps["run"] {
				recs = append(recs, filepath.Join(d, recordsFile))
			}
			for _, d := range steps["analyze"] {
				pro = append(pro, filepath.Join(d, summaryFile))
			}
			if c := filepath.Join(v, checkDir, checkFile); complete(filepath.Join(v, checkDir)) && !slices.Contains(checks, c) {
				checks = append(checks, c)
			}
		}
		*s.res = res
		if len(*s.recs) == 0 {
			*s.recs = recs
		}
		if len(*s.pro) == 0 {
			*s.pro = pro
		}
	}
	if out.Check == "" && len(checks) == 1 {
		out.Check = checks[0]
	}
	return out
}

// recordsBeside finds, for a side given no records, the records files
// (*.jsonl) in the folders of its results whose first line's run id is
// one of those results': records are tied to their result by run id,
// so a file found this way cannot belong to another run. A run whose id
// several files beside carry gets none of them, and a warning naming
// flag: which one is meant is for the user to say.
func recordsBeside(flag string, runs []Run) ([]string, []string) {
	ids := map[string][]string{}
	var order, dirs []string
	for _, r := range runs {
		if r.Result.RunID == "" {
			continue
		}
		if _, ok := ids[r.Result.RunID]; !ok {
			ids[r.Result.RunID] = []string{}
			order = append(order, r.Result.RunID)
		}
		if d := filepath.Dir(r.Path); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.jsonl"))
		for _, f := range files {
			if id := firstRunID(f); ids[id] != nil {
				ids[id] = append(ids[id], f)
			}
		}
	}
	var out, warnings []string
	for _, id := range order {
		switch fs := ids[id]; {
		case len(fs) == 1:
			out = append(out, fs[0])
		case len(fs) > 1:
			warnings = append(warnings, fmt.Sprintf("run %s: %d records files beside its result carry its run id (%s): none taken; name the one meant with %s",
				id, len(fs), strings.Join(fs, ", "), flag))
		}
	}
	return out, warnings
}

// firstRunID is the run_id of the first line of a records file, or "".
func firstRunID(path string) string {
	f, err := infile.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var rec struct {
		RunID string `json:"run_id"`
	}
	dec := json.NewDecoder(io.LimitReader(f, 1<<20))
	if dec.Decode(&rec) != nil {
		return ""
	}
	return rec.RunID
}
