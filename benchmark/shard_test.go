package benchmark

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
)

// openLoopWorkload is 40 units: single requests with, when sessions,
// sessions of two turns (whose second turn follows its answer) or, when
// not, a few requests with their own arrival offsets.
func openLoopWorkload(sessions bool) *workload.Workload {
	w := &workload.Workload{Path: "w.jsonl", SHA256: "abc"}
	for i := range 40 {
		r := workload.Request{ID: fmt.Sprint("r", i), Prompt: "x", MaxTokens: 1}
		switch {
		case !sessions && i%7 == 3:
			off := float64(i) / 3
			r.ArrivalOffsetS = &off
		case sessions && i%5 == 0:
			r.Prompt, r.Messages, r.Session = "", []workload.Message{{Role: "user", Content: "x"}}, fmt.Sprint("s", i)
			w.Requests = append(w.Requests, r)
			r.ID, r.Turn = r.ID+"-2", 1
		}
		w.Requests = append(w.Requests, r)
	}
	return w
}

// unitStartsOf is when the step would start each unit of reqs (seconds,
// by the id of its first request), through the step's own code path.
func unitStartsOf(t *testing.T, reqs []workload.Request, l result.LoadPolicy) map[string]float64 {
	t.Helper()
	off, err := arrivalOffsets(reqs, l)
	if err != nil {
		t.Fatal(err)
	}
	prep := make([]client.Prepared, len(reqs))
	for i := range reqs {
		prep[i].Req = &reqs[i]
	}
	units := sessionUnits(prep)
	starts := sessionStarts(prep, units, off, l.Mode)
	out := map[string]float64{}
	for k, u := range units {
		out[reqs[u[0]].ID] = starts[k]
	}
	return out
}

// TestShardScheduleIsTheWhole: the shards of an open loop at rate R each
// start their units when one process at rate N×R would, with sessions or
// with requests that carry their own offsets, for every arrival process,
// and a trace (every unit at its own offset).
func TestShardScheduleIsTheWhole(t *testing.T) {
	for _, sessions := range []bool{false, true} {
		for _, arrival := range []string{result.ArrivalConstant, result.ArrivalPoisson, result.ArrivalGamma} {
			checkShardSchedule(t, openLoopWorkload(sessions), arrival)
		}
	}
	// A trace: every unit carries its own offset, which its shard keeps.
	w := openLoopWorkload(true)
	for i := range w.Requests {
		if w.Requests[i].Turn == 0 {
			off := float64(i%13) / 7
			w.Requests[i].ArrivalOffsetS = &off
		}
	}
	checkShardSchedule(t, w, "")
}

func checkShardSchedule(t *testing.T, w *workload.Workload, arrival string) {
	t.Helper()
	for _, n := range []int{1, 3, 4} {
		per := result.LoadPolicy{Mode: result.ModeRate, Rate: 2.5, Arrival: arrival, Burstiness: 0.5, Seed: 9}
		if arrival == "" {
			per = result.LoadPolicy{Mode: result.ModeTrace}
		}
		whole := per
		whole.Rate *= float64(n)
		want := unitStartsOf(t, w.Requests, whole)
		got := map[string]float64{}
		for i := range n {
			cfg := &Config{Workload: w, Load: per, Shard: &ShardConfig{Index: i, Count: n}}
			reqs, err := shardRequests(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for id, s := range unitStartsOf(t, reqs, per) {
				got[id] = s
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s, %d shards: %d units started, want %d", arrival, n, len(got), len(want))
		}
		for id, s := range want {
			if math.Abs(got[id]-s) > 1e-12 {
				t.Errorf("%s, %d shards: unit %s starts at %g, one process at %g", arrival, n, id, got[id], s)
			}
		}
	}
}

func TestShardValidate(t *testing.T) {
	now := time.Now()
	w := fakeengine.Workload(4, 1, false)
	tests := []struct {
		name string
		sh   ShardConfig
		cfg  func(*Config)
		want string
	}{
		{"ok", ShardConfig{Index: 1, Count: 2, StartAt: now.Add(time.Minute)}, nil, ""},
		{"a moment late", ShardConfig{Index: 0, Count: 2, StartAt: now.Add(-time.Second)}, nil, ""},
		{"past", ShardConfig{Index: 0, Count: 2, StartAt: now.Add(-time.Minute)}, nil, "in the past"},
		{"far", ShardConfig{Index: 0, Count: 2, StartAt: now.Add(48 * time.Hour)}, nil, "more than 24h0m0s ahead"},
		{"no start", ShardConfig{Index: 0, Count: 2}, nil, "needs its start instant"},
		{"index", ShardConfig{Index: 2, Count: 2, StartAt: now}, nil, "want 0 <= i < N"},
		{"empty shard", ShardConfig{Index: 0, Count: 5, StartAt: now}, nil, "would be empty"},
		{"sweep", ShardConfig{Index: 0, Count: 2, StartAt: now}, func(c *Config) {
			c.SweepKind, c.SweepValues = result.ModeConcurrency, []float64{1, 2}
		}, "a sweep cannot be sharded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := tt.sh
			cfg := Config{URL: "http://127.0.0.1:1", Workload: w, Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1}, Shard: &sh}
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			err := cfg.Validate()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Validate: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestShardRunWaitsAndRecords: a shard sends its own requests only, not
// before its start instant, and its result and records say which shard
// of which workload it is.
func TestShardRunWaitsAndRecords(t *testing.T) {
	f := &fakeengine.Server{Delay: time.Millisecond}
	s := f.Start(t)
	start := time.Now().Add(1200 * time.Millisecond).Truncate(time.Millisecond)
	var mu sync.Mutex
	var recs []result.Record
	w := fakeengine.Workload(10, 3, true)
	res, err := Run(context.Background(), Config{URL: s.URL, Engine: "vllm", Model: "m", Workload: w,
		Load:     result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2, Warmup: 1},
		Shard:    &ShardConfig{Index: 1, Count: 3, StartAt: start},
		OnRecord: func(r *result.Record) error { mu.Lock(); recs = append(recs, *r); mu.Unlock(); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	sh := res.Shard
	if res.Schema != result.ShardSchema || sh == nil || sh.Index != 1 || sh.Count != 3 || sh.Requests != 3 {
		t.Fatalf("schema %s, shard %+v", res.Schema, sh)
	}
	if res.Workload.Count != 10 || res.Load.Requests != 3 || res.Summary.RequestsOK != 3 {
		t.Errorf("workload count %d, load requests %d, ok %d: want 10, 3, 3", res.Workload.Count, res.Load.Requests, res.Summary.RequestsOK)
	}
	if sh.T0.Before(start) || sh.StartSkewS < 0 || sh.StartSkewS > 0.2 || sh.Group != ShardGroup(start, "abc", 3) {
		t.Errorf("t0 %v for start %v (skew %g s), group %s", sh.T0, start, sh.StartSkewS, sh.Group)
	}
	if c := sh.ServerClock; c == nil || c.LoS > 0 || c.HiS < 0 || c.Probes == 0 {
		t.Errorf("server clock %+v: want an interval around 0 (one host)", c)
	}
	for _, r := range recs {
		if r.Shard == nil || *r.Shard != (result.ShardRef{Index: 1, Count: 3}) || r.RunID != res.RunID || r.SentAt.Before(start) {
			t.Errorf("record %s: shard %v, run %s, sent %v", r.ID, r.Shard, r.RunID, r.SentAt)
		}
		if !strings.HasSuffix(r.ID, "1") && !strings.HasSuffix(r.ID, "4") && !strings.HasSuffix(r.ID, "7") {
			t.Errorf("record %s is not of shard 1 of 3 (r001, r004, r007)", r.ID)
		}
	}
}

// TestShardWaitStopsAtOnce: an interrupt during the wait for the start
// ends the run at once, with nothing measured.
func TestShardWaitStopsAtOnce(t *testing.T) {
	f := &fakeengine.Server{}
	s := f.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := Run(ctx, Config{URL: s.URL, Engine: "vllm", Model: "m", Workload: fakeengine.Workload(4, 1, true),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1}, Shard: &ShardConfig{Index: 0, Count: 2, StartAt: time.Now().Add(time.Hour)}})
	var ie *InterruptedError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "--start-at") {
		t.Fatalf("err %v, want an interrupt during the wait", err)
	}
	if el := time.Since(t0); el > 2*time.Second {
		t.Errorf("the interrupted wait took %v", el)
	}
	if n := len(f.Seen()); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
}

// TestProbeServerClock: a server whose Date runs 30 s ahead is seen 30 s
// ahead, within the probe's two-second resolution; one without a Date
// gives no offset.
func TestProbeServerClock(t *testing.T) {
	for _, tt := range []struct {
		name   string
		ahead  time.Duration
		noDate bool
	}{{"ahead", 30 * time.Second, false}, {"behind", -45 * time.Second, false}, {"no date", 0, true}} {
		t.Run(tt.name, func(t *testing.T) {
			url := raw(t, func(w http.ResponseWriter, _ *http.Request) {
				if tt.noDate {
					w.Header()["Date"] = nil // net/http then sends none
				} else {
					w.Header().Set("Date", time.Now().Add(tt.ahead).UTC().Format(http.TimeFormat))
				}
				fmt.Fprint(w, `{"data":[]}`)
			})
			c := client.New(client.Options{BaseURL: url, Conns: 1})
			defer c.Close()
			got := probeServerClock(context.Background(), c, time.Now().Add(5*time.Second))
			if tt.noDate {
				if got != nil {
					t.Fatalf("offset %+v from a server without Date", got)
				}
				return
			}
			if got == nil || got.Probes != clockProbes || got.LoS > tt.ahead.Seconds() || got.HiS < tt.ahead.Seconds() || got.HiS-got.LoS > 2.1 {
				t.Fatalf("offset %+v, want an interval of at most 2.1 s around %v", got, tt.ahead)
			}
		})
	}
}
