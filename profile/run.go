package profile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/httppolicy"
	"github.com/servecmp/servecmp/internal/interrupt"
)

// Defaults of Options.
const (
	// DefaultSettle is --profile-after's default: the time from the
	// measured phase's start (after the warmup) for the load to settle.
	DefaultSettle = 5 * time.Second
	// DefaultFor is --profile-for's default window length.
	DefaultFor = 5 * time.Second
	// DefaultStopTimeout bounds the stop call: vLLM answers it only once
	// its traces are flushed, which takes minutes for a large model.
	DefaultStopTimeout = 10 * time.Minute
	// startTimeout bounds the start call.
	startTimeout = time.Minute
)

// Options bound the profile window.
type Options struct {
	After       time.Duration // window start after the measured phase's t=0; 0 = DefaultSettle
	For         time.Duration // window length from the start's answer; 0 = DefaultFor
	Steps       int           // SGLang num_steps (the engine stops itself after them); 0 = none
	StopTimeout time.Duration // 0 = DefaultStopTimeout
	TraceDir    string        // where the traces appear; sent as SGLang's output_dir
	Activities  []string      // SGLang activities; nil = DefaultActivities
	HTTP        *http.Client  // profiler calls; nil = the one client policy (internal/httppolicy)
}

func (o *Options) defaults() error {
	if o.After < 0 || o.For < 0 || o.Steps < 0 || o.StopTimeout < 0 {
		return errors.New("the profile window's start, length, steps and stop timeout must not be negative")
	}
	o.After = cmp.Or(o.After, DefaultSettle)
	o.For = cmp.Or(o.For, DefaultFor)
	o.StopTimeout = cmp.Or(o.StopTimeout, DefaultStopTimeout)
	if o.HTTP == nil {
		o.HTTP = httppolicy.Client(httppolicy.Options{})
	}
	return nil
}

// Validate checks a profile run before any request, filling defaults:
// the window's settings, one load (a sweep does not apply), the server
// URL its profiler calls need, then the benchmark configuration
// (benchmark.Config.Validate). Run calls it first.
func Validate(cfg *benchmark.Config, o *Options) error {
	if err := o.defaults(); err != nil {
		return err
	}
	if cfg.SweepKind != "" {
		return errors.New("profile captures one load: a sweep does not apply")
	}
	if cfg.URL == "" {
		return errors.New("profile needs the server URL for its profiler calls")
	}
	return cfg.Validate()
}

// Run checks that the engine has a profiler API and that its endpoint
// exists (probe; both before any request),
// then runs the benchmark with the profiler started --profile-after the
// measured phase's start and stopped --profile-for after the start's
// answer, the load held until the stop call returned. It returns the
// result with the profile block; when the profiler never ran (start
// failed, or the run ended first) the result comes back with an error
// wrapping ErrNoWindow. Other errors are benchmark.Run's (no result) or
// an engine without a profiler API.
func Run(ctx context.Context, cfg benchmark.Config, o Options) (*Result, error) {
	if err := Validate(&cfg, &o); err != nil {
		return nil, err
	}
	api, err := detect(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	if err := probe(ctx, o.HTTP, cfg.URL, cfg.APIKey); err != nil {
		return nil, err
	}
	w := &window{o: o, api: api, base: cfg.URL, key: cfg.APIKey, release: make(chan struct{}), runDone: make(chan struct{})}
	before := listDir(o.TraceDir)
	var recs []result.Record
	var mu sync.Mutex
	user := cfg.OnRecord
	cfg.OnRecord = func(r *result.Record) error {
		mu.Lock()
		recs = append(recs, *r)
		mu.Unlock()
		if user != nil {
			return user(r)
		}
		return nil
	}
	var wg sync.WaitGroup
	cfg.SendUntil = w.release
	cfg.OnStart = func(step int, t0 time.Time) {
		if step == 0 {
			wg.Go(func() { w.run(ctx, t0) })
		}
	}
	res, err := benchmark.Run(ctx, cfg)
	close(w.runDone)
	wg.Wait()
	// A run whose records could not be written is still a run: its result
	// says so in a warning, and RunStream reports the records' error.
	if lost := (*benchmark.RecordsError)(nil); err != nil && !(res != nil && errors.As(err, &lost)) {
		return nil, err
	}
	out := &Result{Result: res, Profile: &w.blk}
	w.finish(out, recs, before)
	return out, w.err
}

// detect resolves the engine (as benchmark.Run will) and its profiler API.
func detect(ctx context.Context, cfg *benchmark.Config) (string, error) {
	c := cfg.Client
	if c == nil {
		c = client.New(client.Options{BaseURL: cfg.URL, APIKey: cfg.APIKey})
		defer c.Close()
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	info, err := c.Detect(dctx, cmp.Or(cfg.Engine, "auto"))
	if err != nil {
		return "", err
	}
	return APIFor(info.Engine)
}

// window drives the profiler on the run's clock.
type window struct {
	o                Options
	api, base, key   string
	release, runDone chan struct{}
	blk              Block
	warn             []string
	err              error
}

// run waits for the window's start, starts the profiler, waits for its
// end (or the run's end) and stops it; then it releases the load.
func (w *window) run(ctx context.Context, t0 time.Time) {
	defer close(w.release)
	since := func() float64 { return time.Since(t0).Seconds() }
	w.blk.API, w.blk.Steps, w.blk.TraceDir = w.api, w.o.Steps, w.o.TraceDir
	if !w.wait(ctx, t0.Add(w.o.After)) {
		w.err = fmt.Errorf("%w: the run ended before --profile-after %s", ErrNoWindow, w.o.After)
		return
	}
	body := StartBody(w.api, StartRequest{OutputDir: w.o.TraceDir, NumSteps: w.o.Steps, Activities: w.o.Activities})
	c, err := post(ctx, w.o.HTTP, w.base, w.key, "/start_profile", body, startTimeout, since)
	w.blk.Start = c
	if err != nil {
		w.err = fmt.Errorf("%w: the profiler did not start: %v", ErrNoWindow, err)
		return
	}
	w.blk.StartS = *c.AcknowledgedS
	w.wait(ctx, t0.Add(time.Duration(w.blk.StartS*1e9)+w.o.For))
	// The stop is sent even after an interrupt (the engine must not be
	// left profiling), and waited for until the second one: a stop that
	// hangs cannot hold the result back past it.
	sctx, abandon := stopContext(ctx)
	defer abandon()
	c, err = post(sctx, w.o.HTTP, w.base, w.key, "/stop_profile", nil, w.o.StopTimeout, since)
	w.blk.Stop, w.blk.StopS = &c, c.RequestedS
	switch {
	case err != nil && sctx.Err() != nil:
		w.warn = append(w.warn, "profiler stop: abandoned at the second interrupt before the engine answered: the engine may still be profiling, and the trace may be incomplete")
	case err != nil && (w.o.Steps == 0 || c.AcknowledgedS == nil):
		// With --profile-steps the engine may have stopped by itself: its
		// answer to the stop is then an error that needs no warning.
		w.warn = append(w.warn, fmt.Sprintf("profiler stop: %v: the trace may be incomplete or still being written (--profile-stop-timeout); window_work counts to the stop request", err))
	}
}

// stopContext is the context of the stop call: it outlives ctx's
// cancellation (the first interrupt) and ends at the second one
// (interrupt.Hard).
func stopContext(ctx context.Context) (context.Context, context.CancelFunc) {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if hard := interrupt.Hard(ctx); hard != nil {
		go func() {
			select {
			case <-hard:
				cancel()
			case <-sctx.Done():
			}
		}()
	}
	return sctx, cancel
}

// wait sleeps until t and reports whether t came before the run ended
// or was interrupted.
func (w *window) wait(ctx context.Context, t time.Time) bool {
	tm := time.NewTimer(time.Until(t))
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-w.runDone:
	case <-ctx.Done():
	}
	return false
}

// finish fills the window's work and the trace files, and adds the
// warnings to the result.
func (w *window) finish(out *Result, recs []result.Record, before map[string]time.Time) {
	b := out.Profile
	if b.API == "" { // the measured phase never started
		b.API = w.api
		w.err = fmt.Errorf("%w: the run ended before its measured phase", ErrNoWindow)
	}
	if b.StopS > b.StartS {
		b.WindowWork = WindowWork(recs, b.StartS, b.StopS)
		if end := out.Phases.Steady.EndS; end < b.StopS {
			w.warn = append(w.warn, fmt.Sprintf("the workload ran out at %.2f s, before the profile window closed at %.2f s: the window's end saw the load drain (use a longer workload or a shorter --profile-for)", end, b.StopS))
		}
		if b.Steps > 0 {
			w.warn = append(w.warn, fmt.Sprintf("--profile-steps %d: the engine stops by itself after those steps; window_work counts to the stop request (analyze --work-from warns when the trace's span is shorter)", b.Steps))
		}
	}
	b.Files = []string{}
	if b.TraceDir != "" && b.Start.AcknowledgedS != nil {
		b.Files = newFiles(b.TraceDir, before)
		if _, err := os.Stat(b.TraceDir); err != nil {
			w.warn = append(w.warn, fmt.Sprintf("trace directory %s: %v: the engine wrote its traces elsewhere (check the server's profiler directory)", b.TraceDir, err))
		} else if len(b.Files) == 0 {
			w.warn = append(w.warn, fmt.Sprintf("trace directory %s: no new trace file: the engine may still be writing it, or writes elsewhere", b.TraceDir))
		}
	}
	out.Warnings = append(out.Warnings, w.warn...)
}

// listDir returns the files under dir with their modification times; nil
// when dir is "" or unreadable.
func listDir(dir string) map[string]time.Time {
	if dir == "" {
		return nil
	}
	m := map[string]time.Time{}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			m[p] = fi.ModTime()
		}
		return nil
	})
	return m
}

// newFiles lists the files of dir that are new or changed since before.
func newFiles(dir string, before map[string]time.Time) []string {
	out := []string{}
	for p, t := range listDir(dir) {
		if bt, ok := before[p]; !ok || !bt.Equal(t) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
