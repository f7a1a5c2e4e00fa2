package result

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Error classes of failed requests.
const (
	ClassServerError = "server_error"     // in-band {"error": …} in the stream
	ClassTruncated   = "truncated_stream" // ended without [DONE] or a finish_reason
	ClassTimeout     = "timeout"
	ClassConnection  = "connection"
	ClassBadResponse = "bad_response"
	ClassCancelled   = "cancelled" // stopped by the drain rule or an interrupt
	// HTTP errors are "http_<status>", e.g. "http_400".
)

// RecordSchema names the records.jsonl line format; every line carries it.
//
// Version 2: run_id and workload_sha256 on every line, the run's
// Result.RunID and Workload.SHA256, so that compare ties each records
// file to its result. A record without a run id (one not written by a
// Run) is written as version 1.
//
// Version 1 (the first to be named): "schema" on every line, sent_at and
// done_at as wall-clock times (RFC 3339, UTC) beside the step-relative
// sent_s and done_ms, and ttft_ms and e2e_ms null, not 0, for a failed
// request and for one that streamed no content. Lines of version 1 and
// lines without "schema" (written before it existed) are read as well.
const RecordSchema = "servecmp.record/2"

// PreviousRecordSchema is the record format before RecordSchema: the
// same line without run_id and workload_sha256.
const PreviousRecordSchema = "servecmp.record/1"

// PreviousSchema is the result format before Schema; readers accept it
// (it lacks ended_at and the steps' wall-clock times).
const PreviousSchema = "servecmp.result/1"

// KnownSchema reports whether s names a result format this version reads.
func KnownSchema(s string) bool { return s == Schema || s == PreviousSchema }

// Latencies returns the record's TTFT and E2E in milliseconds, nil when
// the request failed or streamed no content: such a request has no
// latency, and 0 would read as an instant answer.
func (r *Record) Latencies() (ttft, e2e *float64) {
	if !r.OK || len(r.ChunkTimesMs) == 0 {
		return nil, nil
	}
	t, e := r.TTFTMs, r.E2EMs
	return &t, &e
}

// recordJSON is Record's encoded form: the schema name first, the
// latencies as pointers so that a missing one is null.
type recordJSON struct {
	Schema string `json:"schema"`
	*recordAlias
	TTFTMs *float64 `json:"ttft_ms"`
	E2EMs  *float64 `json:"e2e_ms"`
}

// recordAlias is Record without its methods, so that encoding it does not
// recurse into MarshalJSON.
type recordAlias Record

// MarshalJSON writes the record with its schema name (RecordSchema when
// it carries a run id, else PreviousRecordSchema) and null latencies
// where there are none (Latencies).
func (r Record) MarshalJSON() ([]byte, error) {
	ttft, e2e := r.Latencies()
	schema := RecordSchema
	if r.RunID == "" {
		schema = PreviousRecordSchema
	}
	return json.Marshal(recordJSON{Schema: schema, recordAlias: (*recordAlias)(&r), TTFTMs: ttft, E2EMs: e2e})
}

// UnmarshalJSON reads a record line of RecordSchema, of
// PreviousRecordSchema or of the unnamed format before them; a null
// latency reads as 0 (none). A RecordSchema line must carry its run id.
func (r *Record) UnmarshalJSON(b []byte) error {
	var v recordJSON
	v.recordAlias = (*recordAlias)(r)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch {
	case v.Schema == RecordSchema && r.RunID == "":
		return fmt.Errorf("a %s record without run_id", RecordSchema)
	case v.Schema == "" || v.Schema == RecordSchema || v.Schema == PreviousRecordSchema:
	case strings.HasPrefix(v.Schema, "servecmp.record/"):
		return fmt.Errorf("record schema %q is newer than this servecmp reads (%s)", v.Schema, RecordSchema)
	default:
		return fmt.Errorf("schema %q is not a servecmp record (%s)", v.Schema, RecordSchema)
	}
	r.TTFTMs, r.E2EMs = 0, 0
	if v.TTFTMs != nil {
		r.TTFTMs = *v.TTFTMs
	}
	if v.E2EMs != nil {
		r.E2EMs = *v.E2EMs
	}
	return nil
}

// wallAt converts a step-relative send time and a send-relative end (ms)
// into wall-clock instants (UTC) from the step's start.
func WallAt(start time.Time, sent time.Duration, doneMs float64) (sentAt, doneAt time.Time) {
	sentAt = start.Add(sent).UTC().Round(0)
	return sentAt, sentAt.Add(time.Duration(doneMs * 1e6))
}

// loadPolicyAlias is LoadPolicy without its methods.
type loadPolicyAlias LoadPolicy

// MarshalJSON writes an infinite rate (--rate inf: every request at
// once) as the string "inf", which JSON numbers cannot hold.
func (l LoadPolicy) MarshalJSON() ([]byte, error) {
	a := loadPolicyAlias(l)
	if !math.IsInf(l.Rate, 1) {
		return json.Marshal(a)
	}
	a.Rate = 0
	return json.Marshal(struct {
		loadPolicyAlias
		Rate string `json:"rate"`
	}{a, "inf"})
}

// UnmarshalJSON reads a rate written as a number or as "inf".
func (l *LoadPolicy) UnmarshalJSON(b []byte) error {
	v := struct {
		*loadPolicyAlias
		Rate json.RawMessage `json:"rate"`
	}{loadPolicyAlias: (*loadPolicyAlias)(l)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	l.Rate = 0
	switch string(v.Rate) {
	case "", "null":
		return nil
	case `"inf"`:
		l.Rate = math.Inf(1)
		return nil
	}
	return json.Unmarshal(v.Rate, &l.Rate)
}

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
