package classify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"github.com/servecmp/servecmp/internal/infile"
)

// WriteSummary writes r as a saved summary (schema SummarySchema): the
// complete per-rank counters, so that Merge and compare can use it later.
func (r *Report) WriteSummary(w io.Writer) error {
	c := *r
	c.Schema = SummarySchema
	return c.writeIndented(w, " ")
}

// WriteJSON writes r as the analyze --format json document (schema
// AnalysisSchema).
func (r *Report) WriteJSON(w io.Writer) error {
	c := *r
	c.Schema = AnalysisSchema
	return c.writeIndented(w, "  ")
}

// writeIndented writes r as json.Encoder does with indent (the same
// bytes), one rank at a time: the memory it takes is one rank's text,
// not the whole document's (tens of MB for a thousand ranks).
func (r *Report) writeIndented(w io.Writer, indent string) error {
	head := *r
	head.Ranks = nil
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", indent)
	if err := enc.Encode(&head); err != nil {
		return err
	}
	const key = `"ranks": null`
	pre, post, ok := bytes.Cut(b.Bytes(), []byte(key))
	if !ok || len(r.Ranks) == 0 && r.Ranks != nil {
		if ok {
			b.Reset()
			b.Write(pre)
			b.WriteString(`"ranks": []`)
			b.Write(post)
		}
		_, err := w.Write(b.Bytes())
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(pre)
	bw.WriteString(`"ranks": `)
	if r.Ranks == nil {
		bw.WriteString("null")
	} else {
		bw.WriteString("[")
		for i, s := range r.Ranks {
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n" + indent + indent)
			one, err := json.MarshalIndent(s, indent+indent, indent)
			if err != nil {
				return err
			}
			bw.Write(one)
		}
		bw.WriteString("\n" + indent + "]")
	}
	bw.Write(post)
	return bw.Flush()
}

// ReadSummary reads a saved summary written by WriteSummary (analyze
// --save, merge --save). It checks the schema, recomputes the derived
// figures (shares, per-work, cross-rank) from the saved counters, and
// refuses a summary without ranks, values no analysis writes (negative
// or huge counts, reversed windows, empty labels) and duplicate rank
// labels.
func ReadSummary(rd io.Reader) (*Report, error) {
	return readReport(rd, true)
}

// ReadReport reads either a saved summary or the analyze --format json
// document (whose lists may be cut to the top N). Use ReadSummary where
// complete counters matter (merging).
func ReadReport(rd io.Reader) (*Report, error) {
	return readReport(rd, false)
}

func readReport(rd io.Reader, strict bool) (*Report, error) {
	dec := json.NewDecoder(rd)
	var r Report
	if err := dec.Decode(&r); err != nil {
		if err == io.EOF {
			return nil, errors.New("not a servecmp summary: empty file")
		}
		return nil, fmt.Errorf("not a servecmp summary: %w", err)
	}
	if r.Schema != SummarySchema && (strict || r.Schema != "" && r.Schema != AnalysisSchema) {
		return nil, fmt.Errorf("not a servecmp summary: schema %s, want %s", strconv.Quote(r.Schema), SummarySchema)
	}
	if r.Schema == AnalysisSchema {
		r.Schema = "" // in memory, Schema marks complete counters only
	}
	if len(r.Ranks) == 0 {
		return nil, errors.New("not a servecmp summary: no ranks")
	}
	for i, s := range r.Ranks {
		if s == nil {
			return nil, fmt.Errorf("summary: rank %d is null", i)
		}
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("summary: %v", err)
		}
		s.derive()
		s.applyWork()
	}
	saved := r.Warnings // report-level ones (captures') are not in the ranks
	if err := r.finish(); err != nil {
		return nil, err
	}
	r.AddWarnings(saved...)
	return &r, nil
}

// ReadSummaryFile reads the saved summary at path (see ReadSummary).
// Errors are one line starting with path.
func ReadSummaryFile(path string) (*Report, error) {
	return readFile(path, ReadSummary)
}

// ReadReportFile reads a saved summary or an analyze --format json
// document at path (see ReadReport). Errors are one line starting with
// path.
func ReadReportFile(path string) (*Report, error) {
	return readFile(path, ReadReport)
}

func readFile(path string, read func(io.Reader) (*Report, error)) (*Report, error) {
	fh, err := infile.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is already in front
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer fh.Close()
	r, err := read(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return r, nil
}
