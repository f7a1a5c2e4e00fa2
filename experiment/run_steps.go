//go:build unix

package experiment

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/gputelemetry"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/check"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/internal/atomicfile"
)

// textWorkloadHow is how an experiment makes a text workload, named when
// an engine takes no token-id prompts.
const textWorkloadHow = "give the experiment's workload a tokenizer: workload: {random: {..., tokenizer: FILE, prompt: text}} or {trace: {..., tokenizer: FILE}}"

// Settings of the measuring steps that the experiment file leaves to
// servecmp's defaults (those of benchmark and check).
const (
	checkSeed           = 1234
	requestTimeoutS     = 600
	saturationThreshold = 0.05
)

// step runs one step between the store's Begin and Finish.
func (r *runner) step(ctx context.Context, s Step) error {
	dir, err := r.st.Begin(s)
	if err != nil {
		return fmt.Errorf("step %s: %v", s.Name, err)
	}
	var runErr error
	switch s.Kind {
	case KindCheck:
		runErr = r.check(ctx, s)
	case KindSweep, KindRun:
		runErr = r.bench(ctx, s)
	case KindProfile:
		runErr = r.profile(ctx, s, dir)
	case KindAnalyze:
		runErr = r.analyze(ctx, s)
	case KindReport:
		runErr = r.report(s)
	default:
		runErr = fmt.Errorf("step kind %q is not run by servecmp run", s.Kind)
	}
	status := StatusComplete
	switch {
	case errors.Is(runErr, ErrInterrupted) || (runErr != nil && ctx.Err() != nil):
		status, runErr = StatusIncomplete, fmt.Errorf("step %s: %w (the step is marked incomplete; rerun the same command to resume)", s.Name, ErrInterrupted)
	case errors.Is(runErr, ErrCheckFailed):
		// The check ran: its step is complete, and its result stops the run.
	case runErr != nil:
		status, runErr = StatusFailed, fmt.Errorf("step %s: %w", s.Name, runErr)
	}
	if err := r.st.Finish(s, status, runErr); err != nil {
		return errors.Join(runErr, err)
	}
	if status == StatusFailed && layer2(s) {
		fmt.Fprintf(r.o.Stderr, "servecmp run: warning: %v: layer 2 goes without this engine's profile; the report still comes out with layer 1\n", runErr)
		return nil
	}
	return runErr
}

// check runs the pre-flight check on the first check.requests requests
// and writes check.json; a failing check wraps ErrCheckFailed unless
// on_mismatch is continue.
func (r *runner) check(ctx context.Context, s Step) error {
	wl := *r.wl
	wl.Requests = wl.Requests[:min(r.e.Check.Requests, len(wl.Requests))]
	target := func(e Engine) check.Target { return check.Target{URL: e.URL, Model: e.Model, Engine: e.Engine} }
	rep, err := check.Run(ctx, target(r.e.A), target(r.e.B), &wl, check.Options{Seed: checkSeed, APIKey: r.o.APIKey, TextWorkloadHow: textWorkloadHow})
	if rep == nil || ctx.Err() != nil {
		return cmp.Or(err, ctx.Err(), errors.New("check: no report"))
	}
	rep.Quality = checkreport.Quality{Status: "not-run"}
	if werr := r.writeJSON(s, CheckFile, rep); werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("check: %v", err)
	}
	r.out.Check = rep
	return r.checkVerdict(rep)
}

// checkVerdict turns a check report into the run's decision.
func (r *runner) checkVerdict(rep *checkreport.Report) error {
	if rep.Summary.Passed {
		fmt.Fprintf(r.o.Stderr, "servecmp run: check passed: %d of %d requests match (%s)\n", rep.Summary.ExactMatch, rep.Summary.Requests, rep.Summary.Evidence)
		return nil
	}
	msg := fmt.Sprintf("%d of %d requests matched, %d mismatched, %d failed", rep.Summary.ExactMatch, rep.Summary.Requests, rep.Summary.Mismatched, rep.Summary.Failed)
	if r.e.Check.OnMismatch == OnMismatchContinue {
		fmt.Fprintf(r.o.Stderr, "servecmp run: warning: check failed (%s); continuing as check.on_mismatch says, the report carries it\n", msg)
		return nil
	}
	return fmt.Errorf("%s: %w (%s; see %s): stopping before the long runs (check: {on_mismatch: continue} goes on)",
		r.e.File, ErrCheckFailed, msg, filepath.Join(r.dir, KindCheck, CheckFile))
}

// bench runs a sweep or a measured run against one engine and writes its
// result and records (appended as each request ends: a killed run keeps
// them).
func (r *runner) bench(ctx context.Context, s Step) error {
	if s.Kind == KindRun && r.e.Runs.Shards > 1 {
		return r.benchShards(ctx, s) // run_shards.go
	}
	cfg, err := r.benchConfig(s)
	if err != nil {
		return err
	}
	recs := r.st.Stream(s, RecordsFile)
	cfg.OnRecord = result.NewRecordWriter(recs).Write
	res, runErr := benchmark.Run(ctx, cfg)
	var lost *benchmark.RecordsError
	if res == nil || (runErr != nil && !errors.As(runErr, &lost)) {
		recs.Abort()
		return fmt.Errorf("engine %s: %w", s.Side, runErr)
	}
	recErr := recs.Close()
	if lost != nil {
		recErr = lost
	}
	if err := r.writeJSON(s, ResultFile, res); err != nil {
		return err
	}
	if recErr != nil {
		return fmt.Errorf("writing %v", recErr)
	}
	return r.benchOutcome(s, res)
}

// benchOutcome is what a measured step's result means for the run: an
// interrupted one is incomplete, one without a success failed; the
// warnings go to stderr.
func (r *runner) benchOutcome(s Step, res *result.Result) error {
	switch {
	case res.Incomplete:
		return ErrInterrupted
	case res.Summary.RequestsOK == 0:
		msg := fmt.Sprintf("engine %s: no request succeeded (%d failed: %s)", s.Side, res.Summary.RequestsFailed, failureClasses(res.Summary.FailedByClass))
		if res.FailureCause != "" {
			msg += ": " + res.FailureCause
		}
		return errors.New(msg)
	}
	for _, w := range res.Warnings {
		r.warnOnce(s.Name, w)
	}
	return nil
}

// benchConfig is the benchmark configuration of a sweep or run step.
func (r *runner) benchConfig(s Step) (benchmark.Config, error) {
	eng := r.e.Side(s.Side)
	cfg := benchmark.Config{
		URL: eng.URL, Engine: cmp.Or(eng.Engine, "auto"), Model: eng.Model, Workload: r.wl, APIKey: r.o.APIKey,
		SaturationThreshold: saturationThreshold, SLO: r.e.SLO, TextWorkloadHow: textWorkloadHow,
		Metrics:  benchmark.MetricsConfig{URL: strings.TrimRight(eng.URL, "/") + "/metrics", Default: true},
		Manifest: benchmark.ManifestConfig{ServecmpVersion: r.o.Version, ServecmpCommit: r.o.Commit},
	}
	switch eng.MetricsURL {
	case MetricsNone:
		cfg.Metrics = benchmark.MetricsConfig{}
	case "":
	default:
		cfg.Metrics = benchmark.MetricsConfig{URL: eng.MetricsURL}
	}
	cfg.Manifest.ClientHost, _ = os.Hostname()
	eps, err := gputelemetry.Endpoints(eng.GPUMetricsURLs, eng.GPUs)
	if err != nil {
		return cfg, fmt.Errorf("engine %s: %v", s.Side, err)
	}
	cfg.GPU.Endpoints = eps
	for _, a := range eng.ManifestArgs() {
		k, v, err := result.ParseManifestArg(a)
		if err != nil {
			return cfg, fmt.Errorf("engine %s: %v", s.Side, err)
		}
		cfg.Manifest.Fields = append(cfg.Manifest.Fields, result.KV{Key: k, Value: v})
	}
	kind, value, warmup, reset := r.e.Runs.Kind, r.e.Runs.Value, r.e.Runs.Warmup, r.e.Runs.ResetPrefixCache
	if s.Kind == KindSweep {
		sw := r.e.Sweep
		kind, value, warmup, reset = sw.Kind, sw.Values[0], sw.Warmup, sw.ResetPrefixCache
		cfg.SweepKind, cfg.SweepValues = result.Mode(sw.Kind), sw.Values
	}
	cfg.Load = result.LoadPolicy{Mode: result.Mode(kind), Warmup: warmup, ResetPrefixCache: reset, RequestTimeoutS: requestTimeoutS}
	switch kind {
	case LoadConcurrency:
		cfg.Load.Concurrency = int(value)
	case LoadRate:
		cfg.Load.Rate = value
	} // LoadTrace: the workload's own arrival offsets
	return cfg, nil
}

// materialise writes the random workload to WorkloadFile in the output
// directory d unless the file there already holds exactly it.
func materialise(ctx context.Context, rnd Random, d *atomicfile.Dir) error {
	spec, err := rnd.Spec()
	if err != nil {
		return err
	}
	reqs, err := workload.RandomContext(ctx, spec)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := workload.WriteWithHeader(&buf, spec.Header(), reqs); err != nil {
		return err
	}
	sum := sha256.Sum256(buf.Bytes())
	if old, err := HashFile(d.Join(WorkloadFile)); err == nil && old == hex.EncodeToString(sum[:]) {
		return nil
	}
	return d.Write(WorkloadFile, buf.Bytes())
}

// jsonBytes is v as indented JSON without HTML escaping (SLO thresholds
// keep their "<=").
func jsonBytes(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeJSON writes v (jsonBytes) as name in step s's folder, atomically.
func (r *runner) writeJSON(s Step, name string, v any) error {
	b, err := jsonBytes(v)
	if err != nil {
		return err
	}
	if err := r.st.Write(s, name, b); err != nil {
		return fmt.Errorf("writing %v", err)
	}
	return nil
}

// failureClasses is "N class, M class" for the failures of a run, the
// most frequent first.
func failureClasses(by map[string]int) string {
	classes := make([]string, 0, len(by))
	for c := range by {
		classes = append(classes, c)
	}
	slices.SortFunc(classes, func(a, b string) int { return cmp.Or(by[b]-by[a], strings.Compare(a, b)) })
	parts := make([]string, len(classes))
	for i, c := range classes {
		parts[i] = fmt.Sprintf("%d %s", by[c], c)
	}
	if len(parts) == 0 {
		return "no failure recorded"
	}
	return strings.Join(parts, ", ")
}
