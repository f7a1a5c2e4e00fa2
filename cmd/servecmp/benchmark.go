package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/present"
)

type benchFlags struct {
	url, model, workload, engine, apiKeyFile string
	concurrency                              int
	rate                                     float64
	arrival                                  string
	burstiness                               float64
	maxConcurrency                           int
	seed                                     int64
	warmup                                   int
	resetPrefixCache                         bool
	duration, drainTimeout, requestTimeout   time.Duration
	drain                                    string
	sweepConcurrency, sweepRate              string
	saturationThreshold                      float64
	metricsURL                               string
	manifest                                 []string
	manifestFile                             string
	out, records                             string
	progress, slo                            string
}

func newBenchmarkCmd(e *env) *cobra.Command {
	f := &benchFlags{}
	cmd := &cobra.Command{
		Use:   "benchmark --url URL --workload FILE (--concurrency C | --rate R | --sweep-concurrency LIST | --sweep-rate LIST)",
		Short: "Replay a workload against an OpenAI-compatible server and measure it",
		Long: `benchmark sends every request of a workload file to an OpenAI-compatible
streaming endpoint (/v1/completions for token-id or text prompts,
/v1/chat/completions for messages) and measures each one: scheduled and actual
send time, TTFT (first chunk with content), every content chunk's arrival and
token count, usage, finish_reason, end-to-end latency and failures by class.

Load: --concurrency C is a closed loop (C requests always in flight);
--rate R is an open loop with --arrival constant|poisson|gamma (--burstiness is
the gamma shape), optionally capped by --max-concurrency. Late sends are never
hidden: send lag and cap-delayed requests are reported. Requests that carry
arrival_offset_s are sent at that offset; a workload where every request
carries one may be replayed with neither --concurrency nor --rate.

Phases: --warmup N sends N requests shaped like the first N (same lengths
and settings, prompts reversed so they are not the measured prompts; ids
suffixed "-warmup") before the measured phase and excludes them. Steady
state is [t=0, when sending stopped: the last measured send, the --duration
deadline or Ctrl-C]; drain follows. --duration stops sending after D;
--drain wait|cancel decides what happens to requests still in flight.
Ctrl-C stops sending, drains (at most 30 s when --drain-timeout is 0) and
writes the result with "incomplete": true.

The API key comes from OPENAI_API_KEY or --api-key-file and is never written
to any output.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runBenchmark(e, c, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.url, "url", "", "server base URL, e.g. http://localhost:8000 (required)")
	fs.StringVar(&f.model, "model", "", "model name sent in requests (default: the first model of GET /v1/models)")
	fs.StringVar(&f.workload, "workload", "", "workload file (JSONL; required)")
	fs.StringVar(&f.engine, "engine", "auto", "engine dialect: auto, vllm, sglang, trtllm, tgi or openai")
	fs.StringVar(&f.apiKeyFile, "api-key-file", "", "file holding the API key (default: $OPENAI_API_KEY)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "closed loop: requests kept in flight")
	fs.Float64Var(&f.rate, "rate", 0, "open loop: requests per second")
	fs.StringVar(&f.arrival, "arrival", "poisson", "open-loop arrivals: constant, poisson or gamma")
	fs.Float64Var(&f.burstiness, "burstiness", 1, "gamma shape for --arrival gamma (1 = Poisson, <1 burstier, >1 smoother)")
	fs.IntVar(&f.maxConcurrency, "max-concurrency", 0, "open loop: cap on requests in flight (0 = none)")
	fs.Int64Var(&f.seed, "seed", 0, "seed of the arrival schedule")
	fs.IntVar(&f.warmup, "warmup", 0, "warmup requests sent before the measured phase (excluded)")
	fs.BoolVar(&f.resetPrefixCache, "reset-prefix-cache", false, "reset the server's prefix cache before each measured phase (vLLM, SGLang)")
	fs.DurationVar(&f.duration, "duration", 0, "stop sending after this long (0 = send the whole workload)")
	fs.StringVar(&f.drain, "drain", "wait", "after the last send: wait for requests in flight, or cancel them")
	fs.DurationVar(&f.drainTimeout, "drain-timeout", 0, "with --drain wait, cancel what is still in flight after this long (0 = no limit)")
	fs.DurationVar(&f.requestTimeout, "request-timeout", 10*time.Minute, "limit on one request, send to end of stream (0 = none)")
	fs.StringVar(&f.sweepConcurrency, "sweep-concurrency", "", "comma-separated concurrencies: one full run each")
	fs.StringVar(&f.sweepRate, "sweep-rate", "", "comma-separated rates (req/s): one full run each")
	fs.Float64Var(&f.saturationThreshold, "saturation-threshold", 0.05, "sweep: relative output-throughput gain below which a step counts as saturated")
	fs.StringVar(&f.metricsURL, "metrics-url", "", `Prometheus endpoint scraped every 500 ms (default URL/metrics; "none" to skip)`)
	fs.StringArrayVar(&f.manifest, "manifest", nil, "manifest field key=value (repeatable; overrides detected values); keys: "+strings.Join(benchmark.ManifestKeys(), ", "))
	fs.StringVar(&f.manifestFile, "manifest-file", "", "manifest fields as a JSON object or key=value lines")
	fs.StringVar(&f.out, "out", "", `result JSON file ("-": stdout, and the text summary goes to stderr)`)
	fs.StringVar(&f.records, "records", "", "per-request records (JSON Lines), streamed as requests end and put in place when the run ends")
	fs.StringVar(&f.slo, "slo", "", "service-level objective, e.g. ttft_ms:p99<=500,tpot_ms:p99<=50,e2e_ms<=2000: adds goodput, attainment and (sweeps) capacity")
	fs.StringVar(&f.progress, "progress", "auto", "progress line on stderr: auto (when stderr is a terminal), on or off")
	return cmd
}

func parseList(flag, s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, usagef("--%s: %q is not a positive number", flag, p)
		}
		if flag == "sweep-concurrency" && v != math.Trunc(v) {
			return nil, usagef("--%s: %q is not an integer", flag, p)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, usagef("--%s: empty list", flag)
	}
	return out, nil
}

// loadPolicy turns the flags into a policy and sweep, checking that exactly
// one load mode is chosen and that no flag is one the load would ignore.
// benchmark.Run validates the values.
func (f *benchFlags) loadPolicy(c *cobra.Command, w *workload.Workload, cfg *benchmark.Config) error {
	l := benchmark.LoadPolicy{
		Arrival: f.arrival, Burstiness: f.burstiness, MaxConcurrency: f.maxConcurrency, Seed: f.seed, Warmup: f.warmup,
		DurationS: f.duration.Seconds(), Drain: f.drain, DrainTimeoutS: f.drainTimeout.Seconds(),
		RequestTimeoutS: f.requestTimeout.Seconds(), ResetPrefixCache: f.resetPrefixCache,
	}
	changed := c.Flags().Changed
	set := 0
	for _, n := range []string{"concurrency", "rate", "sweep-concurrency", "sweep-rate"} {
		if changed(n) {
			set++
		}
	}
	allOffsets := !slices.ContainsFunc(w.Requests, func(r workload.Request) bool { return r.ArrivalOffsetS == nil })
	var err error
	switch {
	case set > 1:
		return usagef("choose one of --concurrency, --rate, --sweep-concurrency and --sweep-rate")
	case changed("concurrency"):
		l.Mode, l.Concurrency = benchmark.ModeConcurrency, f.concurrency
	case changed("rate"):
		l.Mode, l.Rate = benchmark.ModeRate, f.rate
	case changed("sweep-concurrency"):
		if cfg.SweepValues, err = parseList("sweep-concurrency", f.sweepConcurrency); err != nil {
			return err
		}
		l.Mode, l.Concurrency, cfg.SweepKind = benchmark.ModeConcurrency, int(cfg.SweepValues[0]), benchmark.ModeConcurrency
	case changed("sweep-rate"):
		if allOffsets {
			return usagef("--sweep-rate: every request carries arrival_offset_s, so the rate cannot change")
		}
		if cfg.SweepValues, err = parseList("sweep-rate", f.sweepRate); err != nil {
			return err
		}
		l.Mode, l.Rate, cfg.SweepKind = benchmark.ModeRate, cfg.SweepValues[0], benchmark.ModeRate
	case allOffsets:
		l.Mode = benchmark.ModeTrace
	default:
		return usagef("choose a load: --concurrency, --rate, --sweep-concurrency or --sweep-rate")
	}
	// A flag that the chosen load would ignore is a usage error: the
	// result must describe the load that was actually offered.
	switch {
	case l.Mode == benchmark.ModeConcurrency && changed("max-concurrency"):
		return usagef("--max-concurrency caps an open loop (--rate, --sweep-rate or a trace replay); a closed loop keeps exactly --concurrency in flight")
	case l.Mode != benchmark.ModeRate && (changed("arrival") || changed("burstiness")):
		return usagef("--arrival and --burstiness shape the arrivals of --rate or --sweep-rate only")
	case l.Mode == benchmark.ModeRate && l.Arrival != benchmark.ArrivalGamma && changed("burstiness"):
		return usagef("--burstiness is the gamma shape: it needs --arrival gamma")
	case l.Drain == benchmark.DrainCancel && changed("drain-timeout"):
		return usagef("--drain-timeout bounds --drain wait; --drain cancel stops requests in flight at once")
	}
	if l.Mode != benchmark.ModeRate {
		l.Arrival, l.Burstiness = "", 0
	} else if l.Arrival != benchmark.ArrivalGamma {
		l.Burstiness = 0
	}
	cfg.Load = l
	return nil
}

func readAPIKey(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv("OPENAI_API_KEY")), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--api-key-file: %v", err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" {
		return "", fmt.Errorf("--api-key-file %s is empty", file)
	}
	return k, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// checkArgs checks every flag and output path before anything is read or
// sent.
func (f *benchFlags) checkArgs() error {
	switch {
	case f.url == "":
		return usagef("--url is required")
	case f.workload == "":
		return usagef("--workload is required")
	case !engine.Valid(f.engine):
		return usagef("--engine %q: want auto, %s", f.engine, strings.Join(engine.Names, ", "))
	case f.progress != "auto" && f.progress != "on" && f.progress != "off":
		return usagef("--progress %q: want auto, on or off", f.progress)
	}
	if f.out != "-" {
		if err := atomicfile.Check("--out", f.out, f.workload, f.manifestFile); err != nil {
			return usagef("%v", err)
		}
	}
	if err := atomicfile.Check("--records", f.records, f.workload, f.manifestFile); err != nil {
		return usagef("%v", err)
	}
	if err := atomicfile.CheckDistinct([]string{"--out", "--records"}, []string{f.out, f.records}); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// config turns the flags into a run configuration.
func (f *benchFlags) config(c *cobra.Command) (benchmark.Config, error) {
	cfg := benchmark.Config{URL: f.url, Engine: f.engine, Model: f.model, SaturationThreshold: f.saturationThreshold}
	if f.slo != "" {
		var err error
		if cfg.SLO, err = benchmark.ParseSLO(f.slo); err != nil {
			return cfg, usagef("--slo: %v", err)
		}
	}
	if f.manifestFile != "" {
		kv, err := benchmark.ReadManifestFile(f.manifestFile)
		if err != nil {
			return cfg, err
		}
		cfg.Manifest.Fields = kv
	}
	for _, a := range f.manifest {
		k, v, err := benchmark.ParseManifestArg(a)
		if err != nil {
			return cfg, usagef("%v", err)
		}
		cfg.Manifest.Fields = append(cfg.Manifest.Fields, benchmark.KV{Key: k, Value: v})
	}
	cfg.Manifest.ServecmpVersion, cfg.Manifest.ServecmpCommit = version, commit
	cfg.Manifest.ClientHost, _ = os.Hostname()
	if f.metricsURL != "none" {
		cfg.Metrics.URL = cmp.Or(f.metricsURL, strings.TrimRight(f.url, "/")+"/metrics")
	}
	w, err := workload.Load(f.workload)
	if err != nil {
		return cfg, err
	}
	cfg.Workload = w
	if err := f.loadPolicy(c, w, &cfg); err != nil {
		return cfg, err
	}
	cfg.APIKey, err = readAPIKey(f.apiKeyFile)
	return cfg, err
}

func runBenchmark(e *env, c *cobra.Command, f *benchFlags) error {
	if err := f.checkArgs(); err != nil {
		return err
	}
	cfg, err := f.config(c)
	if err != nil {
		return err
	}
	cfg.Progress = &benchmark.Progress{}
	stopProgress := func() {}
	if f.progress == "on" || (f.progress == "auto" && isTerminal(e.stderr)) {
		stopProgress = startProgress(e.stderr, cfg.Progress)
	}
	var res *benchmark.Result
	var runErr, recErr error
	if f.records == "" {
		res, runErr = benchmark.Run(c.Context(), cfg)
	} else {
		// Records stream into the file as requests end; it is renamed
		// into place when the run is over.
		recErr = atomicfile.WriteFunc(f.records, func(w io.Writer) error {
			cfg.OnRecord = benchmark.NewRecordWriter(w).Write
			res, runErr = benchmark.Run(c.Context(), cfg)
			return runErr
		})
	}
	stopProgress()
	if ce := (*benchmark.ConfigError)(nil); errors.As(runErr, &ce) {
		return usagef("%v", runErr)
	}
	if runErr != nil {
		return runErr
	}
	// The result is written even when the records could not be; the
	// records' failure is then the error reported.
	werr := writeBenchmark(e, f.out, res)
	if recErr != nil {
		return fmt.Errorf("writing %v", recErr) // the error names the file
	}
	return werr
}

// writeBenchmark writes the result file, the text summary and the
// warnings, and turns the outcome into the exit status.
func writeBenchmark(e *env, out string, res *benchmark.Result) error {
	var outErr error
	text := e.stdout
	if out != "" {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // SLO thresholds keep their "<="
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
		b := buf.Bytes()
		if out == "-" {
			_, outErr = e.stdout.Write(b)
			text = e.stderr
		} else {
			outErr = atomicfile.Write(out, b)
		}
	}
	if err := present.WriteBenchmarkText(text, res); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "servecmp: warning: %s\n", w)
	}
	switch {
	case outErr != nil:
		return fmt.Errorf("writing %v", outErr) // the error names the file
	case res.Incomplete:
		return errors.New("interrupted: the result is marked incomplete")
	case res.Summary.RequestsOK == 0:
		return fmt.Errorf("no request succeeded (%d failed: %s)", res.Summary.RequestsFailed, present.FailureClasses(res.Summary.FailedByClass))
	}
	return nil
}

// startProgress redraws one status line on w until the returned stop is
// called.
func startProgress(w io.Writer, p *benchmark.Progress) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); progressLoop(w, p, done) }()
	return func() { close(done); wg.Wait() }
}

// progressLoop redraws one status line on w until stop is closed.
func progressLoop(w io.Writer, p *benchmark.Progress, stop <-chan struct{}) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	draw := func() {
		el := time.Since(time.Unix(0, p.Started.Load())).Seconds()
		tps := 0.0
		if el > 0 && p.Started.Load() != 0 {
			tps = float64(p.OutputTokens.Load()) / el
		}
		fmt.Fprintf(w, "\rstep %d  %d/%d done  %d ok  %d failed  %.0f tok/s   ", p.Step.Load(), p.Done.Load(), p.Total.Load(), p.OK.Load(), p.Failed.Load(), tps)
	}
	for {
		select {
		case <-stop:
			draw()
			fmt.Fprintln(w)
			return
		case <-t.C:
			draw()
		}
	}
}
