package profile_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/interrupt"
	"github.com/servecmp/servecmp/profile"
	"github.com/servecmp/servecmp/servesim"
)

// faultServer is serve-sim (vLLM, no profiler of its own) with the
// profiler endpoints answered by start and stop. They are routed for
// every method and refuse all but POST with 405, as FastAPI routes them
// (a method-bound pattern would lose other methods to the catch-all).
func faultServer(t *testing.T, start, stop http.HandlerFunc) string {
	t.Helper()
	cfg := servesim.Config{DecodeBase: time.Millisecond, EngineName: "vllm"}
	sim := servesim.New(cfg)
	m := http.NewServeMux()
	m.Handle("/", sim)
	postOnly := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				return
			}
			h(w, r)
		}
	}
	m.HandleFunc("/start_profile", postOnly(start))
	m.HandleFunc("/stop_profile", postOnly(stop))
	srv := httptest.NewServer(m)
	t.Cleanup(func() { sim.Close(); srv.Close() })
	return srv.URL
}

func ok(w http.ResponseWriter, _ *http.Request) {}

// TestFaults: a failed start, a stop that times out and a trace
// directory that is missing or empty each give a clear error or warning,
// and the measured records are kept.
func TestFaults(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	tests := []struct {
		name        string
		start, stop http.HandlerFunc
		traceDir    func(dir string) string
		wantErr     string // "" = none
		wantWarn    string
	}{
		{name: "start fails", start: func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "profiler crashed", 500) }, stop: ok,
			wantErr: "the profiler did not start: POST /start_profile: HTTP 500 profiler crashed"},
		{name: "stop times out", start: ok, stop: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		}, wantWarn: "profiler stop: POST /stop_profile: no answer within 200ms"},
		{name: "trace dir missing", start: ok, stop: ok, traceDir: func(d string) string { return filepath.Join(d, "missing") },
			wantWarn: "missing: stat"},
		{name: "trace dir empty", start: ok, stop: ok, traceDir: func(d string) string { return d },
			wantWarn: "no new trace file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := faultServer(t, tt.start, tt.stop)
			var n atomic.Int64
			cfg := benchmark.Config{URL: url, Workload: simWorkload(400, 8, 16),
				Load:     result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 4},
				OnRecord: func(*result.Record) error { n.Add(1); return nil }}
			o := profile.Options{After: 50 * time.Millisecond, For: 100 * time.Millisecond, StopTimeout: 200 * time.Millisecond}
			if tt.traceDir != nil {
				o.TraceDir = tt.traceDir(t.TempDir())
			}
			res, err := profile.Run(context.Background(), cfg, o)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if tt.wantErr != "" && !errors.Is(err, profile.ErrNoWindow) {
				t.Errorf("error %v does not wrap ErrNoWindow", err)
			}
			if res == nil || res.Result == nil || res.Profile == nil {
				t.Fatal("no result: the measured records must be kept")
			}
			if got := int64(res.Summary.RequestsOK + res.Summary.RequestsFailed); got == 0 || got != n.Load() {
				t.Errorf("summary counts %d requests, the records writer got %d", got, n.Load())
			}
			if tt.wantWarn != "" && !strings.Contains(strings.Join(res.Warnings, "\n"), tt.wantWarn) {
				t.Errorf("warnings %q, want one with %q", res.Warnings, tt.wantWarn)
			}
		})
	}
}

// TestRefusesEngineWithoutProfiler: an engine with no profiler API is
// refused before any request is sent.
func TestRefusesEngineWithoutProfiler(t *testing.T) {
	var sent atomic.Int64
	sim := servesim.New(servesim.Config{EngineName: "tgi"})
	defer sim.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "completions") {
			sent.Add(1)
		}
		sim.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg := benchmark.Config{URL: srv.URL, Engine: "tgi", Workload: simWorkload(4, 8, 4), Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1}}
	res, err := profile.Run(context.Background(), cfg, profile.Options{})
	if err == nil || res != nil || !strings.Contains(err.Error(), "no profiler API") {
		t.Fatalf("result %v, error %v: want a refusal", res, err)
	}
	if sent.Load() != 0 {
		t.Errorf("%d requests sent before the refusal", sent.Load())
	}
}

// TestProfileSteps: SGLang's num_steps is sent, the engine stops by
// itself, and the result says that window_work counts to the stop call.
func TestProfileSteps(t *testing.T) {
	traces := filepath.Join(t.TempDir(), "traces")
	srv := simServer(t, "sglang", t.TempDir())
	cfg := benchmark.Config{URL: srv.URL, Workload: simWorkload(400, 8, 16),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 4}}
	res, err := profile.Run(context.Background(), cfg, profile.Options{After: 50 * time.Millisecond, For: 300 * time.Millisecond, Steps: 5, TraceDir: traces})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Profile
	if !strings.Contains(string(b.Start.Body), `"num_steps":5`) || b.Start.Answer != "Start profiling." || b.Steps != 5 {
		t.Errorf("start %+v", b.Start)
	}
	if b.Stop == nil || b.Stop.Status != 400 || len(b.Files) != 1 {
		t.Errorf("stop %+v, files %v: want the engine's refusal (it stopped itself) and one trace", b.Stop, b.Files)
	}
	all := strings.Join(res.Warnings, "\n")
	if !strings.Contains(all, "--profile-steps 5") || strings.Contains(all, "profiler stop:") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestStopHangsSecondInterrupt is the case: a /stop_profile that
// never answers holds the run through the first interrupt (the stop must
// be tried) but not past the second: the run then returns its result,
// incomplete, with a warning that the stop was abandoned.
func TestStopHangsSecondInterrupt(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	stopAsked := make(chan struct{}, 1)
	url := faultServer(t, ok, func(w http.ResponseWriter, r *http.Request) {
		stopAsked <- struct{}{}
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	})
	cfg := benchmark.Config{URL: url, Workload: simWorkload(4000, 8, 16),
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 4}}
	o := profile.Options{After: 50 * time.Millisecond, For: 100 * time.Millisecond, StopTimeout: time.Hour}
	sigs := make(chan os.Signal, 2)
	ctx, stop := interrupt.Watch(context.Background(), sigs, nil)
	defer stop()
	type out struct {
		res *profile.Result
		err error
	}
	done := make(chan out, 1)
	go func() { r, err := profile.Run(ctx, cfg, o); done <- out{r, err} }()
	select {
	case <-stopAsked:
	case <-time.After(20 * time.Second):
		t.Fatal("the stop was never sent")
	}
	sigs <- os.Interrupt
	select {
	case <-done:
		t.Fatal("returned at the first interrupt, without waiting for the stop")
	case <-time.After(300 * time.Millisecond):
	}
	sigs <- os.Interrupt
	var got out
	select {
	case got = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting on the stop 10 s after the second interrupt")
	}
	if got.res == nil || !got.res.Incomplete {
		t.Fatalf("no incomplete result: %v", got.err)
	}
	if !slices.ContainsFunc(got.res.Warnings, func(w string) bool { return strings.Contains(w, "abandoned at the second interrupt") }) {
		t.Errorf("warnings %q", got.res.Warnings)
	}
}
