package result

import (
	"maps"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// NewDist summarises x (which it sorts in place). See Dist for the
// definitions; an empty sample gives the zero Dist.
func NewDist(x []float64) Dist {
	n := len(x)
	if n == 0 {
		return Dist{}
	}
	sort.Float64s(x)
	d := Dist{Count: n, Max: x[n-1]}
	if n == 1 {
		d.Mean = x[0]
	} else {
		d.Mean, d.Std = stat.MeanStdDev(x, nil)
	}
	q := func(p float64) float64 { return stat.Quantile(p, stat.LinInterp, x, nil) }
	d.P50, d.P90, d.P95, d.P99 = q(0.50), q(0.90), q(0.95), q(0.99)
	return d
}

// EndS is when the record's request ended, in seconds from t=0 of its
// step.
func (r *Record) EndS() float64 { return r.SentS + r.DoneMs/1000 }

// samples gathers the per-request samples behind a summary's
// distributions (milliseconds) and the tokens-per-chunk histogram.
type samples struct {
	ttft, tpot, itl, itlTok, e2e, lag []float64
	bins                              map[int]int64
}

// Summarize computes the summary of one measured run's records. notSent
// is the number of workload requests never sent; complete says whether the
// whole workload was sent and drained (so that the completion time is
// defined).
func NewSummary(recs []Record, notSent int, complete bool) Summary {
	s := Summary{FailedByClass: map[string]int{}, RequestsNotSent: notSent, TokensPerChunk: []ChunkBin{}}
	x := samples{bins: map[int]int64{}}
	end := 0.0
	for i := range recs {
		r := &recs[i]
		x.lag = append(x.lag, (r.SentS-r.ScheduledS)*1000)
		if r.CapDelayed {
			s.CapDelayed++
		}
		end = math.Max(end, r.EndS())
		if r.Retried {
			s.Retried++
		}
		switch {
		case r.OK:
			s.RequestsOK++
			s.countTokens(r)
			x.add(r)
		case r.ErrorClass == ClassCancelled:
			s.RequestsCancelled++
		default:
			s.RequestsFailed++
			s.FailedByClass[r.ErrorClass]++
		}
	}
	s.TTFT, s.TPOT, s.ITL, s.ITLPerToken, s.E2E, s.SendLag =
		NewDist(x.ttft), NewDist(x.tpot), NewDist(x.itl), NewDist(x.itlTok), NewDist(x.e2e), NewDist(x.lag)
	s.DurationS = end
	if end > 0 {
		s.RequestThroughput = float64(s.RequestsOK) / end
		s.InputThroughput = float64(s.InputTokens) / end
		s.OutputThroughput = float64(s.OutputTokens) / end
	}
	if complete && notSent == 0 && s.RequestsCancelled == 0 && len(recs) > 0 {
		ct := end
		s.CompletionTimeS = &ct
	}
	s.Concurrency = concurrency(recs, 0, end)
	s.cachedShare(recs)
	s.ServerTimings = timingCheck(recs)
	for _, k := range slices.Sorted(maps.Keys(x.bins)) {
		s.TokensPerChunk = append(s.TokensPerChunk, ChunkBin{Tokens: k, Chunks: x.bins[k]})
	}
	return s
}

// countTokens adds a successful request's token counts and its usage and
// length anomalies.
func (s *Summary) countTokens(r *Record) {
	s.InputTokens += int64(r.PromptTokens)
	s.OutputTokens += int64(r.CompletionTokens)
	if !r.UsageReported {
		s.UsageMissing++
		if r.PromptTokens == 0 {
			s.InputTokensUnknown++
		}
	}
	if r.LengthMismatch {
		s.LengthMismatches++
	}
	sum := 0
	for _, k := range r.ChunkTokens {
		sum += k
	}
	s.explainChunkTokens(r, sum)
}

// explainChunkTokens sorts out a request whose content chunks carry fewer
// tokens (sum) than its usage: an EOS token counted but never streamed
// (stopped with finish_reason "stop"), tokens streamed with empty text
// (at most one per chunk without content), or else chunks that coalesced
// tokens.
func (s *Summary) explainChunkTokens(r *Record, sum int) {
	missing := r.CompletionTokens - sum
	if missing == 0 {
		return
	}
	if !r.UsageReported || missing < 0 {
		s.ChunkTokenMismatches++
		return
	}
	if r.FinishReason == "stop" {
		s.EOSNotStreamed++
		missing--
	}
	switch {
	case missing == 0:
	case missing <= r.EmptyChunks:
		s.EmptyTextTokens++
	default:
		s.ChunkTokenMismatches++
	}
}

// cachedShare sums the prompt-cache hits of the ok requests that report
// them and their share of those requests' prompt tokens.
func (s *Summary) cachedShare(recs []Record) {
	var prompt int64
	for i := range recs {
		r := &recs[i]
		if !r.OK || r.CachedTokens == nil {
			continue
		}
		s.CachedReported++
		s.CachedTokens += int64(*r.CachedTokens)
		prompt += int64(r.PromptTokens)
	}
	if s.CachedReported > 0 && prompt > 0 {
		sh := float64(s.CachedTokens) / float64(prompt)
		s.CachedShare = &sh
	}
}

// add takes a successful request's latency samples: a k-token chunk adds
// its gap to the per-token ITL followed by k−1 zeros.
func (x *samples) add(r *Record) {
	x.e2e = append(x.e2e, r.E2EMs)
	if len(r.ChunkTimesMs) > 0 {
		x.ttft = append(x.ttft, r.TTFTMs)
	}
	if n := r.CompletionTokens; n > 1 && len(r.ChunkTimesMs) > 0 {
		x.tpot = append(x.tpot, (r.E2EMs-r.TTFTMs)/float64(n-1))
	}
	for j, t := range r.ChunkTimesMs {
		k := r.ChunkTokens[j]
		x.bins[k]++
		if j > 0 {
			g := t - r.ChunkTimesMs[j-1]
			x.itl = append(x.itl, g)
			x.itlTok = append(x.itlTok, g)
		}
		for range k - 1 {
			x.itlTok = append(x.itlTok, 0)
		}
	}
}

// concurrency is the time-weighted number of requests in flight over
// [from, to] (a request is in flight from its send to its end) and the
// peak inside that window.
func concurrency(recs []Record, from, to float64) Concurrency {
	type ev struct {
		t float64
		d int
	}
	evs := make([]ev, 0, 2*len(recs))
	for i := range recs {
		evs = append(evs, ev{recs[i].SentS, +1}, ev{recs[i].EndS(), -1})
	}
	// Ends sort before starts at the same instant, so back-to-back
	// requests of one closed-loop slot do not count twice.
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return a.d - b.d
	})
	var c Concurrency
	cur, area, last := 0, 0.0, from
	for _, e := range evs {
		if e.t > to {
			break
		}
		if e.t > from {
			c.Max = max(c.Max, cur) // in flight at or after from
			area += float64(cur) * (e.t - last)
			last = e.t
		}
		cur += e.d
		if e.t >= from {
			c.Max = max(c.Max, cur)
		}
	}
	if to > from {
		c.Max = max(c.Max, cur)
		area += float64(cur) * (to - last)
		c.Mean = area / (to - from)
	}
	return c
}

// phase computes the counts of one window [from, to] (seconds from t=0).
// A send at exactly from belongs to the window; ends and chunk arrivals
// count when from < t ≤ to, except that a window starting at 0 also takes
// events at 0.
func PhaseOf(recs []Record, from, to float64) Phase {
	p := Phase{StartS: from, EndS: to, DurationS: math.Max(to-from, 0)}
	in := func(t float64) bool { return (t > from || (from == 0 && t == 0)) && t <= to }
	for i := range recs {
		r := &recs[i]
		if in(r.SentS) {
			p.RequestsSent++
		}
		if r.ErrorClass != ClassCancelled && in(r.EndS()) {
			p.RequestsCompleted++
			if r.OK {
				p.RequestsOK++
			} else {
				p.RequestsFailed++
			}
		}
		if !r.OK && r.ErrorClass != ClassCancelled {
			continue
		}
		for j, t := range r.ChunkTimesMs {
			if in(r.SentS + t/1000) {
				p.OutputTokens += int64(r.ChunkTokens[j])
			}
		}
	}
	if p.DurationS > 0 {
		p.RequestThroughput = float64(p.RequestsOK) / p.DurationS
		p.OutputThroughput = float64(p.OutputTokens) / p.DurationS
	}
	p.MeanConcurrency = concurrency(recs, from, to).Mean
	return p
}

// phases splits a measured run at S, when sending stopped: the later of
// the last request's actual send and sendEnd (the --duration deadline or
// the interrupt, when one of them stopped sending; 0 otherwise).
// steady = [0, S], the window in which the offered load was held;
// drain = (S, end of the last request].
func SplitPhases(recs []Record, sendEnd float64) (steady, drain Phase) {
	end, stop := 0.0, sendEnd
	for i := range recs {
		end = math.Max(end, recs[i].EndS())
		stop = math.Max(stop, recs[i].SentS)
	}
	end = math.Max(end, stop)
	return PhaseOf(recs, 0, stop), PhaseOf(recs, stop, end)
}

// ServerTimings are an engine's own timings of one request, as llama.cpp
// reports them in its last chunk: milliseconds and tokens. PromptMs runs
// from the start of prompt processing to the first sampled token;
// PredictedMs from that first token to the last one, so it spans
// PredictedN−1 token gaps, while PredictedPerTokenMs divides it by
// PredictedN. CacheN prompt tokens came from the prompt cache and were
// not processed (PromptN were).
type ServerTimings struct {
	CacheN              int     `json:"cache_n"`
	PromptN             int     `json:"prompt_n"`
	PromptMs            float64 `json:"prompt_ms"`
	PredictedN          int     `json:"predicted_n"`
	PredictedMs         float64 `json:"predicted_ms"`
	PredictedPerTokenMs float64 `json:"predicted_per_token_ms"`
}

// TimingCheck is servecmp checking its own clock against the engine's,
// over the ok requests that carried server timings. Differences are
// client minus server, in milliseconds.
//
//   - TTFTMinusPromptMs: client TTFT − server prompt_ms. The client's
//     TTFT also holds the network, HTTP handling, tokenization, any wait
//     for a free slot and the first chunk's delivery, so it is never
//     expected below 0.
//   - TPOTMinusServerMs: client TPOT − server predicted_per_token_ms. The
//     definitions differ: TPOT divides the time from the first to the last
//     token by n−1 gaps, the server divides about the same span by n
//     tokens, so this difference is positive by about TPOT/n even with
//     equal clocks.
//   - TPOTMinusServerGapMs: client TPOT − predicted_ms/(predicted_n−1),
//     the server's time per gap: the like-for-like difference, expected
//     near 0.
type TimingCheck struct {
	Requests             int  `json:"requests"`
	TTFTMinusPromptMs    Dist `json:"ttft_minus_prompt_ms"`
	TPOTMinusServerMs    Dist `json:"tpot_minus_server_ms"`
	TPOTMinusServerGapMs Dist `json:"tpot_minus_server_gap_ms"`
}

// timingCheck compares the ok records' client figures with their server
// timings; nil when none carried any.
func timingCheck(recs []Record) *TimingCheck {
	var ttft, tpot, gap []float64
	n := 0
	for i := range recs {
		r := &recs[i]
		st := r.ServerTimings
		if !r.OK || st == nil || len(r.ChunkTimesMs) == 0 {
			continue
		}
		n++
		ttft = append(ttft, r.TTFTMs-st.PromptMs)
		if r.CompletionTokens > 1 {
			c := (r.E2EMs - r.TTFTMs) / float64(r.CompletionTokens-1)
			tpot = append(tpot, c-st.PredictedPerTokenMs)
			if st.PredictedN > 1 {
				gap = append(gap, c-st.PredictedMs/float64(st.PredictedN-1))
			}
		}
	}
	if n == 0 {
		return nil
	}
	return &TimingCheck{Requests: n, TTFTMinusPromptMs: NewDist(ttft), TPOTMinusServerMs: NewDist(tpot), TPOTMinusServerGapMs: NewDist(gap)}
}

// TokenCheck compares the server's usage counts with the client's counts
// under the benchmark's tokenizer (Config.Tokenizer), over successful
// requests whose server reported usage.
//
// The prompt comparison covers completions-endpoint requests (text and
// token-id prompts) only: for chat the server counts its chat template's
// tokens too, so chat prompts are counted (ClientChatPromptTokens) but not
// compared. Servers add a BOS to prompts and count a final EOS in the
// completion, so up to one extra server token per request is allowed
// before the difference counts: DiffPct is (server − client − allowance)
// / client × 100, where allowance is the part of server − client in
// [0, requests].
type TokenCheck struct {
	Tokenizer     string `json:"tokenizer"`
	TokenizerHash string `json:"tokenizer_hash"`
	Requests      int    `json:"requests"`

	PromptRequests     int     `json:"prompt_requests"`
	ServerPromptTokens int64   `json:"server_prompt_tokens"`
	ClientPromptTokens int64   `json:"client_prompt_tokens"`
	PromptDiffPct      float64 `json:"prompt_diff_pct"`

	ServerCompletionTokens int64   `json:"server_completion_tokens"`
	ClientCompletionTokens int64   `json:"client_completion_tokens"`
	CompletionDiffPct      float64 `json:"completion_diff_pct"`

	ClientChatPromptTokens int64 `json:"client_chat_prompt_tokens"`
}
