package shards

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

var startAt = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

const sha = "4e9aa3f247787220ddb3eefcf943caf4ace8f18adc52ccba6fcae4ec13a8428b"

// fakeShards builds the n shards of a run of per requests each: shard i
// started i ms after the agreed start and its requests' latencies come
// from a distribution of its own (so that averaging the shards'
// percentiles would be wrong).
func fakeShards(n, per int) []Input {
	rng := rand.New(rand.NewPCG(1, 2))
	in := make([]Input, n)
	for i := range in {
		run := fmt.Sprintf("%016x", 0xa0+i)
		var recs []result.Record
		for k := range per {
			ttft := 10 + float64(i*i)*20 + rng.Float64()*10 // shard 3 is much slower
			sent := float64(k) * 0.01
			recs = append(recs, result.Record{RunID: run, WorkloadSHA256: sha, Shard: &result.ShardRef{Index: i, Count: n},
				ID: fmt.Sprintf("r%03d", k*n+i), OK: true, ScheduledS: sent, SentS: sent, TTFTMs: ttft, E2EMs: ttft + 40, DoneMs: ttft + 41,
				ChunkTimesMs: []float64{ttft, ttft + 20, ttft + 40}, ChunkTokens: []int{1, 1, 1}, PromptTokens: 5, CompletionTokens: 3, UsageReported: true, FinishReason: "length"})
		}
		t0 := startAt.Add(time.Duration(i) * time.Millisecond)
		res := &result.Result{Schema: result.ShardSchema, RunID: run,
			Manifest: result.Manifest{Engine: "vllm", EngineVersion: "1", Model: "m", ClientHost: fmt.Sprint("host", i%2)},
			Workload: result.WorkloadInfo{Path: "wl.jsonl", SHA256: sha, Count: n * per},
			Load:     result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2, Drain: "wait", Requests: per},
			Summary:  result.NewSummary(recs, 0, true), StartedAt: t0.Add(-time.Second), EndedAt: t0.Add(2 * time.Second),
			Shard: &result.Shard{Index: i, Count: n, Group: "g1", StartAt: startAt, T0: t0, StartSkewS: t0.Sub(startAt).Seconds(), Requests: per,
				ServerClock: &result.ClockOffset{LoS: -0.5, HiS: 1.2, Probes: 3}},
		}
		res.Phases.Steady, res.Phases.Drain = result.SplitPhases(recs, 0)
		in[i] = Input{Path: fmt.Sprintf("s%d.json", i), Result: res, RecordsPath: fmt.Sprintf("s%d.jsonl", i), Records: recs}
	}
	return in
}

// TestMergeFromUnion: the merged figures are those of the union of the
// records on the merged clock (exact percentiles), the load is the
// shards' total and every record carries the merged run id.
func TestMergeFromUnion(t *testing.T) {
	in := fakeShards(4, 25)
	res, recs, err := Merge(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var union []result.Record
	for i, x := range in {
		for _, r := range x.Records {
			r.SentS += float64(i) / 1000
			r.ScheduledS += float64(i) / 1000
			union = append(union, r)
		}
	}
	want := result.NewSummary(union, 0, true)
	s := res.Summary
	if s.RequestsOK != 100 || s.TTFT != want.TTFT || s.E2E != want.E2E || s.DurationS != want.DurationS || s.OutputThroughput != want.OutputThroughput {
		t.Errorf("merged ttft %+v duration %g, want %+v %g", s.TTFT, s.DurationS, want.TTFT, want.DurationS)
	}
	mean := 0.0
	for _, x := range in {
		mean += x.Result.Summary.TTFT.P99 / 4
	}
	if math.Abs(mean-s.TTFT.P99) < 1 {
		t.Errorf("the fixture cannot tell a union's p99 (%g) from the mean of the shards' (%g)", s.TTFT.P99, mean)
	}
	if res.Schema != result.Schema || res.Shard != nil || res.Shards == nil || res.Shards.Count != 4 || len(res.Shards.Parts) != 4 {
		t.Fatalf("schema %s, shard %v, shards %+v", res.Schema, res.Shard, res.Shards)
	}
	if res.Load.Concurrency != 8 || res.Load.Requests != 100 || res.Manifest.ClientHost != "host0,host1" || res.Manifest.LoadPolicy != res.Load.String() {
		t.Errorf("load %+v, host %q, policy %q", res.Load, res.Manifest.ClientHost, res.Manifest.LoadPolicy)
	}
	if math.Abs(res.Shards.StartSpreadS-0.003) > 1e-9 || res.Shards.ClockDisagreementS == nil || *res.Shards.ClockDisagreementS != 0 {
		t.Errorf("spread %g, disagreement %v", res.Shards.StartSpreadS, res.Shards.ClockDisagreementS)
	}
	for _, r := range recs {
		if r.RunID != res.RunID || r.Shard == nil {
			t.Fatalf("record %s: run %s shard %v", r.ID, r.RunID, r.Shard)
		}
	}
	if again, _, _ := Merge(fakeShards(4, 25), Options{}); again.RunID != res.RunID {
		t.Errorf("merging the same shards twice gave runs %s and %s", res.RunID, again.RunID)
	}
}

// TestMergeRefuses: everything that is not the complete shards of one
// run, measured alike and started together, is refused by name.
func TestMergeRefuses(t *testing.T) {
	tests := []struct {
		name string
		edit func([]Input) []Input
		want string
	}{
		{"missing", func(in []Input) []Input { return in[:3] }, "shards [3] of 4 are missing"},
		{"repeated", func(in []Input) []Input {
			in[2].Result.Shard.Index = 1
			return in
		}, "shard 1/4 given twice (s1.json and s2.json)"},
		{"other workload", func(in []Input) []Input { in[1].Result.Workload.SHA256 = "ff"; return in }, "different workloads"},
		{"other group", func(in []Input) []Input { in[3].Result.Shard.Group = "g2"; return in }, "shard groups g1 and g2"},
		{"other start", func(in []Input) []Input { in[3].Result.Shard.StartAt = startAt.Add(time.Minute); return in }, "start instants"},
		{"other count", func(in []Input) []Input { in[3].Result.Shard.Count = 5; return in }, "shards of 4 and of 5"},
		{"other load", func(in []Input) []Input { in[2].Result.Load.Concurrency = 3; return in }, "load.concurrency: 2 and 3"},
		{"other engine", func(in []Input) []Input { in[2].Result.Manifest.EngineVersion = "2"; return in }, `manifest.engine_version: "1" and "2"`},
		{"records cut", func(in []Input) []Input { in[1].Records = in[1].Records[:24]; return in }, "s1.jsonl: 24 records, but s1.json counts 25"},
		{"records of another run", func(in []Input) []Input { in[1].Records[3].RunID = "00000000000000ff"; return in }, "s1.jsonl: record 4 belongs to run 00000000000000ff"},
		{"requests in two shards", func(in []Input) []Input { in[1].Records[0].ID = in[0].Records[0].ID; return in }, `request "r000" was sent by shard 0 and shard 1`},
		{"not adding up", func(in []Input) []Input {
			for i := range in {
				in[i].Result.Workload.Count = 120
			}
			return in
		}, "the shards hold 100 requests, the workload 120"},
		{"late start", func(in []Input) []Input { in[2].Result.Shard.T0 = startAt.Add(400 * time.Millisecond); return in }, "shard 2 started 0.400 s after shard 0"},
		{"clocks apart", func(in []Input) []Input {
			in[3].Result.Shard.ServerClock = &result.ClockOffset{LoS: 30, HiS: 31.7, Probes: 3}
			return in
		}, "the clocks of shard 3 and shard 0 disagree by at least 28.800 s"},
		{"never started", func(in []Input) []Input { in[0].Result.Shard.T0 = time.Time{}; return in }, "never began its measured phase"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Merge(tt.edit(fakeShards(4, 25)), Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
	if _, _, err := Merge(fakeShards(4, 25), Options{MaxSkew: time.Millisecond}); err == nil || !strings.Contains(err.Error(), "--max-skew 1ms") {
		t.Errorf("a 3 ms spread under a 1 ms bound: %v", err)
	}
}

// write puts the shards' files in dir and returns their paths, results
// first.
func write(t testing.TB, dir string, in []Input) []string {
	t.Helper()
	var res, recs []string
	for _, x := range in {
		p := filepath.Join(dir, x.Path)
		if err := result.WriteResult(p, nil, x.Result); err != nil {
			t.Fatal(err)
		}
		q := filepath.Join(dir, x.RecordsPath)
		if err := WriteRecords(q, x.Records); err != nil {
			t.Fatal(err)
		}
		res, recs = append(res, p), append(recs, q)
	}
	return append(res, recs...)
}

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	paths := write(t, dir, fakeShards(2, 5))
	for _, p := range paths {
		if !IsBenchmarkFile(p) {
			t.Errorf("%s is not seen as a benchmark file", p)
		}
	}
	in, err := ReadFiles(paths)
	if err != nil || len(in) != 2 || len(in[1].Records) != 5 || in[1].RecordsPath != paths[3] {
		t.Fatalf("ReadFiles: %v, %d inputs", err, len(in))
	}
	whole := *fakeShards(1, 1)[0].Result
	whole.Schema, whole.Shard = result.Schema, nil
	wholePath := filepath.Join(dir, "whole.json")
	if err := result.WriteResult(wholePath, nil, &whole); err != nil {
		t.Fatal(err)
	}
	huge := *fakeShards(1, 1)[0].Result
	huge.Shard = &result.Shard{Index: 0, Count: 1 << 30, Requests: 1}
	hugePath := filepath.Join(dir, "huge.json")
	if err := result.WriteResult(hugePath, nil, &huge); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(dir, "summary.json")
	if err := os.WriteFile(summary, []byte(`{"schema":"servecmp.summary/1","ranks":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if IsBenchmarkFile(summary) {
		t.Error("an analysis summary is seen as a benchmark file")
	}
	for _, tt := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"no records", paths[:3], "s1.json: no records file given for this shard"},
		{"records twice", append(paths, paths[2]), "are both records of"},
		{"result twice", append(paths, paths[0]), "are the same shard run"},
		{"records only", paths[2:], "no shard results among the files"},
		{"whole run", append(paths, wholePath), "a whole run's result"},
		{"summary", append(paths, summary), `schema "servecmp.summary/1" is neither`},
		{"shard count out of bounds", append(paths, hugePath), "huge.json: shard 0/1073741824: want 0 <= i < N <= 4096"},
		{"stray records", []string{paths[0], paths[3]}, "s1.jsonl: its records belong to run 00000000000000a1, which no shard result given has"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ReadFiles(tt.paths); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// FuzzReadFiles: whatever a file holds, sniffing and reading it as a
// shard's result or records ends in a result or an error, never a panic.
func FuzzReadFiles(f *testing.F) {
	dir := f.TempDir()
	paths := write(f, dir, fakeShards(2, 2))
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte(`{"schema":"servecmp.shard/1","shard":null}`))
	f.Add([]byte(`{"schema":"servecmp.record/2","run_id":"x"}` + "\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = Schema(p)
		_ = IsBenchmarkFile(p)
		if in, err := ReadFiles([]string{p, paths[2]}); err == nil {
			_, _, _ = Merge(in, Options{})
		}
	})
}
