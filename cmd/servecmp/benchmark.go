package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/flagopts"
	"github.com/servecmp/servecmp/output/emit"
)

// benchFlags are the benchmark command's flags: the run's settings, and
// where its result, records and progress go.
type benchFlags struct {
	flagopts.Bench
	flagopts.Outputs
}

func newBenchmarkCmd(e *env) *cobra.Command {
	f := &benchFlags{}
	cmd := &cobra.Command{
		Use:   "benchmark --url URL --workload FILE (--concurrency C | --rate R | --sweep-concurrency LIST | --sweep-rate LIST)",
		Short: "Replay a workload against an OpenAI-compatible server and measure it",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runBenchmark(e, c, f) },
	}
	f.register(cmd.Flags())
	f.Shard.Register(cmd.Flags())
	return cmd
}

// register adds the benchmark flags to fs (profile shares them).
func (f *benchFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.URL, "url", "", "server base URL, e.g. http://localhost:8000 (required)")
	fs.StringVar(&f.Model, "model", "", "model name sent in requests (default: the only model GET /v1/models lists; several listed is an error)")
	fs.StringVar(&f.Workload, "workload", "", "workload file (JSONL; required)")
	fs.StringVar(&f.Engine, "engine", "auto", "engine dialect: auto, vllm, sglang, trtllm, tgi, llamacpp, ollama or openai")
	fs.StringVar(&f.Tokenizer, "tokenizer", "", "tokenizer.json or GGUF file: count prompts and answers client-side and warn when usage disagrees by > 1%")
	fs.StringVar(&f.APIKeyFile, "api-key-file", "", "file holding the API key (default: $OPENAI_API_KEY)")
	fs.IntVar(&f.Concurrency, "concurrency", 0, "closed loop: requests kept in flight")
	fs.Float64Var(&f.Rate, "rate", 0, "open loop: requests per second")
	fs.StringVar(&f.Arrival, "arrival", "poisson", "open-loop arrivals: constant, poisson or gamma")
	fs.Float64Var(&f.Burstiness, "burstiness", 1, "gamma shape for --arrival gamma (1 = Poisson, <1 burstier, >1 smoother)")
	fs.IntVar(&f.MaxConcurrency, "max-concurrency", 0, "open loop: cap on requests in flight (0 = none)")
	fs.Int64Var(&f.Seed, "seed", 0, "seed of the arrival schedule")
	fs.IntVar(&f.Warmup, "warmup", 0, "warmup requests sent before the measured phase (excluded)")
	fs.BoolVar(&f.ResetPrefixCache, "reset-prefix-cache", false, "reset the server's prefix cache before each measured phase (vLLM, SGLang; llama.cpp only in part: its slots, with --slot-save-path)")
	fs.DurationVar(&f.Duration, "duration", 0, "stop sending after this long (0 = send the whole workload)")
	fs.StringVar(&f.Drain, "drain", "wait", "after the last send: wait for requests in flight, or cancel them")
	fs.DurationVar(&f.DrainTimeout, "drain-timeout", 0, "with --drain wait, cancel what is still in flight after this long (0 = no limit)")
	fs.DurationVar(&f.RequestTimeout, "request-timeout", 10*time.Minute, "limit on one request, send to end of stream (0 = none)")
	fs.StringVar(&f.SweepConcurrency, "sweep-concurrency", "", "comma-separated concurrencies: one full run each")
	fs.StringVar(&f.SweepRate, "sweep-rate", "", "comma-separated rates (req/s): one full run each")
	fs.Float64Var(&f.SaturationThreshold, "saturation-threshold", 0.05, "sweep: relative output-throughput gain below which a step counts as saturated")
	fs.StringVar(&f.MetricsURL, "metrics-url", "", `Prometheus endpoint scraped every 500 ms (default URL/metrics; "none" to skip)`)
	f.RegisterGPU(fs)
	fs.StringArrayVar(&f.Manifest, "manifest", nil, "manifest field key=value (repeatable; overrides detected values); keys: "+strings.Join(result.ManifestKeys(), ", "))
	fs.StringVar(&f.ManifestFile, "manifest-file", "", "manifest fields as a JSON object or key=value lines")
	fs.StringVar(&f.Out, "out", "", `result JSON file ("-": stdout, and the text summary goes to stderr)`)
	fs.StringVar(&f.Records, "records", "", "per-request records (JSON Lines), appended at this path as each request ends (a killed run keeps those written)")
	fs.StringVar(&f.SLO, "slo", "", "service-level objective, e.g. ttft_ms:p99<=500,tpot_ms:p99<=50,e2e_ms<=2000: adds goodput, attainment and (sweeps) capacity")
	fs.StringVar(&f.Progress, "progress", "auto", "progress line on stderr: auto (when stderr is a terminal), on or off")
	fs.Float64Var(&f.MaxFailedShare, "max-failed-share", result.DefaultMaxFailedShare, "exit 4 when a larger share of the requests failed (0 to 1; 1 never)")
}

// config checks the outputs, then turns the flags into a run's
// configuration; a mistake in the flags is a usage error.
func (f *benchFlags) config(c *cobra.Command) (benchmark.Config, error) {
	if err := f.Outputs.Validate(f.Workload, f.ManifestFile, f.Tokenizer, f.APIKeyFile); err != nil {
		return benchmark.Config{}, err
	}
	f.Changed = c.Flags().Changed
	cfg, err := f.Config()
	if err != nil {
		return cfg, err
	}
	cfg.Manifest.ServecmpVersion, cfg.Manifest.ServecmpCommit = version, commit
	return cfg, nil
}

// runBenchmark runs the benchmark the flags describe and writes its
// result.
func runBenchmark(e *env, c *cobra.Command, f *benchFlags) error {
	cfg, err := f.config(c)
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return usagef("%v", err)
	}
	cfg.Progress = &benchmark.Progress{}
	stopProgress := func() {}
	if term := cli.IsTerminal(e.stderr); f.ShowsProgress(term) {
		stopProgress = benchmark.ShowProgress(e.stderr, cfg.Progress, term)
	}
	res, err := benchmark.RunRecorded(c.Context(), cfg, f.Records)
	stopProgress()
	if res == nil {
		return err
	}
	// The result is written even when the records could not be; the
	// records' failure is then the error reported.
	if werr := emit.Benchmark(e.stdout, e.stderr, f.Out, res, f.MaxFailedShare); err == nil {
		return werr
	}
	return fmt.Errorf("writing %v", err) // the error names the file
}
