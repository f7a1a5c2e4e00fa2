package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/infile"
)

// This file expands the paths of a comparison. Each --a, --b,
// --records-a/-b and --profile-a/-b value is a file, a glob pattern
// (expanded here, so a quoted 'a-run*.json' works in any shell and on any
// OS) or a directory (its files of the flag's kind, in name order). The
// expansion is in name order per value, values in the order given; a
// file named twice (by two values or overlapping patterns) is kept twice,
// so that LoadInput refuses the same run given twice.

// pathKind is what a flag's directory expansion keeps.
type pathKind int

const (
	kindResult  pathKind = iota // *.json benchmark results (any known schema)
	kindRecords                 // *.jsonl records
	kindProfile                 // *.json analyses
)

// Expand returns p with every pattern and directory replaced by the files
// it names. The error names the flag and the value that matched nothing.
func Expand(p Paths) (Paths, error) {
	out := p
	var err error
	for _, f := range []struct {
		flag string
		kind pathKind
		v    *[]string
	}{
		{"--a", kindResult, &out.A}, {"--b", kindResult, &out.B},
		{"--records-a", kindRecords, &out.RecordsA}, {"--records-b", kindRecords, &out.RecordsB},
		{"--profile-a", kindProfile, &out.ProfilesA}, {"--profile-b", kindProfile, &out.ProfilesB},
	} {
		if *f.v, err = expandAll(f.flag, *f.v, f.kind); err != nil {
			return p, err
		}
	}
	return out, nil
}

func expandAll(flag string, values []string, kind pathKind) ([]string, error) {
	var out []string
	for _, v := range values {
		files, err := expandOne(v, kind)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", flag, v, err)
		}
		out = append(out, files...) // a file named twice stays twice: LoadInput refuses it
	}
	return out, nil
}

// expandOne expands one value: a glob pattern to its matches, a directory
// to its files of kind, anything else to itself (read later, so that a
// missing file is reported by its reader).
func expandOne(v string, kind pathKind) ([]string, error) {
	if hasMeta(v) {
		m, err := filepath.Glob(v)
		if err != nil {
			return nil, fmt.Errorf("bad pattern: %v", err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("no file matches")
		}
		var out []string // Glob sorts
		for _, f := range m {
			if st, err := os.Stat(f); err == nil && st.IsDir() { // 'out/run-a-*': step folders
				files, err := dirFiles(f, kind)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", f, err)
				}
				out = append(out, files...)
				continue
			}
			out = append(out, f)
		}
		return out, nil
	}
	st, err := os.Stat(v)
	if err != nil || !st.IsDir() {
		return []string{v}, nil
	}
	return dirFiles(v, kind)
}

// hasMeta reports whether v holds a glob character; a file whose name
// really holds one is still found, since it matches itself.
func hasMeta(v string) bool { return strings.ContainsAny(v, `*?[`) }

// dirFiles lists the files of kind in dir, by name. Results and profiles
// are told apart by their schema, so a run directory holding results,
// records, a check report and analyses gives each flag its own.
func dirFiles(dir string, kind pathKind) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() || !wantFile(p, kind) {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("directory holds no %s", kindName[kind])
	}
	return out, nil
}

var kindName = map[pathKind]string{
	kindResult:  "benchmark result (*.json with schema servecmp.result/N)",
	kindRecords: "records file (*.jsonl)",
	kindProfile: "analysis (*.json from analyze --save or --format json)",
}

func wantFile(path string, kind pathKind) bool {
	switch kind {
	case kindRecords:
		return strings.HasSuffix(path, ".jsonl")
	case kindResult:
		return strings.HasSuffix(path, ".json") && result.KnownSchema(peekSchema(path))
	}
	if !strings.HasSuffix(path, ".json") {
		return false
	}
	s := peekSchema(path)
	return s == "" || strings.HasPrefix(s, "servecmp.summary/") || strings.HasPrefix(s, "servecmp.analysis/")
}

// peekSchema returns the "schema" of the JSON object in path, reading at
// most its first 4 KiB (the writers put the schema first); "" when there
// is none or the file is not JSON. It opens through infile: a named pipe
// in a directory of results is passed over, never waited on.
func peekSchema(path string) string {
	f, err := infile.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, 4096))
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		if k == "schema" {
			var s string
			json.Unmarshal(v, &s)
			return s
		}
	}
	return ""
}
