package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/servecmp/servecmp/internal/infile"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Dataset file formats.
const (
	FormatJSONL   = "jsonl"
	FormatJSON    = "json"
	FormatParquet = "parquet"
)

// record is one dataset row: field name → value (string, number, bool,
// nil, []any, map[string]any).
type record = map[string]any

// detectFormat picks a format from the file name: .jsonl/.ndjson, .json
// (a JSON array, or JSON Lines when the file starts with an object) and
// .parquet.
func detectFormat(path string, data []byte) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return FormatJSONL, nil
	case ".json":
		if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
			return FormatJSONL, nil
		}
		return FormatJSON, nil
	case ".parquet", ".pq":
		return FormatParquet, nil
	}
	return "", fmt.Errorf("%s: unknown dataset format (want .jsonl, .json or .parquet, or give --format)", path)
}

// readRecords reads every record of a dataset file. fields are the fields
// the mapping names: a Parquet file whose schema lacks one is refused
// before any row is read.
func readRecords(path, format string, fields []string) ([]record, error) {
	if format == FormatParquet {
		return readParquet(path, fields)
	}
	data, err := infile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if format == "" {
		if format, err = detectFormat(path, data); err != nil {
			return nil, err
		}
		if format == FormatParquet {
			return readParquet(path, fields)
		}
	}
	switch format {
	case FormatJSONL:
		return readJSONL(path, data)
	case FormatJSON:
		return readJSONArray(path, data)
	}
	return nil, fmt.Errorf("--format %q: want jsonl, json or parquet", format)
}

func readJSONL(path string, data []byte) ([]record, error) {
	var out []record
	br := bufio.NewReader(bytes.NewReader(data))
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var r record
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			if jerr := dec.Decode(&r); jerr != nil || r == nil {
				return nil, fmt.Errorf("%s:%d: want a JSON object per line: %v", path, line, jerr)
			}
			out = append(out, r)
		}
		if err == io.EOF {
			return out, nil
		}
	}
}

func readJSONArray(path string, data []byte) ([]record, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, fmt.Errorf("%s: want a JSON array of objects", path)
	}
	var out []record
	for dec.More() {
		var r record
		if err := dec.Decode(&r); err != nil || r == nil {
			return nil, fmt.Errorf("%s: record %d: want an object: %v", path, len(out)+1, err)
		}
		out = append(out, r)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s: after record %d: %v", path, len(out), err)
	}
	return out, nil
}

// readParquet reads a Parquet file's rows as records, after checking that
// its schema has every named field.
func readParquet(path string, fields []string) (out []record, err error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file: %v", path, err)
	}
	var have []string
	for _, fl := range pf.Schema().Fields() {
		have = append(have, fl.Name())
	}
	for _, want := range fields {
		if want != "" && !slices.Contains(have, want) {
			return nil, fmt.Errorf("%s: no field %q (fields: %s)", path, want, strings.Join(have, ", "))
		}
	}
	defer func() {
		if p := recover(); p != nil { // the library panics on rows it cannot map
			out, err = nil, fmt.Errorf("%s: row %d: %v", path, len(out)+1, p)
		}
	}()
	rd := parquet.NewReader(pf)
	defer rd.Close()
	for {
		r := record{}
		if err := rd.Read(&r); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: row %d: %v", path, len(out)+1, err)
		}
		out = append(out, r)
	}
}

// unwrapList returns v as a list, unwrapping the {"list": [{"element": x}]}
// shape of Parquet's three-level list encoding.
func unwrapList(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case map[string]any:
		inner, ok := x["list"].([]any)
		if !ok || len(x) != 1 {
			return nil, false
		}
		out := make([]any, len(inner))
		for i, e := range inner {
			if m, ok := e.(map[string]any); ok && len(m) == 1 {
				for _, k := range []string{"element", "item"} {
					if el, ok := m[k]; ok {
						e = el
					}
				}
			}
			out[i] = e
		}
		return out, true
	}
	return nil, false
}

// toInt reads a whole number from a JSON or Parquet value.
func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case json.Number:
		n, err := x.Int64()
		return int(n), err == nil
	case int64:
		return int(x), true
	case int32:
		return int(x), true
	case int:
		return x, true
	case float64:
		return int(x), x == float64(int(x))
	case float32:
		return int(x), x == float32(int(x))
	}
	return 0, false
}

// toText reads text: a string, bytes, or a list of content parts
// ({"type": "text", "text": …}) joined.
func toText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	parts, ok := unwrapList(v)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		m, ok := p.(map[string]any)
		if !ok {
			return "", false
		}
		if s, ok := m["text"].(string); ok {
			b.WriteString(s)
		}
	}
	return b.String(), true
}
