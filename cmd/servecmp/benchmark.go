package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/servermetrics"
	"github.com/servecmp/servecmp/benchmark/workload"
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
	progress                                 string
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
	fs.StringVar(&f.records, "records", "", "per-request records (JSON Lines), written as requests end")
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
// one load mode is chosen.
func (f *benchFlags) loadPolicy(c *cobra.Command, w *workload.Workload) (benchmark.LoadPolicy, string, []float64, error) {
	l := benchmark.LoadPolicy{
		Arrival: f.arrival, Burstiness: f.burstiness, MaxConcurrency: f.maxConcurrency, Seed: f.seed, Warmup: f.warmup,
		DurationS: f.duration.Seconds(), Drain: f.drain, DrainTimeoutS: f.drainTimeout.Seconds(),
		RequestTimeoutS: f.requestTimeout.Seconds(), ResetPrefixCache: f.resetPrefixCache,
	}
	set := 0
	for _, n := range []string{"concurrency", "rate", "sweep-concurrency", "sweep-rate"} {
		if c.Flags().Changed(n) {
			set++
		}
	}
	allOffsets := true
	for i := range w.Requests {
		if w.Requests[i].ArrivalOffsetS == nil {
			allOffsets = false
			break
		}
	}
	var kind string
	var values []float64
	var err error
	switch {
	case set > 1:
		return l, "", nil, usagef("choose one of --concurrency, --rate, --sweep-concurrency and --sweep-rate")
	case c.Flags().Changed("concurrency"):
		l.Mode, l.Concurrency = benchmark.ModeConcurrency, f.concurrency
	case c.Flags().Changed("rate"):
		l.Mode, l.Rate = benchmark.ModeRate, f.rate
	case c.Flags().Changed("sweep-concurrency"):
		kind = benchmark.ModeConcurrency
		if values, err = parseList("sweep-concurrency", f.sweepConcurrency); err != nil {
			return l, "", nil, err
		}
		l.Mode, l.Concurrency = benchmark.ModeConcurrency, int(values[0])
	case c.Flags().Changed("sweep-rate"):
		kind = benchmark.ModeRate
		if allOffsets {
			return l, "", nil, usagef("--sweep-rate: every request carries arrival_offset_s, so the rate cannot change")
		}
		if values, err = parseList("sweep-rate", f.sweepRate); err != nil {
			return l, "", nil, err
		}
		l.Mode, l.Rate = benchmark.ModeRate, values[0]
	case allOffsets:
		l.Mode = benchmark.ModeTrace
	default:
		return l, "", nil, usagef("choose a load: --concurrency, --rate, --sweep-concurrency or --sweep-rate")
	}
	// A flag that the chosen load would ignore is a usage error: the
	// result must describe the load that was actually offered.
	changed := c.Flags().Changed
	switch {
	case l.Mode == benchmark.ModeConcurrency && changed("max-concurrency"):
		return l, "", nil, usagef("--max-concurrency caps an open loop (--rate, --sweep-rate or a trace replay); a closed loop keeps exactly --concurrency in flight")
	case l.Mode != benchmark.ModeRate && (changed("arrival") || changed("burstiness")):
		return l, "", nil, usagef("--arrival and --burstiness shape the arrivals of --rate or --sweep-rate only")
	case l.Mode == benchmark.ModeRate && l.Arrival != benchmark.ArrivalGamma && changed("burstiness"):
		return l, "", nil, usagef("--burstiness is the gamma shape: it needs --arrival gamma")
	case l.Drain == benchmark.DrainCancel && changed("drain-timeout"):
		return l, "", nil, usagef("--drain-timeout bounds --drain wait; --drain cancel stops requests in flight at once")
	}
	if l.Mode != benchmark.ModeRate {
		l.Arrival, l.Burstiness = "", 0
	} else if l.Arrival != benchmark.ArrivalGamma {
		l.Burstiness = 0
	}
	if err := l.Validate(); err != nil {
		return l, "", nil, usagef("%v", err)
	}
	return l, kind, values, nil
}

func policyString(l benchmark.LoadPolicy, kind string, values []float64) string {
	var s string
	switch {
	case kind != "":
		vs := make([]string, len(values))
		for i, v := range values {
			vs[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		s = "sweep " + kind + "=" + strings.Join(vs, ",")
		if kind == benchmark.ModeRate {
			s += " arrival=" + l.Arrival
		}
	case l.Mode == benchmark.ModeConcurrency:
		s = fmt.Sprintf("concurrency=%d", l.Concurrency)
	case l.Mode == benchmark.ModeRate:
		s = fmt.Sprintf("rate=%g arrival=%s", l.Rate, l.Arrival)
		if l.Arrival == benchmark.ArrivalGamma {
			s += fmt.Sprintf(" burstiness=%g", l.Burstiness)
		}
	default:
		s = "trace"
	}
	if l.MaxConcurrency > 0 {
		s += fmt.Sprintf(" max-concurrency=%d", l.MaxConcurrency)
	}
	if l.DurationS > 0 {
		s += fmt.Sprintf(" duration=%gs", l.DurationS)
	}
	return s + fmt.Sprintf(" warmup=%d drain=%s", l.Warmup, l.Drain)
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

// writeFileAtomic writes b to path through a temporary file in the same
// directory, so a crash never leaves a half-written result.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	// CreateTemp makes the file private; results are meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func runBenchmark(e *env, c *cobra.Command, f *benchFlags) error {
	if f.url == "" {
		return usagef("--url is required")
	}
	if f.workload == "" {
		return usagef("--workload is required")
	}
	if !benchmark.ValidEngine(f.engine) {
		return usagef("--engine %q: want auto, %s", f.engine, strings.Join(benchmark.Engines, ", "))
	}
	switch f.progress {
	case "auto", "on", "off":
	default:
		return usagef("--progress %q: want auto, on or off", f.progress)
	}
	if !(f.saturationThreshold >= 0) {
		return usagef("--saturation-threshold must be >= 0")
	}
	// Manifest input is checked before anything is sent.
	var manifestKV []benchmark.KV
	if f.manifestFile != "" {
		kv, err := benchmark.ReadManifestFile(f.manifestFile)
		if err != nil {
			return err
		}
		manifestKV = kv
	}
	for _, a := range f.manifest {
		k, v, err := benchmark.ParseManifestArg(a)
		if err != nil {
			return usagef("%v", err)
		}
		manifestKV = append(manifestKV, benchmark.KV{Key: k, Value: v})
	}
	if err := (&benchmark.Manifest{}).SetAll(manifestKV); err != nil {
		return usagef("%v", err)
	}
	w, err := workload.Load(f.workload)
	if err != nil {
		return err
	}
	load, kind, values, err := f.loadPolicy(c, w)
	if err != nil {
		return err
	}
	key, err := readAPIKey(f.apiKeyFile)
	if err != nil {
		return err
	}
	conns := load.Concurrency
	if load.Mode != benchmark.ModeConcurrency {
		conns = load.MaxConcurrency
		if conns == 0 {
			conns = 256
		}
	}
	for _, v := range values {
		if kind == benchmark.ModeConcurrency {
			conns = max(conns, int(v))
		}
	}
	client := benchmark.NewClient(benchmark.ClientOptions{BaseURL: f.url, APIKey: key, Conns: conns, RequestTimeout: f.requestTimeout})
	defer client.Close()
	ctx := c.Context()
	dctx, dcancel := context.WithTimeout(ctx, 30*time.Second)
	info, err := client.Detect(dctx, f.engine)
	dcancel()
	if err != nil {
		return err
	}
	model := f.model
	if model == "" {
		model = info.Model
	}
	if model == "" {
		return errors.New("no --model given and the server lists no model at /v1/models")
	}

	host, _ := os.Hostname()
	m := benchmark.Manifest{
		Engine: info.Engine, EngineVersion: info.Version, EngineDetectedFrom: info.DetectedBy, Model: model,
		ServecmpVersion: version, ServecmpCommit: commit, ClientHost: host, URL: redactURL(f.url),
		LoadPolicy: policyString(load, kind, values), Seed: load.Seed, Endpoint: endpointKind(w),
	}
	if info.Root != "" && info.Root != model {
		_ = m.Set("model_root", info.Root) // an unknown key goes to Extra and cannot fail
	}
	if err := m.SetAll(manifestKV); err != nil {
		return usagef("%v", err)
	}

	var recFile *os.File
	var onRecord func(*benchmark.Record) error
	if f.records != "" {
		recFile, err = os.Create(f.records)
		if err != nil {
			return err
		}
		defer recFile.Close()
		rw := benchmark.NewRecordWriter(recFile)
		onRecord = rw.Write
	}

	// Server metrics, scraped over the whole run on a context that an
	// interrupt does not cancel (the scraper stops when the run ends).
	var scraper *servermetrics.Scraper
	scrapeDone := make(chan struct{})
	scrapeStart := time.Now()
	mctx, mcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer mcancel()
	if f.metricsURL != "none" {
		murl := f.metricsURL
		if murl == "" {
			murl = strings.TrimRight(f.url, "/") + "/metrics"
		}
		scraper = servermetrics.NewScraper(murl, 500*time.Millisecond, nil)
		scraper.SetStart(scrapeStart)
		go func() { scraper.Run(mctx); close(scrapeDone) }()
		// The baseline sample must be taken before the first request, or
		// the counters' increases miss what that request counted.
		select {
		case <-scraper.FirstScrape():
		case <-time.After(2 * time.Second):
		case <-ctx.Done():
		}
	} else {
		close(scrapeDone)
	}

	prog := &benchmark.Progress{}
	showProgress := f.progress == "on" || (f.progress == "auto" && isTerminal(e.stderr))
	var progWG sync.WaitGroup
	progStop := make(chan struct{})
	if showProgress {
		progWG.Add(1)
		go func() { defer progWG.Done(); progressLoop(e.stderr, prog, progStop) }()
	}

	res, err := benchmark.Run(ctx, benchmark.Config{
		Client: client, Engine: info.Engine, Model: model, Workload: w, Load: load,
		SweepKind: kind, SweepValues: values, SaturationThreshold: f.saturationThreshold,
		OnRecord: onRecord, Progress: prog,
		BeforeStep: func(int) {
			// A counter baseline at the measured phase's start, so that
			// warmup work is not counted in the window's increase.
			if scraper != nil {
				sctx, cancel := context.WithTimeout(mctx, 2*time.Second)
				scraper.ScrapeNow(sctx)
				cancel()
			}
		},
	})
	close(progStop)
	progWG.Wait()
	mcancel()
	<-scrapeDone
	if err != nil {
		return err
	}
	res.Manifest = m
	if scraper != nil && len(res.StepStarts) > 0 {
		from := res.StepStarts[0].Sub(scrapeStart).Seconds()
		to := res.StepStarts[len(res.StepStarts)-1].Sub(scrapeStart).Seconds() + res.Phases.Drain.EndS
		sm := scraper.Result(from, to)
		if b, err := json.Marshal(sm); err == nil {
			res.ServerMetrics = b
		}
		res.Warnings = append(res.Warnings, sm.Warnings...)
		if hr := sm.PrefixCacheHitRate; hr != nil && *hr > 0 && !res.Load.ResetPrefixCache {
			res.Warnings = append(res.Warnings, fmt.Sprintf("the server's prefix cache served %.1f%% of the prompt tokens in the measured window and was not reset (--reset-prefix-cache): part of that may be warm from earlier runs, which makes runs incomparable", 100**hr))
		}
	}
	if res.ServerMetrics == nil {
		res.ServerMetrics = json.RawMessage("null")
	}

	var outErr error
	text := e.stdout
	if f.out != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if f.out == "-" {
			_, outErr = e.stdout.Write(b)
			text = e.stderr
		} else {
			outErr = writeFileAtomic(f.out, b)
		}
	}
	if err := benchmark.WriteText(text, res); err != nil {
		return err
	}
	for _, wmsg := range res.Warnings {
		fmt.Fprintf(e.stderr, "servecmp: warning: %s\n", wmsg)
	}
	if outErr != nil {
		return fmt.Errorf("writing %s: %v", f.out, outErr)
	}
	if recFile != nil {
		if err := recFile.Close(); err != nil {
			return fmt.Errorf("writing %s: %v", f.records, err)
		}
	}
	switch {
	case res.Incomplete:
		return errors.New("interrupted: the result is marked incomplete")
	case res.Summary.RequestsOK == 0:
		return fmt.Errorf("no request succeeded (%d failed: %s)", res.Summary.RequestsFailed, classes(res.Summary.FailedByClass))
	}
	return nil
}

func classes(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	if len(parts) == 0 {
		return "none"
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// redactURL hides a password given in the URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}

// endpointKind says which endpoints the workload uses.
func endpointKind(w *workload.Workload) string {
	chat, comp := false, false
	for i := range w.Requests {
		if len(w.Requests[i].Messages) > 0 {
			chat = true
		} else {
			comp = true
		}
	}
	switch {
	case chat && comp:
		return "mixed"
	case chat:
		return "chat"
	}
	return "completions"
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
