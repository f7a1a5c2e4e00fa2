package result

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestRecordJSON: every line names its schema (RecordSchema with a run
// id, PreviousRecordSchema without); a failed request and one without
// content have null latencies; lines read back as written, and lines of
// the formats before still read.
func TestRecordJSON(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ok := Record{RunID: "0123456789abcdef", WorkloadSHA256: "abc", ID: "r0", OK: true, TTFTMs: 12.5, E2EMs: 40, DoneMs: 41, ChunkTimesMs: []float64{12.5, 40}, ChunkTokens: []int{1, 1},
		SentAt: at, DoneAt: at.Add(41 * time.Millisecond)}
	failed := Record{ID: "r1", OK: false, ErrorClass: "http_500", TTFTMs: 0, E2EMs: 3, DoneMs: 3}
	empty := Record{ID: "r2", OK: true}
	tests := []struct {
		rec               Record
		schema, ttft, e2e string
	}{
		{ok, RecordSchema + `","run_id":"0123456789abcdef","workload_sha256":"abc"`, `"ttft_ms":12.5`, `"e2e_ms":40`},
		{failed, PreviousRecordSchema + `","id"`, `"ttft_ms":null`, `"e2e_ms":null`},
		{empty, PreviousRecordSchema + `","id"`, `"ttft_ms":null`, `"e2e_ms":null`},
	}
	var buf bytes.Buffer
	w := NewRecordWriter(&buf)
	for _, tc := range tests {
		b, err := json.Marshal(tc.rec)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if !strings.HasPrefix(s, `{"schema":"`+tc.schema) || !strings.Contains(s, tc.ttft) || !strings.Contains(s, tc.e2e) ||
			strings.Count(s, `"ttft_ms"`) != 1 {
			t.Errorf("%s: %s", tc.rec.ID, s)
		}
		w.Write(&tc.rec)
	}
	if !strings.Contains(buf.String(), `"sent_at":"2026-12-01T10:00:00Z","done_at":"2026-12-01T10:00:00.041Z"`) {
		t.Errorf("wall-clock times missing: %s", buf.String())
	}
	buf.WriteString(`{"id":"old","ok":true,"ttft_ms":7,"e2e_ms":9,"chunk_times_ms":[7,9]}` + "\n")
	got, err := ReadRecords(&buf)
	if err != nil || len(got) != 4 {
		t.Fatalf("read back %d records: %v", len(got), err)
	}
	if got[0].TTFTMs != 12.5 || !got[0].SentAt.Equal(at) || got[0].RunID != ok.RunID || got[0].WorkloadSHA256 != "abc" || got[1].RunID != "" || got[1].TTFTMs != 0 || got[1].E2EMs != 0 || got[1].ErrorClass != "http_500" ||
		got[3].TTFTMs != 7 || got[3].E2EMs != 9 {
		t.Errorf("read back %+v", got)
	}
	for _, bad := range []string{`{"schema":"servecmp.record/9","id":"x"}`, `{"schema":"servecmp.result/2","id":"x"}`,
		`{"schema":"` + RecordSchema + `","id":"x","workload_sha256":"abc"}`} {
		if _, err := ReadRecords(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}

// TestRateInf: a rate of inf is valid and survives JSON as "inf".
func TestRateInf(t *testing.T) {
	l := LoadPolicy{Mode: ModeRate, Rate: math.Inf(1), Arrival: ArrivalPoisson, Requests: 4}
	if err := l.validateRate(); err != nil {
		t.Errorf("rate inf refused: %v", err)
	}
	for _, in := range []LoadPolicy{l, {Mode: ModeRate, Rate: 2.5}, {Mode: ModeConcurrency, Concurrency: 3}} {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var back LoadPolicy
		if err := json.Unmarshal(b, &back); err != nil || back != in {
			t.Errorf("%s read back as %+v (%v)", b, back, err)
		}
		if math.IsInf(in.Rate, 1) && !strings.Contains(string(b), `"rate":"inf"`) {
			t.Errorf("inf rate written as %s", b)
		}
	}
}
