package shards

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/infile"
)

// Input is one shard: its result and the records of its requests.
type Input struct {
	Path        string // the result file
	Result      *result.Result
	RecordsPath string
	Records     []result.Record
}

// sniffLimit bounds how much of a file is read to find its schema.
const sniffLimit = 1 << 20

// Schema returns the "schema" member of the first JSON object in the
// file (the first line of a JSON Lines file), "" when it has none within
// its first MiB.
func Schema(path string) (string, error) {
	f, err := infile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, sniffLimit))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "", nil
		}
		if k == "schema" {
			var s string
			if dec.Decode(&s) != nil {
				return "", nil
			}
			return s, nil
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return "", nil
		}
	}
	return "", nil
}

// IsBenchmarkFile reports whether path holds a benchmark result (a
// shard's or a whole run's) or per-request records: what merge reads as
// benchmark shards rather than analysis summaries. A file that cannot be
// read is not one (its reader reports it).
func IsBenchmarkFile(path string) bool {
	s, err := Schema(path)
	return err == nil && (s == result.ShardSchema || result.KnownSchema(s) || strings.HasPrefix(s, "servecmp.record/"))
}

// ReadFiles reads the shard results and records files among paths (told
// apart by their schema) and ties every records file to its result by
// run id. Every result must be a shard's and have exactly one records
// file: percentiles need every request.
func ReadFiles(paths []string) ([]Input, error) {
	var in []Input
	var recs []Input // records files, RunID in Records[0]
	for _, p := range paths {
		s, err := Schema(p)
		if err != nil {
			return nil, err
		}
		switch {
		case s == result.ShardSchema:
			res, err := readResult(p)
			if err != nil {
				return nil, err
			}
			in = append(in, Input{Path: p, Result: res})
		case strings.HasPrefix(s, "servecmp.record/"):
			r, err := readRecords(p)
			if err != nil {
				return nil, err
			}
			recs = append(recs, Input{RecordsPath: p, Records: r})
		case result.KnownSchema(s):
			return nil, fmt.Errorf("%s: a whole run's result (%s), not a shard's (%s): merge takes the shards of one sharded run", p, s, result.ShardSchema)
		default:
			return nil, fmt.Errorf("%s: schema %q is neither a shard's result (%s) nor its records (%s)", p, s, result.ShardSchema, result.RecordSchema)
		}
	}
	if len(in) == 0 {
		return nil, errors.New("no shard results among the files (only records): give each shard's result and records")
	}
	return tie(in, recs)
}

// readResult reads one shard's result file.
func readResult(path string) (*result.Result, error) {
	data, err := infile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var res result.Result
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("%s: not a shard result: %v", path, err)
	}
	sh := res.Shard
	switch {
	case sh == nil || res.RunID == "":
		return nil, fmt.Errorf("%s: a %s file without its shard block or run id", path, result.ShardSchema)
	case sh.Count < 1 || sh.Count > workload.MaxShards || sh.Index < 0 || sh.Index >= sh.Count:
		return nil, fmt.Errorf("%s: shard %d/%d: want 0 <= i < N <= %d", path, sh.Index, sh.Count, workload.MaxShards)
	case sh.Requests < 1 || sh.Requests > res.Workload.Count:
		return nil, fmt.Errorf("%s: shard of %d requests from a workload of %d", path, sh.Requests, res.Workload.Count)
	}
	return &res, nil
}

// readRecords reads one records file; it must not be empty.
func readRecords(path string) ([]result.Record, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := result.ReadRecords(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no records", path)
	}
	return recs, nil
}

// tie gives every result its records file, by the run id the records
// carry.
func tie(in, recs []Input) ([]Input, error) {
	byRun := map[string]int{}
	for i := range in {
		if j, dup := byRun[in[i].Result.RunID]; dup {
			return nil, fmt.Errorf("%s and %s are the same shard run (run id %s): give each shard once", in[j].Path, in[i].Path, in[i].Result.RunID)
		}
		byRun[in[i].Result.RunID] = i
	}
	for _, r := range recs {
		id := r.Records[0].RunID
		i, ok := byRun[id]
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: its records belong to run %s, which no shard result given has", r.RecordsPath, orNone(id))
		case in[i].RecordsPath != "":
			return nil, fmt.Errorf("%s and %s are both records of %s: give each shard's records once", in[i].RecordsPath, r.RecordsPath, in[i].Path)
		}
		in[i].RecordsPath, in[i].Records = r.RecordsPath, r.Records
	}
	for _, x := range in {
		if x.RecordsPath == "" {
			return nil, fmt.Errorf("%s: no records file given for this shard (run %s): the merged figures need every request", x.Path, x.Result.RunID)
		}
	}
	return in, nil
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// WriteRecords writes records as JSON Lines to path (atomicfile).
func WriteRecords(path string, recs []result.Record) error {
	return atomicfile.WriteFunc(path, func(w io.Writer) error {
		rw := result.NewRecordWriter(w)
		for i := range recs {
			if err := rw.Write(&recs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
