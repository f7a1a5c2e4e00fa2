package workload

import (
	"math"
	"slices"

	"github.com/servecmp/servecmp/internal/stats"
)

// Info summarises a workload file (workload info): its identity, prompt
// forms, length distributions in tokens and, for a trace replay, the
// trace it replays, its implied prefix reuse and its arrival rate per
// minute of trace.
type Info struct {
	File        string       `json:"file"`
	SHA256      string       `json:"sha256"`
	Requests    int          `json:"requests"`
	PromptKinds map[Kind]int `json:"prompt_kinds"`
	Header      *Header      `json:"header,omitempty"`
	// InputLen covers the requests that know their prompt length (token
	// ids, or counted with a tokenizer); nil when none does.
	InputLen    *LengthDist `json:"input_len"`
	MaxTokens   LengthDist  `json:"max_tokens"`
	FixedLength int         `json:"fixed_length"`
	WithArrival int         `json:"with_arrival"`
	Trace       *TraceInfo  `json:"trace,omitempty"`
}

// LengthDist is a distribution of lengths in tokens; percentiles are
// stats.Quantile's (the benchmark's definition).
type LengthDist struct {
	Count int     `json:"count"`
	Min   int     `json:"min"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   int     `json:"max"`
	Total int64   `json:"total"`
}

// TraceInfo describes a trace replay workload.
type TraceInfo struct {
	// ImpliedPrefixReuseShare is the header's: the share of prompt tokens
	// an unbounded prefix cache that starts empty could reuse.
	ImpliedPrefixReuseShare float64 `json:"implied_prefix_reuse_share"`
	// SpanS is the last arrival offset (seconds, as replayed).
	SpanS float64 `json:"span_s"`
	// Minutes of trace time the arrivals span (offset / time_scale), the
	// last one maybe partial; RatePerMinute counts the arrivals in each,
	// empty when there are more than MaxInfoMinutes.
	Minutes       int          `json:"minutes"`
	RatePerMinute []MinuteRate `json:"arrival_rate_per_minute"`
}

// MaxInfoMinutes bounds the minutes workload info lists (91 days).
const MaxInfoMinutes = 1 << 17

// MinuteRate is one minute of trace: its requests, their rate in trace
// time and the rate they are sent at (trace rate / time scale).
type MinuteRate struct {
	Minute    int     `json:"minute"`
	Requests  int     `json:"requests"`
	TraceRPS  float64 `json:"trace_rps"`
	ReplayRPS float64 `json:"replay_rps"`
}

// NewLengthDist summarises xs.
func NewLengthDist(xs []int) LengthDist {
	if len(xs) == 0 {
		return LengthDist{}
	}
	f := make([]float64, len(xs))
	var total int64
	for i, x := range xs {
		f[i] = float64(x)
		total += int64(x)
	}
	slices.Sort(f)
	return LengthDist{Count: len(xs), Min: int(f[0]), Max: int(f[len(f)-1]), Total: total,
		Mean: float64(total) / float64(len(xs)), P50: stats.Quantile(f, 0.5), P90: stats.Quantile(f, 0.9), P99: stats.Quantile(f, 0.99)}
}

// Describe summarises w.
func Describe(w *Workload) Info {
	st := w.Stats()
	in := Info{File: w.Path, SHA256: w.SHA256, Requests: len(w.Requests), PromptKinds: st.Kinds, Header: w.Header,
		MaxTokens: NewLengthDist(st.MaxTokens), FixedLength: st.FixedLen, WithArrival: st.WithArrive}
	if len(st.InputLens) > 0 {
		d := NewLengthDist(st.InputLens)
		in.InputLen = &d
	}
	if w.Header != nil && w.Header.Trace != nil {
		in.Trace = traceInfo(w.Requests, w.Header.Trace)
	}
	return in
}

// traceInfo bins the arrivals by minute of trace time.
func traceInfo(reqs []Request, src *TraceSource) *TraceInfo {
	ti := &TraceInfo{ImpliedPrefixReuseShare: src.ImpliedPrefixReuseShare, RatePerMinute: []MinuteRate{}}
	scale := src.TimeScale
	if !(scale > 0) {
		scale = 1
	}
	for i := range reqs {
		if a := reqs[i].ArrivalOffsetS; a != nil {
			ti.SpanS = math.Max(ti.SpanS, *a)
		}
	}
	minutes := math.Floor(ti.SpanS/scale/60) + 1
	if minutes > MaxInfoMinutes {
		ti.Minutes = int(min(minutes, math.MaxInt32))
		return ti
	}
	ti.Minutes = int(minutes)
	counts := make([]int, ti.Minutes)
	for i := range reqs {
		if a := reqs[i].ArrivalOffsetS; a != nil {
			counts[min(int(*a/scale/60), ti.Minutes-1)]++
		}
	}
	for m, n := range counts {
		ti.RatePerMinute = append(ti.RatePerMinute, MinuteRate{Minute: m, Requests: n, TraceRPS: float64(n) / 60, ReplayRPS: float64(n) / 60 / scale})
	}
	return ti
}
