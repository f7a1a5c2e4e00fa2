package benchmark

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/gputelemetry"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/tokenizer"
)

// DefaultOpenLoopConns sizes the connection pool of an open loop with no
// concurrency cap.
const DefaultOpenLoopConns = 256

// Config is one benchmark invocation. Load carries the policy; for a sweep,
// SweepKind (ModeConcurrency or ModeRate) and SweepValues replace
// Load.Concurrency or Load.Rate step by step.
type Config struct {
	// Client sends the requests; nil means a client for URL and APIKey
	// with its pool sized for the load.
	Client *client.Client
	URL    string
	APIKey string // never recorded
	// Engine is the dialect: "auto" (or "") is detected from the server.
	Engine string
	// Model is sent in every request; "" means the only model the server
	// lists (several listed is a *client.SetupError).
	Model    string
	Workload *workload.Workload
	Load     result.LoadPolicy

	SweepKind           result.Mode
	SweepValues         []float64
	SaturationThreshold float64

	// SLO, when set, is evaluated on every measured step (Summary's SLO
	// fields) and gives a sweep its capacity (slo_apply.go).
	SLO result.SLO

	// Metrics is the server-metrics scraper; a zero value scrapes nothing.
	Metrics MetricsConfig
	// GPU is the GPU telemetry scraper (energy); a zero value scrapes
	// nothing.
	GPU GPUConfig
	// Manifest is what the caller knows of the run; Run adds what it
	// detects and offers.
	Manifest ManifestConfig

	// OnRecord receives every measured request's record as the request
	// ends; calls are serialised.
	OnRecord func(*result.Record) error
	// Progress, when non-nil, is updated as requests end.
	Progress *Progress

	// OnStart, when non-nil, is called as each measured step starts, with
	// the step's index and its t=0, before its first send; it must return
	// quickly. SendUntil, when non-nil, ends a measured step's sending once
	// it is closed, as a reached --duration deadline would (servecmp
	// profile holds the load until its stop call has returned).
	OnStart   func(step int, t0 time.Time)
	SendUntil <-chan struct{}
	// Shard, when set, makes the run one shard of a sharded run: it
	// sends only its part of the workload and starts its measured phase
	// at the agreed instant (shard.go).
	Shard *ShardConfig
	// Tokenizer, when set, counts every prompt and answer client-side
	// (Record.Client*Tokens, Summary.TokenCheck; tokencount.go).
	Tokenizer *tokenizer.Tokenizer
	// TextWorkloadHow says, in the caller's terms, how to make a text
	// workload: the remedy named when the engine takes no token-id
	// prompts ("" is engine.TextWorkloadHow).
	TextWorkloadHow string
	detectTimeout   time.Duration // 0 = detectTimeout; tests shorten it
}

// MetricsConfig says where and how often to scrape the server's
// Prometheus endpoint over the run.
type MetricsConfig struct {
	URL   string        // "" = no scraping
	Every time.Duration // 0 = servermetrics.DefaultInterval
	// Default marks URL as the engine's usual endpoint (the server's
	// /metrics), not one the caller named: it is not scraped when the
	// detected engine has no metrics endpoint (engine.Dialect.MetricsPath),
	// and the result says so once (Result.Notes).
	Default bool
}

// GPUConfig says which dcgm-exporter endpoints (one per node) report the
// engine's GPUs, and how often to scrape them between the measured
// steps' edges.
type GPUConfig struct {
	Endpoints []gputelemetry.Endpoint // none = no GPU telemetry
	Every     time.Duration           // 0 = gputelemetry.DefaultInterval
}

// ManifestConfig is the caller's part of the manifest.
type ManifestConfig struct {
	ServecmpVersion, ServecmpCommit, ClientHost string
	// Fields are user-given key=value pairs applied in order (later keys
	// win); they override what Run detects.
	Fields []result.KV
}

// Validate checks the whole configuration, before any request: the load
// policy of every step, the sweep, the workload and the manifest fields.
// It fills the policy's defaults. Run calls it first; a caller that
// builds the configuration from user input calls it to tell a bad input
// from a failed run.
func (c *Config) Validate() error {
	if c.Workload == nil || (c.Client == nil && c.URL == "") {
		return errors.New("benchmark: a workload and a client or URL are required")
	}
	if c.Client == nil {
		if err := client.ValidateBaseURL(c.URL); err != nil {
			return err
		}
	}
	if err := workload.Validate(c.Workload.Requests); err != nil {
		return fmt.Errorf("workload %s: %w", c.Workload.Path, err)
	}
	if c.Engine == "" {
		c.Engine = engine.Auto
	}
	if !engine.Valid(c.Engine) {
		return fmt.Errorf("unknown engine %q: want auto, %s", c.Engine, strings.Join(engine.Names, ", "))
	}
	if !(c.SaturationThreshold >= 0) {
		return errors.New("the saturation threshold must be >= 0")
	}
	if err := c.Load.Validate(); err != nil {
		return err
	}
	if err := c.validateSweep(); err != nil {
		return err
	}
	if err := (&result.Manifest{}).SetAll(c.Manifest.Fields); err != nil {
		return err
	}
	if len(c.GPU.Endpoints) > 0 {
		if err := (gputelemetry.Config{Endpoints: c.GPU.Endpoints}).Validate(); err != nil {
			return err
		}
	}
	if c.Shard != nil {
		return c.Shard.validate(c, time.Now())
	}
	return nil
}

// validateSweep checks every sweep value against the policy it yields.
func (c *Config) validateSweep() error {
	switch c.SweepKind {
	case "":
		return nil
	case result.ModeConcurrency, result.ModeRate:
	default:
		return fmt.Errorf("unknown sweep kind %q", c.SweepKind)
	}
	if len(c.SweepValues) == 0 {
		return errors.New("sweep: no values")
	}
	if c.SweepKind != c.Load.Mode {
		return fmt.Errorf("sweep over %s with a %s load", c.SweepKind, c.Load.Mode)
	}
	for _, v := range c.SweepValues {
		if c.SweepKind == result.ModeConcurrency && v != math.Trunc(v) {
			return fmt.Errorf("sweep: concurrency %g is not an integer", v)
		}
		if c.SweepKind == result.ModeConcurrency && v > result.MaxConcurrencyLimit {
			// Checked before int(v), which would overflow.
			return fmt.Errorf("sweep value %g: concurrency above %d", v, result.MaxConcurrencyLimit)
		}
		if err := c.stepLoad(v).Validate(); err != nil {
			return fmt.Errorf("sweep value %g: %w", v, err)
		}
	}
	return nil
}

// stepLoad is the policy of the sweep step with value v.
func (c *Config) stepLoad(v float64) *result.LoadPolicy {
	sl := c.Load
	switch c.SweepKind {
	case result.ModeConcurrency:
		sl.Concurrency = int(v)
	case result.ModeRate:
		sl.Rate = v
	}
	return &sl
}

// conns is the connection-pool size the load needs: the concurrency (the
// largest of a concurrency sweep), else the open loop's cap.
func (c *Config) conns() int {
	n := c.Load.Concurrency
	if c.Load.Mode != result.ModeConcurrency {
		n = c.Load.MaxConcurrency
		if n == 0 {
			n = DefaultOpenLoopConns
		}
	}
	if c.SweepKind == result.ModeConcurrency {
		for _, v := range c.SweepValues {
			n = max(n, int(v))
		}
	}
	return n
}

// loadPolicyText is the manifest's load_policy: the policy in words, with
// the sweep's values first when there is one.
func (c *Config) loadPolicyText() string {
	l := c.Load
	l.Requests = len(c.Workload.Requests)
	if c.SweepKind == "" {
		return l.String()
	}
	vs := make([]string, len(c.SweepValues))
	for i, v := range c.SweepValues {
		vs[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprintf("sweep %s %s; first step: %s", c.SweepKind, strings.Join(vs, ","), l.String())
}
