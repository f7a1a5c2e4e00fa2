package flagopts

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/gputelemetry"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/infile"
	"github.com/servecmp/servecmp/tokenizer"
)

// Bench holds the flags of servecmp benchmark (and profile) that make a
// run's configuration, as the user gave them: lists still as text, the
// workload and the manifest file still as paths. Each field is set by the
// flag of the same name in lower-case words joined by '-' (SweepRate:
// --sweep-rate).
type Bench struct {
	URL, Model, Workload, Engine, APIKeyFile string

	Concurrency      int
	Rate             float64
	Arrival          string
	Burstiness       float64
	MaxConcurrency   int
	Seed             int64
	Warmup           int
	ResetPrefixCache bool
	Duration         time.Duration
	Drain            string
	DrainTimeout     time.Duration
	RequestTimeout   time.Duration

	SweepConcurrency, SweepRate string // comma-separated values
	SaturationThreshold         float64

	// MetricsURL is the Prometheus endpoint: "" means URL/metrics, "none"
	// no scraping.
	MetricsURL string
	// GPUMetricsURL lists the GPU exporters (dcgm-exporter), one per
	// node; none, or "none" alone, means no GPU telemetry. GPUs selects
	// the engine's GPUs on them ("" all; indices and UUIDs).
	GPUMetricsURL []string
	GPUs          string
	// Manifest holds key=value fields, applied after ManifestFile's.
	Manifest     []string
	ManifestFile string
	// Tokenizer is a tokenizer.json or GGUF file that counts prompts and
	// answers client-side (benchmark.Config.Tokenizer); "" for none.
	Tokenizer string
	// SLO is the service-level objective (result.ParseSLO's grammar); ""
	// for none.
	SLO string

	// Shard holds the sharding flags (benchmark only: Shard.Register).
	Shard Shard

	// Changed reports whether the flag called name was given, as opposed
	// to left at its default; nil means none was. It decides the load
	// mode and which flags the mode would ignore.
	Changed func(name string) bool
}

// flagErr is a usage error about the flag called name: "--name: msg".
func flagErr(name, format string, args ...any) error {
	return cli.Usagef("--%s: %s", name, fmt.Sprintf(format, args...))
}

func (b *Bench) changed(name string) bool { return b.Changed != nil && b.Changed(name) }

// check checks the flags that need no file: the required ones and the
// engine.
func (b *Bench) check() error {
	switch {
	case b.URL == "":
		return flagErr("url", "required")
	case b.Workload == "":
		return flagErr("workload", "required")
	case !engine.Valid(b.Engine):
		return flagErr("engine", "%q: want auto, %s", b.Engine, strings.Join(engine.Names, ", "))
	}
	return nil
}

// Config checks the flags, reads the workload, the manifest file, the
// tokenizer and the API key, and returns the run's configuration, which
// benchmark.Config.Validate then checks as a whole. A mistake in the
// flags is a usage error; a file that cannot be read is an error naming
// the file.
func (b *Bench) Config() (benchmark.Config, error) {
	b.URL = client.TrimV1(b.URL)
	cfg := benchmark.Config{URL: b.URL, Engine: b.Engine, Model: b.Model, SaturationThreshold: b.SaturationThreshold}
	if err := b.check(); err != nil {
		return cfg, err
	}
	if b.SLO != "" {
		var err error
		if cfg.SLO, err = result.ParseSLO(b.SLO); err != nil {
			return cfg, flagErr("slo", "%v", err)
		}
	}
	if b.ManifestFile != "" {
		kv, err := result.ReadManifestFile(b.ManifestFile)
		if err != nil {
			return cfg, err
		}
		cfg.Manifest.Fields = kv
	}
	for _, a := range b.Manifest {
		k, v, err := result.ParseManifestArg(a)
		if err != nil {
			return cfg, cli.Usagef("--manifest %q: want key=value", a)
		}
		cfg.Manifest.Fields = append(cfg.Manifest.Fields, result.KV{Key: k, Value: v})
	}
	cfg.Manifest.ClientHost, _ = os.Hostname()
	if b.MetricsURL != "none" {
		cfg.Metrics.URL = cmp.Or(b.MetricsURL, strings.TrimRight(b.URL, "/")+"/metrics")
		cfg.Metrics.Default = b.MetricsURL == ""
	}
	if _, err := gputelemetry.ParseGPUs(b.GPUs); err != nil {
		return cfg, flagErr("gpus", "%v", err)
	}
	eps, err := gputelemetry.Endpoints(b.GPUMetricsURL, b.GPUs)
	if err != nil {
		return cfg, flagErr("gpu-metrics-url", "%v", err)
	}
	cfg.GPU.Endpoints = eps
	w, err := workload.Load(b.Workload)
	if err != nil {
		return cfg, err
	}
	cfg.Workload = w
	if b.Tokenizer != "" {
		if cfg.Tokenizer, err = tokenizer.Load(b.Tokenizer); err != nil {
			return cfg, err
		}
	}
	if err := b.load(w, &cfg); err != nil {
		return cfg, err
	}
	if cfg.Shard, err = b.Shard.Config(); err != nil {
		return cfg, err
	}
	cfg.APIKey, err = ReadAPIKey(b.APIKeyFile)
	return cfg, err
}

// loadModes are the flags that choose a load mode, at most one of which
// may be given.
var loadModes = []string{"concurrency", "rate", "sweep-concurrency", "sweep-rate"}

// load sets cfg's policy and sweep from the flags, checking that at most
// one load mode is chosen (none only for a workload whose every request
// carries its arrival offset) and that no flag given is one the load
// would ignore.
func (b *Bench) load(w *workload.Workload, cfg *benchmark.Config) error {
	l := result.LoadPolicy{
		Arrival: b.Arrival, Burstiness: b.Burstiness, MaxConcurrency: b.MaxConcurrency, Seed: b.Seed, Warmup: b.Warmup,
		DurationS: b.Duration.Seconds(), Drain: b.Drain, DrainTimeoutS: b.DrainTimeout.Seconds(),
		RequestTimeoutS: b.RequestTimeout.Seconds(), ResetPrefixCache: b.ResetPrefixCache,
	}
	given := 0
	for _, m := range loadModes {
		if b.changed(m) {
			given++
		}
	}
	if given > 1 {
		return cli.Usagef("choose one of --concurrency, --rate, --sweep-concurrency and --sweep-rate")
	}
	allOffsets := !slices.ContainsFunc(w.Requests, func(r workload.Request) bool { return r.ArrivalOffsetS == nil })
	var err error
	switch {
	case b.changed("concurrency"):
		l.Mode, l.Concurrency = result.ModeConcurrency, b.Concurrency
	case b.changed("rate"):
		l.Mode, l.Rate = result.ModeRate, b.Rate
	case b.changed("sweep-concurrency"):
		if cfg.SweepValues, err = parseList("sweep-concurrency", b.SweepConcurrency, true); err != nil {
			return err
		}
		l.Mode, l.Concurrency, cfg.SweepKind = result.ModeConcurrency, int(cfg.SweepValues[0]), result.ModeConcurrency
	case b.changed("sweep-rate"):
		if allOffsets {
			return flagErr("sweep-rate", "every request carries arrival_offset_s, so the rate cannot change")
		}
		if cfg.SweepValues, err = parseList("sweep-rate", b.SweepRate, false); err != nil {
			return err
		}
		l.Mode, l.Rate, cfg.SweepKind = result.ModeRate, cfg.SweepValues[0], result.ModeRate
	case allOffsets:
		l.Mode = result.ModeTrace
	default:
		return cli.Usagef("choose a load: --concurrency, --rate, --sweep-concurrency or --sweep-rate")
	}
	if err := b.ignored(l); err != nil {
		return err
	}
	if l.Mode != result.ModeRate {
		l.Arrival, l.Burstiness = "", 0
	} else if l.Arrival != result.ArrivalGamma {
		l.Burstiness = 0
	}
	cfg.Load = l
	return nil
}

// ignored refuses a flag that the load l would ignore: the result must
// describe the load that was actually offered.
func (b *Bench) ignored(l result.LoadPolicy) error {
	switch {
	case l.Mode == result.ModeConcurrency && b.changed("max-concurrency"):
		return flagErr("max-concurrency", "caps an open loop (--rate, --sweep-rate or a trace replay); a closed loop keeps exactly --concurrency in flight")
	case l.Mode != result.ModeRate && b.changed("arrival"):
		return flagErr("arrival", "shapes the arrivals of --rate or --sweep-rate only")
	case l.Mode != result.ModeRate && b.changed("burstiness"):
		return flagErr("burstiness", "shapes the arrivals of --rate or --sweep-rate only")
	case l.Mode == result.ModeRate && l.Arrival != result.ArrivalGamma && b.changed("burstiness"):
		return flagErr("burstiness", "is the gamma shape: it needs --arrival gamma")
	case l.Drain == result.DrainCancel && b.changed("drain-timeout"):
		return flagErr("drain-timeout", "bounds --drain wait; --drain cancel stops requests in flight at once")
	}
	return nil
}

// parseList parses a comma-separated list of positive numbers, integers
// when whole is set, for the flag called name.
func parseList(name, s string, whole bool) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, flagErr(name, "%q is not a positive number", p)
		}
		if whole && v != math.Trunc(v) {
			return nil, flagErr(name, "%q is not an integer", p)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, flagErr(name, "empty list")
	}
	return out, nil
}

// MaxKeyFile bounds an API key file (bytes): a key is far shorter.
const MaxKeyFile = 64 << 10

// ReadAPIKey returns the API key: the trimmed content of file, or
// $OPENAI_API_KEY when file is "". The file is read through the one
// opener of inputs (infile): a named pipe or a device (/dev/zero) is
// refused without blocking, and a file over MaxKeyFile bytes is refused.
// An empty file is an error.
func ReadAPIKey(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv("OPENAI_API_KEY")), nil
	}
	b, err := infile.ReadFileLimit(file, MaxKeyFile)
	if err != nil {
		return "", fmt.Errorf("API key file: %w", err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" {
		return "", fmt.Errorf("API key file %s is empty", file)
	}
	return k, nil
}

// Outputs are where a run's outcome goes, beside its Bench flags: the
// result file (Out; "-" is stdout), the per-request records file, the
// progress line (Progress: auto, on or off) and the share of failed
// requests, 0 to 1, above which the run counts as failed
// (MaxFailedShare).
type Outputs struct {
	Out, Records, Progress string
	MaxFailedShare         float64
}

// Validate checks Progress, MaxFailedShare and the output paths before
// anything is read or sent: each path writable, neither one of inputs
// (the workload and manifest files) nor the other. Every error is a
// usage error naming its flag (--progress, --out, ...).
func (o *Outputs) Validate(inputs ...string) error {
	switch {
	case o.Progress != "auto" && o.Progress != "on" && o.Progress != "off":
		return cli.Usagef("--progress %q: want auto, on or off", o.Progress)
	case !(o.MaxFailedShare >= 0 && o.MaxFailedShare <= 1):
		return cli.Usagef("--max-failed-share %g: want a share from 0 to 1", o.MaxFailedShare)
	}
	if o.Out != "-" {
		if err := atomicfile.CheckWritable("--out", o.Out, inputs...); err != nil {
			return &cli.UsageError{Err: err}
		}
	}
	if err := atomicfile.CheckWritable("--records", o.Records, inputs...); err != nil {
		return &cli.UsageError{Err: err}
	}
	if err := atomicfile.CheckDistinct([]string{"--out", "--records"}, []string{o.Out, o.Records}); err != nil {
		return &cli.UsageError{Err: err}
	}
	return nil
}

// ShowsProgress reports whether the progress line is drawn: Progress on,
// or auto with the line going to a terminal.
func (o *Outputs) ShowsProgress(terminal bool) bool {
	return o.Progress == "on" || (o.Progress == "auto" && terminal)
}
