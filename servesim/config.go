// Package servesim is a simulated OpenAI-compatible LLM serving engine for
// demos and tests. It is not part of any measurement.
//
// The simulator models continuous batching with one scheduler goroutine
// and real time. Each step admits waiting sequences (FIFO) while fewer
// than MaxRunning run and their tokens fit in the KV cache, prefills them
// (PrefillPerToken × prompt tokens not found in the prefix cache; a
// sequence readmitted after preemption recomputes its prompt and output),
// then runs one decode step for the whole batch (DecodeBase + DecodePerSeq
// × batch size). At the end of the step every running sequence emits one
// token. With every delay zero the scheduler never sleeps.
//
// Outputs are deterministic: token ids come from a hash of Seed, the
// prompt (and the request's sampling seed when temperature > 0) and the
// position; a token's text is " " + a fixed pseudo-word for its id. A
// sequence stops at max_tokens, or early at a pseudo-EOS (probability
// EOSProb per token) unless the request sends ignore_eos, or min_tokens
// covers the position. Text prompts are tokenised one token per
// whitespace-separated word; a chat prompt counts its role and content
// words plus 3 template tokens per message and 1 opening the reply.
//
// Fault injection (HTTP 500, in-band stream error, stall, connection
// reset) is decided per request from Seed and the prompt, so the same
// request meets the same fault on every run; a mid-stream fault strikes
// at a token position drawn the same way. Stalls and resets apply to
// streams only; a non-streaming request drawn for a mid-stream error gets
// HTTP 500.
//
// The prefix cache keeps hashes of whole BlockSize-token prompt blocks;
// hits and queries are counted in tokens, as vLLM does, and the last
// block of a fully cached prompt is recomputed.
//
// With ProfileDir set it serves the imitated engine's profiler endpoints
// and writes a PyTorch-profiler trace of the steps inside each window,
// whose device time is the cost model's (profiler.go, trace.go).
//
// Times are time.Duration; rates are probabilities in [0, 1].
package servesim

import (
	"errors"
	"fmt"
	"time"
)

// Config sets the simulated engine. The zero value is a valid, fast
// (delay-free) engine; DefaultConfig gives realistic delays.
type Config struct {
	// MaxRunning caps the running batch (default 256).
	MaxRunning int
	// PrefillPerToken is the prefill cost of one uncached prompt token.
	PrefillPerToken time.Duration
	// DecodeBase and DecodePerSeq give a decode step's duration:
	// DecodeBase + DecodePerSeq × running sequences.
	DecodeBase, DecodePerSeq time.Duration
	// KVCacheTokens is the KV-cache capacity in tokens (default 1<<20).
	// A request whose prompt + max_tokens exceeds it is rejected; when the
	// running sequences outgrow it, the newest is preempted.
	KVCacheTokens int
	// BlockSize is the prefix-cache block in tokens (default 16).
	BlockSize int
	// MaxModelLen, when > 0, rejects prompt + max_tokens above it.
	MaxModelLen int

	Seed int64
	// Vocab is the output token-id range [3, Vocab) (default 32000).
	Vocab int
	// EOSProb is the chance per token of a pseudo-EOS (default 0.005;
	// negative: never).
	EOSProb float64
	// TokensPerChunk groups tokens into SSE chunks (default 1), as
	// speculative decoding or server-side coalescing does.
	TokensPerChunk int

	// Fault injection, each a per-request probability.
	ErrorRate          float64       // HTTP 500 before any output
	MidStreamErrorRate float64       // in-band {"error": ...} event mid-stream
	StallRate          float64       // pause StallFor mid-stream
	StallFor           time.Duration // default 1 s
	ResetRate          float64       // close the connection mid-stream

	ModelName  string // default "sim-model"
	EngineName string // owned_by in /v1/models and the /metrics dialect: "vllm" (default) or "sglang"
	Version    string // GET /version (default "0.0.0-sim")
	// OldMetricNames exposes vllm:gpu_cache_usage_perc instead of
	// vllm:kv_cache_usage_perc.
	OldMetricNames bool
	// APIKey, when set, makes every /v1/ endpoint answer 401 to a request
	// without "Authorization: Bearer APIKey", as vLLM's --api-key does.
	APIKey string
	// Strict rejects request bodies with unknown fields (HTTP 400), as
	// trtllm-serve does.
	Strict bool
	// ProfileDir, when set, serves the profiler endpoints of EngineName
	// (see profiler.go) and writes the traces there.
	ProfileDir string
	// GPU, with GPU.Count > 0, serves simulated GPU telemetry on
	// GPUMetricsPath (gpu.go).
	GPU GPUSim
}

// DefaultConfig is a small GPU-like engine: a 64-sequence batch, 8 ms
// decode steps growing by 0.1 ms per sequence, 20 µs per prefill token.
func DefaultConfig() Config {
	return Config{
		MaxRunning:      64,
		PrefillPerToken: 20 * time.Microsecond,
		DecodeBase:      8 * time.Millisecond,
		DecodePerSeq:    100 * time.Microsecond,
		GPU:             GPUSim{IdleWatts: 70, WattsPerSeq: 8},
	}
}

func (c *Config) fill() {
	if c.MaxRunning <= 0 {
		c.MaxRunning = 256
	}
	if c.KVCacheTokens <= 0 {
		c.KVCacheTokens = 1 << 20
	}
	if c.BlockSize <= 0 {
		c.BlockSize = 16
	}
	if c.Vocab <= firstTokenID {
		c.Vocab = 32000
	}
	if c.EOSProb == 0 {
		c.EOSProb = 0.005
	}
	if c.TokensPerChunk <= 0 {
		c.TokensPerChunk = 1
	}
	if c.StallFor <= 0 {
		c.StallFor = time.Second
	}
	if c.ModelName == "" {
		c.ModelName = "sim-model"
	}
	if c.EngineName == "" {
		c.EngineName = "vllm"
	}
	if c.Version == "" {
		c.Version = "0.0.0-sim"
	}
}

// Validate reports a configuration the simulator cannot run.
func (c Config) Validate() error {
	var errs []error
	rates := []struct {
		name string
		p    float64
	}{{"error rate", c.ErrorRate}, {"mid-stream error rate", c.MidStreamErrorRate}, {"stall rate", c.StallRate}, {"reset rate", c.ResetRate}}
	for _, r := range rates {
		if r.p < 0 || r.p > 1 || r.p != r.p {
			errs = append(errs, fmt.Errorf("%s must be in [0, 1], got %v", r.name, r.p))
		}
	}
	if c.EOSProb > 1 {
		errs = append(errs, fmt.Errorf("EOS probability must be <= 1, got %v", c.EOSProb))
	}
	if c.PrefillPerToken < 0 || c.DecodeBase < 0 || c.DecodePerSeq < 0 || c.StallFor < 0 {
		errs = append(errs, errors.New("delays must be >= 0"))
	}
	if err := c.GPU.validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}
