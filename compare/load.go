package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/check"
	"github.com/servecmp/servecmp/classify"
)

// LoadRun reads a benchmark result file.
func LoadRun(path string) (Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Run{}, err
	}
	var res benchmark.Result
	if err := json.Unmarshal(data, &res); err != nil {
		return Run{}, fmt.Errorf("%s: not a benchmark result: %v", path, err)
	}
	if res.Schema != benchmark.Schema {
		return Run{}, fmt.Errorf("%s: schema %q, want %q (a servecmp benchmark --out file)", path, res.Schema, benchmark.Schema)
	}
	return Run{Path: path, Result: &res}, nil
}

// LoadRecords reads a records.jsonl file (benchmark.ReadRecords); a
// malformed line is an error naming the file and line.
func LoadRecords(path string) (Records, error) {
	f, err := os.Open(path)
	if err != nil {
		return Records{}, err
	}
	defer f.Close()
	recs, err := benchmark.ReadRecords(f)
	if err != nil {
		return Records{}, fmt.Errorf("%s: %v", path, err)
	}
	return Records{Path: path, Records: recs}, nil
}

// LoadProfile reads an analysis: a saved summary (analyze --save) or the
// analyze --format json document.
func LoadProfile(path string) (Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, err
	}
	var probe struct {
		Schema string          `json:"schema"`
		Ranks  json.RawMessage `json:"ranks"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return Profile{}, fmt.Errorf("%s: not an analysis: %v", path, err)
	}
	var rep *classify.Report
	if probe.Schema != "" {
		rep, err = classify.ReadSummary(bytes.NewReader(data))
		if err != nil {
			return Profile{}, fmt.Errorf("%s: %v", path, err)
		}
	} else {
		if len(probe.Ranks) == 0 {
			return Profile{}, fmt.Errorf("%s: not an analysis (no ranks)", path)
		}
		rep = &classify.Report{}
		if err := json.Unmarshal(data, rep); err != nil {
			return Profile{}, fmt.Errorf("%s: not an analysis: %v", path, err)
		}
	}
	for i, r := range rep.Ranks {
		if r == nil {
			return Profile{}, fmt.Errorf("%s: rank %d is null", path, i)
		}
	}
	if len(rep.Ranks) == 0 {
		return Profile{}, errors.New(path + ": analysis has no ranks")
	}
	return Profile{Path: path, Report: rep}, nil
}

// LoadCheck reads a check report written by servecmp check.
func LoadCheck(path string) (*check.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r check.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a check report: %v", path, err)
	}
	if r.Schema != check.Schema {
		return nil, fmt.Errorf("%s: schema %q, want %q (a servecmp check --out file)", path, r.Schema, check.Schema)
	}
	return &r, nil
}
