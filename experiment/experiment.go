package experiment

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/redact"
	"github.com/servecmp/servecmp/tokenizer"
)

// Experiment is a parsed experiment file. Every field has been validated;
// defaults are filled in.
type Experiment struct {
	// File is the experiment file's path as given; Dir is its directory,
	// against which relative paths were resolved.
	File, Dir   string
	A, B        Engine
	Intentional []string
	Workload    Workload
	Check       Preflight
	Sweep       *Sweep // nil: no sweep
	Runs        Runs
	Profile     *Profile // nil: no profile
	SLO         result.SLO
	Alpha       float64
}

// ContractFields are the manifest keys an engine may set directly: the
// contract fields of the method. gpu_count is an integer; the others are
// text.
var ContractFields = []string{
	"engine_version", "checkpoint_revision", "tokenizer",
	"gpu_type", "gpu_count", "topology", "memory_limit",
	"compute_precision", "weight_precision", "kv_precision", "quantization",
	"attention_backend", "graph_mode", "cache_policy",
}

// Engine is one side of the comparison.
type Engine struct {
	URL    string `json:"url"`
	Model  string `json:"model"`
	Engine string `json:"engine,omitempty"` // "" = detected
	// Manifest holds the contract fields given, by manifest key.
	Manifest map[string]string `json:"manifest,omitempty"`
	// Extra holds free-form manifest entries.
	Extra  map[string]string `json:"extra,omitempty"`
	Launch *Launch           `json:"launch,omitempty"` // nil: the engine is already running
	// MetricsURL is the Prometheus endpoint scraped during its sweeps and
	// runs: "" is the engine's own (url + /metrics, left out when the
	// detected engine has none), MetricsNone scrapes nothing.
	MetricsURL string `json:"metrics_url,omitempty"`
	// TraceDir is where the engine's profiler writes its traces (resolved
	// against the experiment's directory); "" = the profile step's own
	// folder, sent as SGLang's output_dir.
	TraceDir string `json:"trace_dir,omitempty"`
	// GPUMetricsURLs are the engine's GPU exporters, one per node
	// (benchmark --gpu-metrics-url); none: no GPU telemetry. GPUs selects
	// the engine's GPUs on them (--gpus; "" all).
	GPUMetricsURLs []string `json:"gpu_metrics_url,omitempty"`
	GPUs           string   `json:"gpus,omitempty"`
}

// ManifestArgs lists the engine's manifest entries as key=value arguments
// (benchmark --manifest), sorted by key: the contract fields, the extra
// entries and, for a launched engine, "launch" with its command line.
func (e Engine) ManifestArgs() []string {
	var out []string
	for k, v := range e.Manifest {
		out = append(out, k+"="+v)
	}
	for k, v := range e.Extra {
		out = append(out, k+"="+v)
	}
	if e.Launch != nil {
		out = append(out, "launch="+e.Launch.CommandLine())
	}
	slices.Sort(out)
	return out
}

// MetricsNone is the metrics_url (and, alike, any telemetry URL) that
// says the engine has no endpoint to scrape.
const MetricsNone = "none"

// Launch is how servecmp starts an engine itself.
type Launch struct {
	Command      []string      `json:"command"`   // program and arguments, no shell
	ReadyURL     string        `json:"ready_url"` // ready when a GET answers 2xx
	ReadyTimeout time.Duration `json:"ready_timeout"`
	Grace        time.Duration `json:"grace"` // SIGTERM → SIGKILL delay
}

// Launch defaults.
const (
	DefaultReadyTimeout = 5 * time.Minute
	DefaultGrace        = 10 * time.Second
	DefaultReadyPath    = "/v1/models"
)

// CommandLine gives the command back as one line for people (the
// manifest, the logs, stderr): SplitCommand reads it into the same words,
// secrets masked (redact.Command: VLLM_API_KEY=..., --api-key ...). It
// is never run; Command is.
func (l Launch) CommandLine() string {
	words := redact.Command(l.Command)
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quoteWord(w)
	}
	return strings.Join(q, " ")
}

// Workload is a frozen file, the random generator's settings or a request
// trace to replay; exactly one is set.
type Workload struct {
	File   string  `json:"file,omitempty"` // resolved against the experiment's directory
	Random *Random `json:"random,omitempty"`
	Trace  *Trace  `json:"trace,omitempty"` // trace.go
}

// Random holds `servecmp workload random` settings, with its defaults.
type Random struct {
	Num         int     `json:"num"`
	InputLen    string  `json:"input_len"`  // workload.ParseLength syntax
	OutputLen   string  `json:"output_len"` // idem
	Seed        uint64  `json:"seed"`
	Vocab       int     `json:"vocab"`
	PrefixLen   int     `json:"prefix_len"`
	FixedLength bool    `json:"fixed_length"` // default true
	RequestRate float64 `json:"request_rate"`
	Burstiness  float64 `json:"burstiness"`
	// Sampling: temperature is always sent (default 0); top_p and top_k
	// only when given; request_seeds (default true) gives each request
	// its own sampling seed when temperature > 0.
	Temperature  float64  `json:"temperature"`
	TopP         *float64 `json:"top_p,omitempty"`
	TopK         *int     `json:"top_k,omitempty"`
	RequestSeeds bool     `json:"request_seeds"`
	// Tokenizer (a tokenizer.json or GGUF file, resolved against the
	// experiment's directory) makes the prompts real text of the exact
	// lengths under it; Prompt is their form: PromptIDs (token ids, the
	// default without a tokenizer), PromptText or PromptChat (the default
	// with one). Both are part of the materialised workload, and so of
	// every measuring step's key.
	Tokenizer string `json:"tokenizer,omitempty"`
	Prompt    string `json:"prompt,omitempty"`
}

// Prompt forms of a random workload.
const (
	PromptIDs  = "ids"
	PromptText = "text"
	PromptChat = "chat"
)

// Spec turns the settings into the generator's input.
func (r Random) Spec() (workload.RandomSpec, error) {
	in, err := workload.ParseLength(r.InputLen)
	if err != nil {
		return workload.RandomSpec{}, fmt.Errorf("input_len: %v", err)
	}
	out, err := workload.ParseLength(r.OutputLen)
	if err != nil {
		return workload.RandomSpec{}, fmt.Errorf("output_len: %v", err)
	}
	temp := r.Temperature
	spec := workload.RandomSpec{
		Num: r.Num, InputLen: in, OutputLen: out, Seed: r.Seed, Vocab: r.Vocab, PrefixLen: r.PrefixLen,
		FixedLength: r.FixedLength, RequestRate: r.RequestRate, Burstiness: r.Burstiness,
		Sampling:     workload.Sampling{Temperature: &temp, TopP: r.TopP, TopK: r.TopK},
		RequestSeeds: r.RequestSeeds,
	}
	if r.Tokenizer != "" {
		tok, err := tokenizer.Load(r.Tokenizer)
		if err != nil {
			return spec, fmt.Errorf("tokenizer: %v", err)
		}
		spec.Text = &workload.TextPrompts{Tokenizer: tok, Kind: workload.KindChat}
		if r.Prompt == PromptText {
			spec.Text.Kind = workload.KindText
		}
	}
	return spec, nil
}

// Preflight is the experiment's pre-flight check section (check:).
type Preflight struct {
	Requests   int    `json:"requests"`
	OnMismatch string `json:"on_mismatch"` // OnMismatchStop or OnMismatchContinue
}

// on_mismatch values.
const (
	OnMismatchStop     = "stop"
	OnMismatchContinue = "continue"
)

// Load kinds of sweeps and runs.
const (
	LoadConcurrency = "concurrency"
	LoadRate        = "rate"
)

// Sweep is the per-engine sweep of offered load. Values increase
// strictly; concurrency values are whole numbers.
type Sweep struct {
	Kind             string    `json:"kind"` // LoadConcurrency or LoadRate
	Values           []float64 `json:"values"`
	Warmup           int       `json:"warmup"`
	ResetPrefixCache bool      `json:"reset_prefix_cache"`
}

// Runs are the repeated measured runs.
type Runs struct {
	Count            int     `json:"count"`
	Kind             string  `json:"kind"`  // LoadConcurrency, LoadRate or LoadTrace
	Value            float64 `json:"value"` // concurrency, or requests/s
	Order            string  `json:"order"` // OrderInterleaved or OrderBlocked
	Warmup           int     `json:"warmup"`
	ResetPrefixCache bool    `json:"reset_prefix_cache"`
	// Shards > 1 sends each run's load from that many local processes
	// (servecmp benchmark --shard i/N), started together and merged into
	// the run's result; Value stays the total load, divided among them.
	// 0 (or 1) is one process; omitted from keys when 0, so that older
	// steps keep theirs.
	Shards int `json:"shards,omitempty"`
}

// Run orders.
const (
	OrderInterleaved = "interleaved"
	OrderBlocked     = "blocked"
)

// Profile asks for one bounded capture per engine under the runs' load:
// it starts After the load does and lasts For, or Steps engine steps
// (exactly one of the two is set). After 0 is profile.DefaultSettle.
// Activities are SGLang's profiler activities (nil: profile's default).
type Profile struct {
	After      time.Duration `json:"after"`
	For        time.Duration `json:"for,omitempty"`
	Steps      int           `json:"steps,omitempty"`
	Activities []string      `json:"activities,omitempty"`
}

// Inputs lists the files a run of e reads, with more (a key file): the
// experiment file, the workload file, a trace and the tokenizers. No
// output may replace one.
func (e *Experiment) Inputs(more ...string) []string {
	out := []string{e.File}
	if e.Workload.File != "" {
		out = append(out, e.Workload.File)
	}
	if r := e.Workload.Random; r != nil && r.Tokenizer != "" {
		out = append(out, r.Tokenizer)
	}
	if t := e.Workload.Trace; t != nil {
		out = append(out, t.File, t.Tokenizer)
	}
	return append(out, more...)
}

// Side returns engine "a" or "b".
func (e *Experiment) Side(side string) Engine {
	if side == "b" {
		return e.B
	}
	return e.A
}
