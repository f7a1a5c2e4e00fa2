package workload

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/servecmp/servecmp/internal/infile"
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

// Bounds of a dataset file: one record's text, and a Parquet file's
// footer and column chunks, checked against the file's size before the
// Parquet library allocates what they claim.
const (
	// MaxRecordBytes bounds one JSONL line or JSON array element.
	MaxRecordBytes = 64 << 20
	// MaxParquetFooter bounds a Parquet file's metadata.
	MaxParquetFooter = 64 << 20
	// MaxParquetChunk bounds the uncompressed size a column chunk claims.
	MaxParquetChunk = 4 << 30
)

// detectFormat picks a format from the file name: .jsonl/.ndjson, .json
// (a JSON array, or JSON Lines when the file starts with an object) and
// .parquet. head is the start of the file.
func detectFormat(path string, head []byte) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return FormatJSONL, nil
	case ".json":
		if t := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf"); len(t) > 0 && t[0] == '{' {
			return FormatJSONL, nil
		}
		return FormatJSON, nil
	case ".parquet", ".pq":
		return FormatParquet, nil
	}
	return "", fmt.Errorf("%s: unknown dataset format (want .jsonl, .json or .parquet, or give --format)", path)
}

// eachRecord streams the records of a dataset file to fn, in file order
// (i counts from 0), holding one record at a time. fields are the fields
// the mapping names: a Parquet file whose schema lacks one is refused
// before any row is read. fn's error stops the reading.
func eachRecord(path, format string, fields []string, fn func(i int, r record) error) error {
	f, err := infile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if format == "" || format == FormatJSONL || format == FormatJSON {
		br := bufio.NewReaderSize(f, 1<<20)
		if format == "" {
			head, _ := br.Peek(4096)
			if format, err = detectFormat(path, head); err != nil {
				return err
			}
		}
		switch format {
		case FormatJSONL:
			return eachJSONL(path, br, fn)
		case FormatJSON:
			return eachJSONArray(path, br, fn)
		}
	}
	if format == FormatParquet {
		return eachParquet(path, f, fields, fn)
	}
	return fmt.Errorf("--format %q: want jsonl, json or parquet", format)
}

func eachJSONL(path string, br *bufio.Reader, fn func(int, record) error) error {
	n := 0
	for line := 1; ; line++ {
		b, err := readLine(br, MaxRecordBytes)
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			var r record
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			if jerr := dec.Decode(&r); jerr != nil || r == nil {
				return fmt.Errorf("%s:%d: want a JSON object per line: %v", path, line, jerr)
			}
			if ferr := fn(n, r); ferr != nil {
				return ferr
			}
			n++
		}
		if err == io.EOF {
			return nil
		}
	}
}

// readLine reads one line (with its newline), refusing one longer than
// limit bytes; io.EOF comes with the last line.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		b, err := br.ReadSlice('\n')
		if len(line)+len(b) > limit {
			return nil, fmt.Errorf("a line longer than %d bytes (the bound on one record)", limit)
		}
		line = append(line, b...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// limitedRecord counts the bytes a JSON decoder reads for one record.
type limitedRecord struct {
	r io.Reader
	n int
}

func (l *limitedRecord) Read(p []byte) (int, error) {
	if l.n > MaxRecordBytes {
		return 0, fmt.Errorf("a record longer than %d bytes (the bound on one record)", MaxRecordBytes)
	}
	n, err := l.r.Read(p)
	l.n += n
	return n, err
}

func eachJSONArray(path string, br *bufio.Reader, fn func(int, record) error) error {
	lr := &limitedRecord{r: br}
	dec := json.NewDecoder(lr)
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return fmt.Errorf("%s: want a JSON array of objects", path)
	}
	n := 0
	for dec.More() {
		lr.n = 0
		var r record
		if err := dec.Decode(&r); err != nil || r == nil {
			return fmt.Errorf("%s: record %d: want an object: %v", path, n+1, err)
		}
		if err := fn(n, r); err != nil {
			return err
		}
		n++
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s: after record %d: %v", path, n, err)
	}
	return nil
}

// eachParquet streams a Parquet file's rows as records, after checking
// its footer and column chunks against the file's size and its schema for
// every named field.
func eachParquet(path string, f *os.File, fields []string, fn func(int, record) error) (err error) {
	n := 0
	defer func() {
		if p := recover(); p != nil { // the library panics on metadata and rows it cannot map
			err = fmt.Errorf("%s: not a readable Parquet file: %v", path, p)
			if n > 0 {
				err = fmt.Errorf("%s: row %d: %v", path, n+1, p)
			}
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := checkParquet(f, st.Size()); err != nil {
		return fmt.Errorf("%s: not a readable Parquet file: %v", path, err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("%s: not a readable Parquet file: %v", path, err)
	}
	if err := checkChunks(pf.Metadata(), st.Size()); err != nil {
		return fmt.Errorf("%s: not a readable Parquet file: %v", path, err)
	}
	var have []string
	for _, fl := range pf.Schema().Fields() {
		have = append(have, fl.Name())
	}
	for _, want := range fields {
		if want != "" && !slices.Contains(have, want) {
			return fmt.Errorf("%s: no field %q (fields: %s)", path, want, strings.Join(have, ", "))
		}
	}
	rd := parquet.NewReader(pf)
	defer rd.Close()
	for ; ; n++ {
		r := record{}
		if err := rd.Read(&r); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: row %d: %v", path, n+1, err)
		}
		if err := fn(n, r); err != nil {
			return err
		}
	}
}

// checkParquet checks the frame of a Parquet file of size bytes before
// the library reads it: the magic at both ends, and a footer whose
// claimed length fits in the file and in MaxParquetFooter (a 1.4 KB file
// claiming a 2 GiB footer is refused here, not allocated).
func checkParquet(r io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("%d bytes, too short for Parquet", size)
	}
	var head, tail [8]byte
	if _, err := r.ReadAt(head[:4], 0); err != nil {
		return err
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	switch {
	case string(head[:4]) != "PAR1":
		return errors.New("no PAR1 magic at the start")
	case string(tail[4:]) == "PARE":
		return errors.New("an encrypted Parquet file (not read)")
	case string(tail[4:]) != "PAR1":
		return errors.New("no PAR1 magic at the end (a truncated file?)")
	}
	footer := int64(binary.LittleEndian.Uint32(tail[:4]))
	if footer > size-12 || footer > MaxParquetFooter {
		return fmt.Errorf("bad footer: it claims %d bytes of metadata in a file of %d bytes", footer, size)
	}
	return nil
}

// checkChunks checks that every column chunk the metadata describes lies
// inside the file and claims a bounded uncompressed size.
func checkChunks(md *format.FileMetaData, size int64) error {
	for g, rg := range md.RowGroups {
		for c, col := range rg.Columns {
			m := col.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			if start < 4 || m.TotalCompressedSize < 0 || start > size || m.TotalCompressedSize > size-start {
				return fmt.Errorf("row group %d, column %d: its data (%d bytes at %d) lies outside the file of %d bytes", g, c, m.TotalCompressedSize, start, size)
			}
			if m.TotalUncompressedSize < 0 || m.TotalUncompressedSize > MaxParquetChunk {
				return fmt.Errorf("row group %d, column %d: claims %d bytes uncompressed, over %d", g, c, m.TotalUncompressedSize, MaxParquetChunk)
			}
		}
	}
	return nil
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
