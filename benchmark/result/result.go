// Package result is the model of what a benchmark produces and what
// compare reads: the result file (Result, its Summary, Dist, phases,
// sweep, manifest, scraped server metrics), the per-request records
// (Record, records.jsonl, their schema and reader), the load policy and
// its modes and bounds, and the service-level objective with its
// evaluation (goodput, attainment, sweep capacity). It computes summaries
// from records but sends nothing: the HTTP client is benchmark/client and
// the load generator benchmark.
//
// Units: in results, send times are seconds from a step's t=0 (its first
// scheduled send), latencies and chunk offsets are milliseconds from the
// request's own send, throughputs are per second of the stated window and
// token counts are tokens. Distributions (Dist) hold successful requests
// only; failed and cancelled requests are counted by class and never
// enter latency or token figures.
package result

import (
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/servecmp/servecmp/internal/atomicfile"
)

// Schema names the result file format written by servecmp benchmark.
//
// Version 2: ended_at (the run's wall-clock end) beside started_at, and
// each sweep step's started_at and ended_at (its t=0 and its last
// request's end on the wall clock, UTC) beside the step-relative seconds
// of its phases. Readers accept version 1 (PreviousSchema).
const Schema = "servecmp.result/2"

// Result is the whole outcome of one benchmark invocation (result.json).
// Times are seconds and latencies milliseconds unless a field's name says
// otherwise; throughputs are per second of the stated window.
type Result struct {
	Schema string `json:"schema"`

	// RunID is the run's random identity (RunIDLen hex digits), carried by
	// every line of its records file so that records are tied to their
	// result; absent in results written before it existed.
	RunID string `json:"run_id,omitempty"`

	Manifest Manifest     `json:"manifest"`
	Workload WorkloadInfo `json:"workload"`
	// Load is the load policy of the measured run; with a sweep it is the
	// last step's.
	Load LoadPolicy `json:"load"`
	// Phases splits the measured run into warmup, steady state and drain;
	// with a sweep they are the last step's.
	Phases Phases `json:"phases"`
	// Summary covers every measured request; with a sweep it is the last
	// step's summary (each step's is in Sweep.Steps).
	Summary Summary `json:"summary"`
	// ServerMetrics is the scraped Prometheus series over the measured
	// window (first measured step's start to the last one's drain end), or
	// nil (null) when none were scraped.
	ServerMetrics *ServerMetrics `json:"server_metrics"`
	// GPUTelemetry is the engine's GPUs as their exporters reported them
	// over the same window (per-GPU means, clock events, the contract the
	// labels give, power over time); absent when none was scraped
	// (benchmark --gpu-metrics-url). Each measured step's energy is in
	// its Summary.Energy.
	GPUTelemetry *GPUTelemetry `json:"gpu_telemetry,omitempty"`
	// Sweep is set only for --sweep-concurrency / --sweep-rate runs.
	Sweep *Sweep `json:"sweep"`
	// Incomplete is true when the run was interrupted (Ctrl-C, or a step
	// that could not finish); the figures cover what completed.
	Incomplete bool     `json:"incomplete"`
	Warnings   []string `json:"warnings"`
	// Notes say what the run left out by design and why (a metrics
	// endpoint the engine does not have); unlike warnings they need no
	// action.
	Notes []string `json:"notes,omitempty"`
	// StartedAt is the wall-clock instant (UTC) the run began, warmup
	// included; compare orders the runs of A and B by it (interleaved or
	// blocked). Absent (zero) in results written before it existed.
	StartedAt time.Time `json:"started_at,omitzero"`
	// EndedAt is the wall-clock instant (UTC) the run ended, drain and
	// scrape included; absent in results of PreviousSchema.
	EndedAt time.Time `json:"ended_at,omitzero"`
	// Shard is set in one shard's result (ShardSchema); Shards in a
	// result merged from shards (shard.go).
	Shard  *Shard  `json:"shard,omitempty"`
	Shards *Shards `json:"shards,omitempty"`

	// FailureCause, in memory only (the records keep every error), says
	// why requests failed in the server's own words: the first failure's
	// class and message and, when the model asked for is not among those
	// the server lists, the models it serves. "" when none failed.
	FailureCause string `json:"-"`
}

// Manifest records what was measured and how, so that two results can be
// checked for comparability. Empty strings mean "not known".
type Manifest struct {
	Engine             string `json:"engine"`
	EngineVersion      string `json:"engine_version"`
	EngineDetectedFrom string `json:"engine_detected_from,omitempty"`
	Model              string `json:"model"`
	CheckpointRevision string `json:"checkpoint_revision"`
	Tokenizer          string `json:"tokenizer"`
	ServecmpVersion    string `json:"servecmp_version"`
	ServecmpCommit     string `json:"servecmp_commit"`
	ClientHost         string `json:"client_host"`
	URL                string `json:"url"`
	Endpoint           string `json:"endpoint"` // completions, chat or mixed
	LoadPolicy         string `json:"load_policy"`
	Seed               int64  `json:"seed"`
	GPUCount           int    `json:"gpu_count"` // 0 = not given
	GPUType            string `json:"gpu_type"`
	// DriverVersion is the GPU driver's version, when given or reported
	// by the GPU exporters.
	DriverVersion    string `json:"driver_version,omitempty"`
	Topology         string `json:"topology"`
	MemoryLimit      string `json:"memory_limit"`
	ComputePrecision string `json:"compute_precision"`
	WeightPrecision  string `json:"weight_precision"`
	KVPrecision      string `json:"kv_precision"`
	Quantization     string `json:"quantization"`
	AttentionBackend string `json:"attention_backend"`
	GraphMode        string `json:"graph_mode"`
	CachePolicy      string `json:"cache_policy"`
	// Extra holds user-given keys that are not one of the fields above.
	Extra map[string]string `json:"extra,omitempty"`
}

// WorkloadInfo identifies the request population.
type WorkloadInfo struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Count  int    `json:"count"`
	// TokenizerHash is the workload header's tokenizer_hash: the tokenizer
	// its prompts were made or counted with ("" when none).
	TokenizerHash string `json:"tokenizer_hash,omitempty"`
}

// LoadPolicy is the offered load of one measured run.
type LoadPolicy struct {
	// Mode is "concurrency" (closed loop), "rate" (open loop) or "trace"
	// (every request carries its own arrival offset).
	Mode             Mode    `json:"mode"`
	Concurrency      int     `json:"concurrency,omitempty"`
	Rate             float64 `json:"rate,omitempty"` // requests/s
	Arrival          string  `json:"arrival,omitempty"`
	Burstiness       float64 `json:"burstiness,omitempty"`
	MaxConcurrency   int     `json:"max_concurrency,omitempty"` // 0 = no cap
	Seed             int64   `json:"seed"`
	Warmup           int     `json:"warmup"`
	DurationS        float64 `json:"duration_s,omitempty"` // 0 = whole workload
	Drain            string  `json:"drain"`
	DrainTimeoutS    float64 `json:"drain_timeout_s"` // 0 = no limit
	RequestTimeoutS  float64 `json:"request_timeout_s"`
	ResetPrefixCache bool    `json:"reset_prefix_cache"`
	Requests         int     `json:"requests"` // measured requests offered
}

// Phases are the measured run's time windows. Times are seconds from the
// start of the measured phase (t=0 is the first measured request's
// scheduled send time).
type Phases struct {
	// Warmup covers the warmup requests (before t=0); its window is given
	// relative to its own start.
	Warmup Phase `json:"warmup"`
	// Steady is [t=0, sending stopped]: the window in which the offered
	// load was held. Sending stops at the last measured request's actual
	// send, or at the --duration deadline or the interrupt when one of
	// them cut the workload short.
	Steady Phase `json:"steady"`
	// Drain is (sending stopped, last request finished].
	Drain Phase `json:"drain"`
}

// Phase is one time window. Counts are of events inside the window:
// sends, completions (successful or not) and output tokens by chunk arrival
// time. Output tokens are those of successful requests and of requests the
// run itself cancelled (drain rule, drain timeout, interrupt), which the
// server did produce inside the window; a failed request's partial output
// never counts. Throughputs divide by DurationS (0 when the window is
// empty).
type Phase struct {
	StartS            float64 `json:"start_s"`
	EndS              float64 `json:"end_s"`
	DurationS         float64 `json:"duration_s"`
	RequestsSent      int     `json:"requests_sent"`
	RequestsCompleted int     `json:"requests_completed"`
	RequestsOK        int     `json:"requests_ok"`
	RequestsFailed    int     `json:"requests_failed"`
	OutputTokens      int64   `json:"output_tokens"`
	RequestThroughput float64 `json:"request_throughput"` // completed ok requests/s
	OutputThroughput  float64 `json:"output_throughput"`  // output tokens/s
	MeanConcurrency   float64 `json:"mean_concurrency"`
}

// Dist summarises a sample: mean, sample standard deviation (n−1; 0 when
// Count < 2), percentiles and maximum. When Count is 0 every field is 0.
// Percentiles are gonum stat.Quantile with stat.LinInterp on the sorted
// sample: for p and n values, h = p·n and the result is
// x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]) with 1-based x, and x[1] for h ≤ 1
// (Hyndman–Fan type 4).
type Dist struct {
	Mean  float64 `json:"mean"`
	Std   float64 `json:"std"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	Count int     `json:"count"`
}

// ChunkBin is one bar of the tokens-per-chunk histogram.
type ChunkBin struct {
	Tokens int   `json:"tokens"`
	Chunks int64 `json:"chunks"`
}

// Concurrency is the time-weighted number of requests in flight over the
// measured run (from t=0 to the last request's end).
type Concurrency struct {
	Mean float64 `json:"mean"`
	Max  int     `json:"max"`
}

// Summary is the measured run's headline figures. Latencies and token
// counts use successful requests only; failed and cancelled requests are
// counted, never averaged in.
type Summary struct {
	RequestsOK        int            `json:"requests_ok"`
	RequestsFailed    int            `json:"requests_failed"`
	RequestsCancelled int            `json:"requests_cancelled"` // stopped by the drain rule or Ctrl-C
	RequestsNotSent   int            `json:"requests_not_sent"`  // left unsent (duration or interrupt)
	FailedByClass     map[string]int `json:"failed_by_class"`
	InputTokens       int64          `json:"input_tokens"`
	OutputTokens      int64          `json:"output_tokens"`
	// UsageMissing counts ok requests whose server sent no usage; their
	// token counts come from the chunks.
	UsageMissing int `json:"usage_missing"`
	// InputTokensUnknown counts ok requests with neither usage nor a
	// token-id prompt: their input tokens are not known and count 0 in
	// InputTokens and InputThroughput.
	InputTokensUnknown int `json:"input_tokens_unknown"`
	// DurationS runs from t=0 to the end of the last request (drain
	// included); the throughputs below divide by it.
	DurationS         float64 `json:"duration_s"`
	RequestThroughput float64 `json:"request_throughput"` // ok requests/s
	InputThroughput   float64 `json:"input_throughput"`   // input tokens/s
	OutputThroughput  float64 `json:"output_throughput"`  // output tokens/s
	// CompletionTimeS is the fixed-workload completion time (t=0 until the
	// last request ends); null when not every request was sent and finished
	// (duration mode, cancel drain, interrupt).
	CompletionTimeS *float64 `json:"completion_time_s"`

	TTFT           Dist        `json:"ttft_ms"`
	TPOT           Dist        `json:"tpot_ms"`
	ITL            Dist        `json:"itl_ms"`           // gaps between consecutive content chunks
	ITLPerToken    Dist        `json:"itl_per_token_ms"` // chunk gap then k−1 zeros for a k-token chunk
	E2E            Dist        `json:"e2e_ms"`
	SendLag        Dist        `json:"send_lag_ms"` // actual − scheduled send, every sent request
	CapDelayed     int         `json:"cap_delayed"` // requests that waited for a --max-concurrency slot
	Concurrency    Concurrency `json:"concurrency"`
	TokensPerChunk []ChunkBin  `json:"tokens_per_chunk"`
	// LengthMismatches counts ok fixed-length requests whose
	// completion_tokens differ from the requested length.
	LengthMismatches int `json:"length_mismatches"`
	// ChunkTokenMismatches counts ok requests whose per-chunk token counts
	// do not add up to completion_tokens (a server that coalesces tokens
	// without continuous usage or token_ids): for them itl_per_token_ms and
	// tokens_per_chunk assume one token per chunk. Requests counted in
	// EOSNotStreamed or EmptyTextTokens are not counted here.
	ChunkTokenMismatches int `json:"chunk_token_mismatches"`
	// EOSNotStreamed counts ok requests that stopped at the end-of-sequence
	// token (finish_reason "stop") whose usage counts one token more than
	// their chunks carry: the engine (llama.cpp) counts the EOS token,
	// which it never streams.
	EOSNotStreamed int `json:"eos_not_streamed"`
	// EmptyTextTokens counts ok requests whose usage counts more tokens
	// than their content chunks (EOS aside) by no more than their chunks
	// without content: tokens streamed with empty text, one per chunk (a
	// token that decodes to nothing, or bytes held back until a character
	// is complete). Not counted in ChunkTokenMismatches.
	EmptyTextTokens int `json:"empty_text_tokens"`
	// Retried counts sent requests (ok or not) that failed on a reused
	// connection before any byte of the response arrived, so never
	// reached the server, and were sent again once on a fresh connection.
	Retried int `json:"retried"`
	// CachedTokens sums usage.prompt_tokens_details.cached_tokens over the
	// ok requests that report it (CachedReported of them); CachedShare is
	// CachedTokens over those requests' prompt tokens, null when none
	// reports it.
	CachedTokens   int64    `json:"cached_tokens"`
	CachedReported int      `json:"cached_reported"`
	CachedShare    *float64 `json:"cached_share"`
	// ImpliedReuseShare is, for a trace replay whose every request was
	// sent, the share of prompt tokens the trace's shared prefixes let an
	// unbounded prefix cache that starts empty reuse (the workload
	// header's; tracecache.go); absent otherwise.
	ImpliedReuseShare *float64 `json:"implied_prefix_reuse_share,omitempty"`
	// ServerTimings compares the client's clock with the engine's own
	// per-request timings; nil when no ok request carried any.
	ServerTimings *TimingCheck `json:"server_timings,omitempty"`
	// TokenCheck compares usage with the client's tokenizer counts; only
	// with Config.Tokenizer (tokencount.go).
	TokenCheck *TokenCheck `json:"token_check,omitempty"`
	// Energy is the engine's GPU energy over the step's window (t=0 to
	// the last request's end: DurationS) and the figures per output token,
	// per request, per GPU and per watt; absent without GPU telemetry.
	Energy *Energy `json:"energy,omitempty"`
	// SLOResult is set when the run was given an SLO (benchmark --slo):
	// its fields (slo, goodput_rps, slo_attainment, ...) sit inline.
	*SLOResult
}

// Sweep is a series of measured runs over offered concurrency or rate.
type Sweep struct {
	Kind      Mode      `json:"kind"` // ModeConcurrency or ModeRate
	Values    []float64 `json:"values"`
	Threshold float64   `json:"threshold"`
	// SaturationAt is the value of the first step after which no later
	// step improves output throughput by more than Threshold (relative);
	// null when every step is still improving.
	SaturationAt *float64    `json:"saturation_at"`
	Saturated    bool        `json:"saturated"`
	Steps        []SweepStep `json:"steps"`
	// Capacity is the highest offered load that met the SLO; nil without
	// an SLO that has a distribution threshold.
	Capacity *CapacityResult `json:"capacity,omitempty"`
}

// SweepStep is one sweep value's run. An Incomplete step was cut short by
// an interrupt: its figures cover what it measured, and it never decides
// the saturation point.
type SweepStep struct {
	Value      float64    `json:"value"`
	Incomplete bool       `json:"incomplete,omitempty"`
	Load       LoadPolicy `json:"load"`
	Phases     Phases     `json:"phases"`
	Summary    Summary    `json:"summary"`
	Warnings   []string   `json:"warnings,omitempty"`
	// StartedAt is the step's t=0 and EndedAt its last request's end, on
	// the wall clock (UTC).
	StartedAt time.Time `json:"started_at,omitzero"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
}

// Record is one request's raw measurement (one line of records.jsonl).
// Send times are seconds from t=0 of the request's step; chunk times and
// latencies are milliseconds from the request's actual send.
type Record struct {
	// RunID and WorkloadSHA256 tie the record to its result: the run's
	// Result.RunID and Workload.SHA256 (RecordSchema); empty in records
	// of PreviousRecordSchema and before.
	RunID          string `json:"run_id,omitempty"`
	WorkloadSHA256 string `json:"workload_sha256,omitempty"`
	// Shard is the shard that sent the request, in the records of a
	// sharded run (a shard's or the merged ones); absent otherwise.
	Shard *ShardRef `json:"shard,omitempty"`

	ID         string  `json:"id"`
	Step       int     `json:"step"`
	OK         bool    `json:"ok"`
	ErrorClass string  `json:"error_class,omitempty"`
	Error      string  `json:"error,omitempty"`
	ScheduledS float64 `json:"scheduled_s"`
	SentS      float64 `json:"sent_s"`
	CapDelayed bool    `json:"cap_delayed,omitempty"`
	// SentAt and DoneAt are the actual send and the stream's end on the
	// wall clock (UTC); absent in records written before they existed.
	SentAt time.Time `json:"sent_at,omitzero"`
	DoneAt time.Time `json:"done_at,omitzero"`
	// TTFTMs is the first content chunk's arrival; 0 when none arrived.
	TTFTMs float64 `json:"ttft_ms"`
	// E2EMs is the last content chunk's arrival (the time of failure for a
	// failed request); DoneMs is when the stream ended ([DONE] or close).
	// Both latencies are written as null for a failed request and for one
	// without content (Latencies, RecordSchema); DoneMs keeps the time.
	E2EMs        float64   `json:"e2e_ms"`
	DoneMs       float64   `json:"done_ms"`
	ChunkTimesMs []float64 `json:"chunk_times_ms"`
	ChunkTokens  []int     `json:"chunk_tokens"`
	PromptTokens int       `json:"prompt_tokens"`
	// CompletionTokens is usage.completion_tokens when UsageReported, else
	// the sum of ChunkTokens.
	CompletionTokens int    `json:"completion_tokens"`
	UsageReported    bool   `json:"usage_reported"`
	FinishReason     string `json:"finish_reason"`
	FixedLength      bool   `json:"fixed_length,omitempty"`
	RequestedTokens  int    `json:"requested_tokens"`
	LengthMismatch   bool   `json:"length_mismatch,omitempty"`
	// EmptyChunks counts chunks with a choice but no content, no
	// finish_reason and no usage (a chat role chunk, or a token whose text
	// is empty or held back, which llama.cpp streams as "").
	EmptyChunks int `json:"empty_chunks,omitempty"`
	// CachedTokens is usage.prompt_tokens_details.cached_tokens, the
	// prompt tokens the server took from its prefix cache; absent when the
	// server did not report it.
	CachedTokens *int `json:"cached_tokens,omitempty"`
	// Retried is set when the first send failed on a reused connection
	// before any response byte (RetryReason says how) and the request was
	// sent again on a fresh connection. Latencies count from the first
	// send.
	Retried     bool   `json:"retried,omitempty"`
	RetryReason string `json:"retry_reason,omitempty"`
	// ServerTimings are the engine's own timings of this request, when it
	// reports them (llama.cpp's "timings" in the last chunk).
	ServerTimings *ServerTimings `json:"server_timings,omitempty"`
	// ClientPromptTokens and ClientCompletionTokens are the benchmark
	// tokenizer's counts of the prompt text sent and the answer text
	// received (tokencount.go); absent without --tokenizer.
	ClientPromptTokens     int `json:"client_prompt_tokens,omitempty"`
	ClientCompletionTokens int `json:"client_completion_tokens,omitempty"`
}

// RunIDLen is the length of a run id: hex digits of 64 random bits, so
// that two runs share one with a chance of about n²/2⁶⁵ among n runs.
const RunIDLen = 16

// DefaultMaxFailedShare is the share of failed requests above which a
// benchmark is a failure of its own kind (the command's exit code 4): a
// run where that many requests failed measures the failures, not the
// server.
const DefaultMaxFailedShare = 0.1

// FailedShare is the share of requests that failed among those that
// ended on their own (ok or failed; requests the run cancelled are
// neither), over every measured step of a sweep. It is 0 when none ended.
func (r *Result) FailedShare() float64 {
	sums := []*Summary{&r.Summary}
	if r.Sweep != nil && len(r.Sweep.Steps) > 0 {
		sums = sums[:0]
		for i := range r.Sweep.Steps {
			sums = append(sums, &r.Sweep.Steps[i].Summary)
		}
	}
	ok, failed := 0, 0
	for _, s := range sums {
		ok += s.RequestsOK
		failed += s.RequestsFailed
	}
	if ok+failed == 0 {
		return 0
	}
	return float64(failed) / float64(ok+failed)
}

// WriteResult writes res as indented JSON to the file path (atomicfile),
// or to stdout when path is "-". An error writing the file names it.
func WriteResult(path string, stdout io.Writer, res *Result) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // SLO thresholds keep their "<="
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return err
	}
	b := buf.Bytes()
	var err error
	if path == "-" {
		_, err = stdout.Write(b)
		return err
	}
	return atomicfile.Write(path, b)
}
