package benchmark

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
)

func runCfg(t *testing.T, f *fakeengine.Server, load result.LoadPolicy, n, out int) (*result.Result, []result.Record) {
	t.Helper()
	s := f.Start(t)
	c := client.New(client.Options{BaseURL: s.URL, Conns: 16})
	t.Cleanup(c.Close)
	var mu sync.Mutex
	var recs []result.Record
	res, err := Run(context.Background(), Config{
		Client: c, Engine: "vllm", Model: "m", Workload: fakeengine.Workload(n, out, true), Load: load,
		OnRecord: func(r *result.Record) error { mu.Lock(); recs = append(recs, *r); mu.Unlock(); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, recs
}

func TestRunClosedLoop(t *testing.T) {
	f := &fakeengine.Server{Delay: time.Millisecond}
	res, recs := runCfg(t, f, result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 4, Warmup: 3, ResetPrefixCache: true}, 20, 5)
	s := res.Summary
	if s.RequestsOK != 20 || s.OutputTokens != 100 || s.InputTokens != 100 || len(recs) != 20 {
		t.Fatalf("summary %+v, %d records", s, len(recs))
	}
	if s.Concurrency.Max > 4 || s.Concurrency.Max < 2 || s.CompletionTimeS == nil || res.Incomplete {
		t.Fatalf("concurrency %+v completion %v", s.Concurrency, s.CompletionTimeS)
	}
	warm := 0
	for _, id := range f.Seen() {
		if strings.HasSuffix(id, "-warmup") {
			warm++
		}
	}
	if warm != 3 || len(f.Seen()) != 23 {
		t.Fatalf("server saw %d requests, %d warmup", len(f.Seen()), warm)
	}
	for _, r := range recs {
		if strings.HasSuffix(r.ID, "-warmup") {
			t.Fatal("warmup request recorded")
		}
	}
	if res.Phases.Warmup.RequestsSent != 3 || res.Phases.Steady.RequestsSent+res.Phases.Drain.RequestsSent != 20 {
		t.Fatalf("phases %+v", res.Phases)
	}
	if res.Phases.Steady.DurationS <= 0 || res.Phases.Drain.EndS < res.Phases.Steady.EndS {
		t.Fatalf("phases %+v", res.Phases)
	}
}

func TestRunOpenLoopCap(t *testing.T) {
	// 20 req/s constant, but each request takes ≥ 100 ms and only one may
	// be in flight: most requests wait for the cap, and the lag shows it.
	f := &fakeengine.Server{Delay: 50 * time.Millisecond}
	res, recs := runCfg(t, f, result.LoadPolicy{Mode: result.ModeRate, Rate: 20, Arrival: result.ArrivalConstant, MaxConcurrency: 1}, 5, 2)
	s := res.Summary
	if s.RequestsOK != 5 || s.CapDelayed < 3 || s.SendLag.Max < 150 || s.Concurrency.Max != 1 {
		t.Fatalf("ok %d cap %d lag %+v conc %+v", s.RequestsOK, s.CapDelayed, s.SendLag, s.Concurrency)
	}
	for _, r := range recs {
		if r.SentS < r.ScheduledS {
			t.Fatalf("sent before schedule: %+v", r)
		}
	}
}

func TestRunDurationAndCancelDrain(t *testing.T) {
	f := &fakeengine.Server{Delay: 20 * time.Millisecond}
	res, _ := runCfg(t, f, result.LoadPolicy{Mode: result.ModeRate, Rate: 50, Arrival: result.ArrivalConstant, DurationS: 0.1, Drain: result.DrainCancel}, 50, 20)
	s := res.Summary
	if s.RequestsNotSent < 40 || s.RequestsCancelled == 0 || s.CompletionTimeS != nil {
		t.Fatalf("not sent %d cancelled %d completion %v", s.RequestsNotSent, s.RequestsCancelled, s.CompletionTimeS)
	}
	if s.RequestsFailed != 0 || s.RequestsOK+s.RequestsCancelled+s.RequestsNotSent != 50 {
		t.Fatalf("%+v", s)
	}
}

func TestRunDurationSteadyWindow(t *testing.T) {
	// Closed loop, two slots, requests of ≥ 200 ms, --duration 0.3 s:
	// the last sends happen near 0.2 s, but the two slots stayed busy
	// until the deadline, which is where the steady state ends.
	f := &fakeengine.Server{Delay: 20 * time.Millisecond}
	res, _ := runCfg(t, f, result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2, DurationS: 0.3, Drain: result.DrainWait}, 20, 10)
	st := res.Phases.Steady
	if st.EndS < 0.3 || res.Phases.Drain.StartS != st.EndS || res.Summary.RequestsNotSent == 0 {
		t.Fatalf("steady %+v drain %+v not sent %d", st, res.Phases.Drain, res.Summary.RequestsNotSent)
	}
	if st.MeanConcurrency < 1.5 {
		t.Fatalf("steady mean concurrency %v: the window should cover only held load", st.MeanConcurrency)
	}
}

func TestRunDrainTimeout(t *testing.T) {
	f := &fakeengine.Server{Delay: 30 * time.Millisecond}
	res, _ := runCfg(t, f, result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2, Drain: result.DrainWait, DrainTimeoutS: 0.05}, 2, 50)
	if res.Summary.RequestsCancelled != 2 {
		t.Fatalf("%+v", res.Summary)
	}
}

func TestRunInterrupt(t *testing.T) {
	f := &fakeengine.Server{Delay: 10 * time.Millisecond}
	s := f.Start(t)
	c := client.New(client.Options{BaseURL: s.URL, Conns: 4})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	res, err := Run(ctx, Config{Client: c, Engine: "vllm", Model: "m", Workload: fakeengine.Workload(100, 5, false),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Incomplete || res.Summary.RequestsNotSent == 0 || res.Summary.RequestsOK == 0 || res.Summary.CompletionTimeS != nil {
		t.Fatalf("incomplete %v summary %+v", res.Incomplete, res.Summary)
	}
}

func TestRunSweep(t *testing.T) {
	f := &fakeengine.Server{Delay: 2 * time.Millisecond}
	s := f.Start(t)
	c := client.New(client.Options{BaseURL: s.URL, Conns: 8})
	defer c.Close()
	var steps []int
	res, err := Run(context.Background(), Config{Client: c, Engine: "vllm", Model: "m", Workload: fakeengine.Workload(8, 3, false),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1}, SweepKind: result.ModeConcurrency, SweepValues: []float64{1, 4},
		SaturationThreshold: 0.05, OnRecord: func(r *result.Record) error { steps = append(steps, r.Step); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sweep == nil || len(res.Sweep.Steps) != 2 || res.Load.Concurrency != 4 || len(steps) != 16 {
		t.Fatalf("%+v", res.Sweep)
	}
	if res.Sweep.Steps[0].Load.Concurrency != 1 || res.Sweep.Steps[1].Summary.RequestsOK != 8 {
		t.Fatalf("%+v", res.Sweep.Steps)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w, "fewer than 4 × concurrency")
	}
	if !found {
		t.Fatalf("no small-step warning: %q", res.Warnings)
	}
	// The steps re-send one population: without a cache reset the later
	// steps may be served from the prefix cache, and the run says so.
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "prefix cache is not reset between steps") }) {
		t.Fatalf("no prefix-cache warning for a sweep without reset: %q", res.Warnings)
	}
}

func TestLoadValidate(t *testing.T) {
	for _, l := range []result.LoadPolicy{
		{Mode: result.ModeConcurrency},
		{Mode: result.ModeRate},
		{Mode: result.ModeRate, Rate: 1, Arrival: "burst"},
		{Mode: result.ModeRate, Rate: 1, Arrival: result.ArrivalGamma},
		{Mode: result.ModeConcurrency, Concurrency: 1, Drain: "never"},
		{Mode: "x"},
	} {
		if err := l.Validate(); err == nil {
			t.Errorf("accepted %+v", l)
		}
	}
}

func TestWarmupIsNotTheMeasuredRequests(t *testing.T) {
	// Warmup must not send the measured prompts (that would warm the
	// prefix cache for exactly the requests being measured), but it keeps
	// their lengths and output settings.
	f := &fakeengine.Server{}
	s := f.Start(t)
	c := client.New(client.Options{BaseURL: s.URL, Conns: 4})
	defer c.Close()
	w := &workload.Workload{Path: "w.jsonl", SHA256: "abc", Requests: []workload.Request{
		{ID: "t", PromptTokens: []int{1, 2, 3, 4}, MaxTokens: 3, InputLen: 4},
		{ID: "x", Prompt: "alpha beta gamma", MaxTokens: 3},
		{ID: "c", Messages: []workload.Message{{Role: "user", Content: "one two three"}}, MaxTokens: 3},
	}}
	_, err := Run(context.Background(), Config{Client: c, Engine: "vllm", Model: "m", Workload: w,
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1, Warmup: 3}})
	if err != nil {
		t.Fatal(err)
	}
	prompt := func(b map[string]any) string {
		if m, ok := b["messages"]; ok {
			return fmt.Sprint(m)
		}
		return fmt.Sprint(b["prompt"])
	}
	measured := map[string]bool{}
	var warm []string
	for i, id := range f.Seen() {
		if strings.HasSuffix(id, "-warmup") {
			warm = append(warm, prompt(f.Bodies()[i]))
		} else {
			measured[prompt(f.Bodies()[i])] = true
		}
	}
	if len(warm) != 3 || len(measured) != 3 {
		t.Fatalf("warmup %d, measured %d distinct prompts", len(warm), len(measured))
	}
	for _, p := range warm {
		if measured[p] {
			t.Errorf("warmup sent a measured prompt: %s", p)
		}
	}
	if !slices.Contains(warm, "[4 3 2 1]") || !slices.Contains(warm, "gamma beta alpha") {
		t.Errorf("warmup prompts %q", warm)
	}
}
