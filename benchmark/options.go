package benchmark

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/servecmp/servecmp/tokenizer"

	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
)

// Options are a benchmark run's settings as a user states them, before
// they become a Config: lists still as text, the workload and the manifest
// file still as paths. Each field is set by the option of the same name
// in lower-case words joined by '-' (SweepRate: "sweep-rate"), the names
// OptionError uses.
type Options struct {
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
	// Manifest holds key=value fields, applied after ManifestFile's.
	Manifest     []string
	ManifestFile string
	// Tokenizer is a tokenizer.json or GGUF file that counts prompts and
	// answers client-side (Config.Tokenizer); "" for none.
	Tokenizer string
	// SLO is the service-level objective (ParseSLO's grammar); "" for none.
	SLO string

	// Set reports whether the option called name was given, as opposed
	// to left at its default; nil means none was. It decides the load
	// mode and which options the mode would ignore.
	Set func(name string) bool
}

// OptionError is an option the user got wrong, found before any request
// is sent: Option names it ("rate"), or is empty when the fault lies in a
// combination that Msg describes. Msg refers to options as {name}, so
// that a caller can spell them its own way (Format).
type OptionError struct {
	Option, Msg string
}

// optionRef is an option's name in an OptionError's Msg.
var optionRef = regexp.MustCompile(`\{[a-z][a-z-]*\}`)

// Format renders the error with every option name spelled by name, e.g.
// as a command-line flag.
func (e *OptionError) Format(name func(option string) string) string {
	msg := optionRef.ReplaceAllStringFunc(e.Msg, func(ref string) string { return name(ref[1 : len(ref)-1]) })
	if e.Option == "" {
		return msg
	}
	return name(e.Option) + ": " + msg
}

// Error spells the options by their names.
func (e *OptionError) Error() string { return e.Format(func(n string) string { return n }) }

func optionErr(option, format string, args ...any) error {
	return &OptionError{option, fmt.Sprintf(format, args...)}
}

func (o *Options) set(name string) bool { return o.Set != nil && o.Set(name) }

// check checks the options that need no file: the required ones and the
// engine. Its errors are *OptionError.
func (o *Options) check() error {
	switch {
	case o.URL == "":
		return optionErr("url", "required")
	case o.Workload == "":
		return optionErr("workload", "required")
	case !engine.Valid(o.Engine):
		return optionErr("engine", "%q: want auto, %s", o.Engine, strings.Join(engine.Names, ", "))
	}
	return nil
}

// Config checks the options, reads the workload, the manifest file and
// the API key, and returns the run's configuration; Run validates the
// values. A mistake in the options is an *OptionError; a file that cannot
// be read is an error naming the file.
func (o *Options) Config() (Config, error) {
	cfg := Config{URL: o.URL, Engine: o.Engine, Model: o.Model, SaturationThreshold: o.SaturationThreshold}
	if err := o.check(); err != nil {
		return cfg, err
	}
	if o.SLO != "" {
		var err error
		if cfg.SLO, err = result.ParseSLO(o.SLO); err != nil {
			return cfg, &OptionError{Option: "slo", Msg: err.Error()}
		}
	}
	if o.ManifestFile != "" {
		kv, err := result.ReadManifestFile(o.ManifestFile)
		if err != nil {
			return cfg, err
		}
		cfg.Manifest.Fields = kv
	}
	for _, a := range o.Manifest {
		k, v, err := result.ParseManifestArg(a)
		if err != nil {
			return cfg, &OptionError{Msg: err.Error()}
		}
		cfg.Manifest.Fields = append(cfg.Manifest.Fields, result.KV{Key: k, Value: v})
	}
	cfg.Manifest.ClientHost, _ = os.Hostname()
	if o.MetricsURL != "none" {
		cfg.Metrics.URL = cmp.Or(o.MetricsURL, strings.TrimRight(o.URL, "/")+"/metrics")
	}
	w, err := workload.Load(o.Workload)
	if err != nil {
		return cfg, err
	}
	cfg.Workload = w
	if o.Tokenizer != "" {
		if cfg.Tokenizer, err = tokenizer.Load(o.Tokenizer); err != nil {
			return cfg, err
		}
	}
	if err := o.load(w, &cfg); err != nil {
		return cfg, err
	}
	cfg.APIKey, err = ReadAPIKey(o.APIKeyFile)
	return cfg, err
}

// loadModes are the options that choose a load mode, at most one of which
// may be given.
var loadModes = []string{"concurrency", "rate", "sweep-concurrency", "sweep-rate"}

// load sets cfg's policy and sweep from the options, checking that at
// most one load mode is chosen (none only for a workload whose every
// request carries its arrival offset) and that no option given is one
// the load would ignore.
func (o *Options) load(w *workload.Workload, cfg *Config) error {
	l := result.LoadPolicy{
		Arrival: o.Arrival, Burstiness: o.Burstiness, MaxConcurrency: o.MaxConcurrency, Seed: o.Seed, Warmup: o.Warmup,
		DurationS: o.Duration.Seconds(), Drain: o.Drain, DrainTimeoutS: o.DrainTimeout.Seconds(),
		RequestTimeoutS: o.RequestTimeout.Seconds(), ResetPrefixCache: o.ResetPrefixCache,
	}
	given := 0
	for _, m := range loadModes {
		if o.set(m) {
			given++
		}
	}
	if given > 1 {
		return optionErr("", "choose one of {concurrency}, {rate}, {sweep-concurrency} and {sweep-rate}")
	}
	allOffsets := !slices.ContainsFunc(w.Requests, func(r workload.Request) bool { return r.ArrivalOffsetS == nil })
	var err error
	switch {
	case o.set("concurrency"):
		l.Mode, l.Concurrency = result.ModeConcurrency, o.Concurrency
	case o.set("rate"):
		l.Mode, l.Rate = result.ModeRate, o.Rate
	case o.set("sweep-concurrency"):
		if cfg.SweepValues, err = parseList("sweep-concurrency", o.SweepConcurrency, true); err != nil {
			return err
		}
		l.Mode, l.Concurrency, cfg.SweepKind = result.ModeConcurrency, int(cfg.SweepValues[0]), result.ModeConcurrency
	case o.set("sweep-rate"):
		if allOffsets {
			return optionErr("sweep-rate", "every request carries arrival_offset_s, so the rate cannot change")
		}
		if cfg.SweepValues, err = parseList("sweep-rate", o.SweepRate, false); err != nil {
			return err
		}
		l.Mode, l.Rate, cfg.SweepKind = result.ModeRate, cfg.SweepValues[0], result.ModeRate
	case allOffsets:
		l.Mode = result.ModeTrace
	default:
		return optionErr("", "choose a load: {concurrency}, {rate}, {sweep-concurrency} or {sweep-rate}")
	}
	if err := o.ignored(l); err != nil {
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

// ignored refuses an option that the load l would ignore: the result must
// describe the load that was actually offered.
func (o *Options) ignored(l result.LoadPolicy) error {
	switch {
	case l.Mode == result.ModeConcurrency && o.set("max-concurrency"):
		return optionErr("max-concurrency", "caps an open loop ({rate}, {sweep-rate} or a trace replay); a closed loop keeps exactly {concurrency} in flight")
	case l.Mode != result.ModeRate && o.set("arrival"):
		return optionErr("arrival", "shapes the arrivals of {rate} or {sweep-rate} only")
	case l.Mode != result.ModeRate && o.set("burstiness"):
		return optionErr("burstiness", "shapes the arrivals of {rate} or {sweep-rate} only")
	case l.Mode == result.ModeRate && l.Arrival != result.ArrivalGamma && o.set("burstiness"):
		return optionErr("burstiness", "is the gamma shape: it needs {arrival} gamma")
	case l.Drain == result.DrainCancel && o.set("drain-timeout"):
		return optionErr("drain-timeout", "bounds {drain} wait; {drain} cancel stops requests in flight at once")
	}
	return nil
}

// parseList parses a comma-separated list of positive numbers, integers
// when whole is set, for the option called name.
func parseList(name, s string, whole bool) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, optionErr(name, "%q is not a positive number", p)
		}
		if whole && v != math.Trunc(v) {
			return nil, optionErr(name, "%q is not an integer", p)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, optionErr(name, "empty list")
	}
	return out, nil
}

// ReadAPIKey returns the API key: the trimmed content of file, or
// $OPENAI_API_KEY when file is "". An empty file is an error.
func ReadAPIKey(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv("OPENAI_API_KEY")), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("API key file: %w", err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" {
		return "", fmt.Errorf("API key file %s is empty", file)
	}
	return k, nil
}
