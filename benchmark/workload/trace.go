package workload

import (
	"fmt"
	"math"
)

// Request traces (workload trace): a public trace's requests replayed with
// their own lengths, arrival times and, for Mooncake traces, the prompt
// prefixes they share.
//
// Units: trace timestamps are read to the nanosecond; an arrival offset is
// (timestamp − reference) × TimeScale in seconds, where the reference is
// the first line's timestamp plus StartS. Lengths are tokens. A Mooncake
// hash id names one block of BlockSize prompt tokens together with every
// block before it; each id must therefore always follow the same id (or
// start a prompt), which is checked. Lines must come in arrival order
// (timestamps never decrease): a trace out of order is refused, not
// sorted, because which request came first decides what a prefix cache
// holds.

// Trace formats.
const (
	TraceMooncake = "mooncake" // JSON Lines (or Parquet): timestamp, input_length, output_length, hash_ids
	TraceAzure    = "azure"    // CSV: TIMESTAMP, ContextTokens, GeneratedTokens
)

// Bounds of a trace: values outside them are refused where they are read.
const (
	// DefaultTraceBlockSize is the Mooncake traces' block (tokens per hash id).
	DefaultTraceBlockSize = 512
	MaxTraceBlockSize     = 1 << 16
	// MaxTraceLines bounds the lines (rows) read.
	MaxTraceLines = 1 << 24
	// MaxTraceLineBytes bounds one line of a JSONL or CSV trace.
	MaxTraceLineBytes = 1 << 24
	// MaxTraceBlocks bounds the hash ids of the requests kept, together.
	MaxTraceBlocks = 1 << 22
	// MaxTraceTimestampMs bounds a Mooncake timestamp (milliseconds; about
	// the year 2096 when counted from 1970).
	MaxTraceTimestampMs = 4e12
	// MinTraceTimeScale and MaxTraceTimeScale bound --time-scale.
	MinTraceTimeScale = 1e-6
	MaxTraceTimeScale = 1e6
	// maxTraceUnpacked bounds the bytes read out of a gzip-compressed trace.
	maxTraceUnpacked = 1 << 34
)

// TraceSpec says how a request trace becomes a workload.
type TraceSpec struct {
	Format    string  // TraceMooncake or TraceAzure
	BlockSize int     // tokens per hash id (0: DefaultTraceBlockSize)
	TimeScale float64 // arrival offsets are trace time × TimeScale (0: 1)
	StartS    float64 // leave out requests earlier than StartS s of trace time
	Limit     int     // keep at most Limit requests (0: all)
	Seed      uint64  // seeds the token ids of every block
	Vocab     int     // token ids are in [FirstTokenID, Vocab) (0: DefaultVocab)
	// FixedLength, Sampling and RequestSeeds shape every request as in
	// RandomSpec.
	FixedLength  bool
	Sampling     Sampling
	RequestSeeds bool
	// Text, when set, makes the prompts real text of the same lengths
	// under its tokenizer (Kind KindText); nil: token ids.
	Text *TextPrompts
}

// TraceSource is the workload header's record of the trace a workload
// was made from and how.
type TraceSource struct {
	File      string  `json:"file"`   // base name
	SHA256    string  `json:"sha256"` // hex sha256 of the file's bytes as stored
	Format    string  `json:"format"`
	BlockSize int     `json:"block_size"` // tokens per block (a hash id's, or a fresh block's)
	TimeScale float64 `json:"time_scale"`
	StartS    float64 `json:"start_s,omitempty"`
	Limit     int     `json:"limit,omitempty"`
	Seed      uint64  `json:"seed,omitempty"`
	Vocab     int     `json:"vocab,omitempty"` // token-id prompts only
	// ImpliedPrefixReuseShare is the share of the prompt tokens that lie
	// in a prefix some earlier request of the workload already sent: what
	// an unbounded prefix cache that starts empty could reuse (0 for a
	// trace without prefix information).
	ImpliedPrefixReuseShare float64 `json:"implied_prefix_reuse_share"`
}

// fill sets the defaults in spec's own copy and checks every setting; the
// error for a wrong one names the flag of workload trace that sets it.
func (spec *TraceSpec) fill() error {
	if spec.Format != TraceMooncake && spec.Format != TraceAzure {
		return fmt.Errorf("--format %q: want %s or %s", spec.Format, TraceMooncake, TraceAzure)
	}
	if spec.BlockSize == 0 {
		spec.BlockSize = DefaultTraceBlockSize
	}
	if spec.TimeScale == 0 {
		spec.TimeScale = 1
	}
	if spec.Vocab == 0 {
		spec.Vocab = DefaultVocab
	}
	switch {
	case spec.BlockSize < 1 || spec.BlockSize > MaxTraceBlockSize:
		return fmt.Errorf("--block-size must be in [1, %d], got %d", MaxTraceBlockSize, spec.BlockSize)
	case !(spec.TimeScale >= MinTraceTimeScale && spec.TimeScale <= MaxTraceTimeScale):
		return fmt.Errorf("--time-scale must be in [%g, %g], got %v", MinTraceTimeScale, MaxTraceTimeScale, spec.TimeScale)
	case !(spec.StartS >= 0 && spec.StartS <= MaxTraceTimestampMs/1000):
		return fmt.Errorf("--start must be a number of seconds >= 0, got %v", spec.StartS)
	case spec.Limit < 0 || spec.Limit > MaxTraceLines:
		return fmt.Errorf("--limit must be in [0, %d], got %d", MaxTraceLines, spec.Limit)
	case spec.Vocab <= FirstTokenID || spec.Vocab > math.MaxInt32:
		return fmt.Errorf("--vocab must be in (%d, %d], got %d", FirstTokenID, math.MaxInt32, spec.Vocab)
	}
	return nil
}

// check bounds a header's trace record, read from a workload file.
func (ts *TraceSource) check() error {
	switch {
	case ts.Format != TraceMooncake && ts.Format != TraceAzure:
		return fmt.Errorf("trace format %q: want %s or %s", ts.Format, TraceMooncake, TraceAzure)
	case ts.BlockSize < 1 || ts.BlockSize > MaxTraceBlockSize:
		return fmt.Errorf("trace block_size must be in [1, %d], got %d", MaxTraceBlockSize, ts.BlockSize)
	case !(ts.TimeScale >= MinTraceTimeScale && ts.TimeScale <= MaxTraceTimeScale):
		return fmt.Errorf("trace time_scale must be in [%g, %g], got %v", MinTraceTimeScale, MaxTraceTimeScale, ts.TimeScale)
	case !(ts.ImpliedPrefixReuseShare >= 0 && ts.ImpliedPrefixReuseShare <= 1):
		return fmt.Errorf("trace implied_prefix_reuse_share must be in [0, 1], got %v", ts.ImpliedPrefixReuseShare)
	case !(ts.StartS >= 0) || ts.Limit < 0 || ts.Vocab < 0:
		return fmt.Errorf("trace start_s, limit and vocab must be >= 0")
	}
	return nil
}

// Validate checks spec's settings as ReadTrace will (defaults for the
// zero values); the error for a wrong one names the flag. The CLI calls
// it first, so that a wrong setting is a usage error and a bad trace is
// not.
func (spec TraceSpec) Validate() error { return spec.fill() }
