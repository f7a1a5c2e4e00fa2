package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// oneLineErr fails t when err spans lines.
func oneLineErr(t *testing.T, err error) {
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Fatalf("multi-line error %q", err)
	}
}

// FuzzParseRun feeds arbitrary bytes to the result loader: whatever it
// accepts has a summary without negative counts.
func FuzzParseRun(f *testing.F) {
	good, _ := json.Marshal(goodResult(2, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	f.Add(good)
	f.Add([]byte(`{"schema":"` + result.Schema + `","summary":null}`))
	f.Add([]byte(`{"schema":"` + result.Schema + `","summary":{"requests_ok":-1},"workload":{"count":1,"sha256":"x"},"manifest":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := parseRun("r.json", data)
		oneLineErr(t, err)
		if err != nil {
			return
		}
		if checkSummary(&run.Result.Summary) != nil || run.Result.Workload.Count <= 0 {
			t.Fatalf("accepted an invalid result: %s", data)
		}
	})
}

// FuzzParseRecords feeds arbitrary bytes to the records loader: whatever
// it accepts has unique ids per step and times in order.
func FuzzParseRecords(f *testing.F) {
	f.Add([]byte(rec1 + "\n" + rec2 + "\n"))
	f.Add([]byte(rec1 + "\n" + rec1 + "\n"))
	f.Add([]byte(`{"id":"x","ok":true,"ttft_ms":5,"e2e_ms":1}`))
	f.Add([]byte("\n\n{\"id\":\"y\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := parseRecords("r.jsonl", bytes.NewReader(data))
		oneLineErr(t, err)
		if err != nil {
			return
		}
		if err := checkRecords("again", recs.Records); err != nil {
			t.Fatalf("accepted records fail their check: %v", err)
		}
	})
}

// FuzzParseCheck feeds arbitrary bytes to the check-report loader.
func FuzzParseCheck(f *testing.F) {
	f.Add([]byte(`{"schema":"servecmp.check/1"}`))
	f.Add([]byte(`{"schema":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseCheck("c.json", data)
		oneLineErr(t, err)
	})
}

// FuzzCompareLoaded runs a whole comparison on what the loaders accept:
// a fuzzed result and records on side A against a fixed side B. Nothing
// the loaders let through may panic the comparison or its presentation
// data.
func FuzzCompareLoaded(f *testing.F) {
	good, _ := json.Marshal(goodResult(2, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	f.Add(good, []byte(rec1+"\n"+rec2+"\n"))
	f.Add([]byte(`{"schema":"`+result.Schema+`","summary":{"requests_ok":4611686018427387904,"duration_s":1e308},"workload":{"count":9223372036854775807,"sha256":"x"},"manifest":{}}`),
		[]byte(`{"id":"a","ok":true,"ttft_ms":1e308,"e2e_ms":1e308,"chunk_times_ms":[0,1e308],"completion_tokens":9223372036854775807}`))
	b, _ := json.Marshal(goodResult(2, time.Date(2026, 1, 3, 3, 4, 5, 0, time.UTC)))
	runB, err := parseRun("b.json", b)
	if err != nil {
		f.Fatal(err)
	}
	recsB, err := parseRecords("b.jsonl", strings.NewReader(rec1+"\n"+rec2+"\n"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, result, records []byte) {
		runA, err := parseRun("a.json", result)
		if err != nil {
			return
		}
		recsA, err := parseRecords("a.jsonl", bytes.NewReader(records))
		if err != nil {
			return
		}
		in := Input{A: []Run{runA}, B: []Run{runB}, RecordsA: []Records{recsA}, RecordsB: []Records{recsB}, Resamples: 20}
		if tieSides(&in) != nil {
			in.RecordsA, in.RecordsB = nil, nil
		}
		New(in)
	})
}
