package benchmark

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
)

func TestRunRecordedAndWriteResult(t *testing.T) {
	s := (&fakeengine.Server{}).Start(t)
	c := client.New(client.Options{BaseURL: s.URL, Conns: 2})
	defer c.Close()
	dir := t.TempDir()
	cfg := Config{Client: c, Engine: "vllm", Model: "m", Workload: fakeengine.Workload(5, 3, true),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2}}
	records := filepath.Join(dir, "r.jsonl")
	res, err := RunRecorded(context.Background(), cfg, records)
	if err != nil || res == nil {
		t.Fatalf("RunRecorded: %v", err)
	}
	f, err := os.Open(records)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var r result.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("record %d: %v", n, err)
		}
		// Every line is tied to its result: run id and workload.
		if r.RunID != res.RunID || r.WorkloadSHA256 != "abc" || !strings.HasPrefix(sc.Text(), `{"schema":"`+result.RecordSchema+`","run_id":"`+res.RunID+`"`) {
			t.Errorf("record %d of run %s: %s", n, res.RunID, sc.Text())
		}
	}
	if n != 5 {
		t.Errorf("%d records, want 5", n)
	}
	if len(res.RunID) != result.RunIDLen || strings.Trim(res.RunID, "0123456789abcdef") != "" {
		t.Errorf("run id %q, want %d hex digits", res.RunID, result.RunIDLen)
	}
	if again, err := Run(context.Background(), cfg); err != nil || again.RunID == res.RunID {
		t.Errorf("a second run has run id %q (the first %q): %v", again.RunID, res.RunID, err)
	}
	// A records file that cannot be created: no run, an error naming it.
	missing := filepath.Join(dir, "missing", "r.jsonl")
	if res2, err := RunRecorded(context.Background(), cfg, missing); res2 != nil || err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("uncreatable records: result %v, error %v", res2 != nil, err)
	}
	// A run that cannot start returns no result.
	bad := cfg
	bad.Workload = fakeengine.Workload(0, 3, true)
	if res3, err := RunRecorded(context.Background(), bad, filepath.Join(dir, "r2.jsonl")); res3 != nil || err == nil {
		t.Errorf("bad config: result %v, error %v", res3 != nil, err)
	}
	var stdout bytes.Buffer
	out := filepath.Join(dir, "res.json")
	if err := result.WriteResult("-", &stdout, res); err != nil {
		t.Fatal(err)
	}
	if err := result.WriteResult(out, nil, res); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(b, stdout.Bytes()) || !json.Valid(b) {
		t.Errorf("file and stdout results differ or are not JSON")
	}
}
