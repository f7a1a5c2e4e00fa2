package benchmark

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// RecordWriter writes records as JSON Lines, one Write per record, so
// each line reaches the writer (the OS) as soon as its request ends.
type RecordWriter struct {
	w   io.Writer
	buf bytes.Buffer
}

// NewRecordWriter returns a writer of JSON Lines to w. It is not safe for
// concurrent use; Run serialises its OnRecord calls.
func NewRecordWriter(w io.Writer) *RecordWriter { return &RecordWriter{w: w} }

// Write encodes r as one line.
func (rw *RecordWriter) Write(r *Record) error {
	rw.buf.Reset()
	enc := json.NewEncoder(&rw.buf)
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := rw.w.Write(rw.buf.Bytes())
	return err
}

// ReadRecords reads a records.jsonl stream. Blank lines are skipped; a
// malformed line is an error naming its line number. A final line cut
// short by a crash is an error too, after the records before it: the
// records read so far are returned with the error.
func ReadRecords(r io.Reader) ([]Record, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var out []Record
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var rec Record
			if jerr := json.Unmarshal(b, &rec); jerr != nil {
				return out, fmt.Errorf("line %d: %v", line, jerr)
			}
			if rec.ID == "" {
				return out, fmt.Errorf("line %d: record has no id", line)
			}
			out = append(out, rec)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("line %d: %w", line, err)
		}
	}
}
