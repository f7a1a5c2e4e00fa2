package benchmark

import "fmt"

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

// CachedShareWarn is the share of prompt tokens served from the prefix
// cache above which a run warns that it measured cache hits.
const CachedShareWarn = 0.5

// requestWarnings adds the warnings about retries, EOS accounting and
// prompt-cache hits that one measured step's summary calls for.
func requestWarnings(w *warnings, sum *Summary) {
	if sum.Retried > 0 {
		w.add(fmt.Sprintf("%d requests failed on a reused connection before any response byte (the server had closed it after its previous response) and were sent again once on a fresh connection (records: retried); they never reached the server the first time", sum.Retried))
	}
	if sum.EOSNotStreamed > 0 {
		w.add(fmt.Sprintf("%d successful requests stopped (finish_reason stop) with one token more in usage.completion_tokens than their chunks carry: the server counts the end-of-sequence (or stop) token, which it never streams (no tokens were coalesced)", sum.EOSNotStreamed))
	}
	if sum.EmptyTextTokens > 0 {
		w.add(fmt.Sprintf("%d successful requests streamed some tokens as chunks with empty text (a token that decodes to nothing, or bytes held back until a character is complete): usage counts them, the content chunks do not (no tokens were coalesced)", sum.EmptyTextTokens))
	}
	cachedReuseWarning(w, sum) // a trace replay's own check (tracecache.go)
	if sh := sum.CachedShare; sh != nil && *sh > CachedShareWarn && sum.ImpliedReuseShare == nil {
		w.add(fmt.Sprintf("the server's prompt cache served %.1f%% of the prompt tokens (usage.prompt_tokens_details.cached_tokens, %d of %d requests reporting): TTFT measures cache hits, not prefill; reset or disable the cache for prefill figures", 100**sh, sum.CachedReported, sum.RequestsOK))
	}
}

// noCacheHits reports whether every step's ok requests reported their
// cached prompt tokens and none was cached: the prefix cache, reset or
// not, served nothing.
func noCacheHits(steps []SweepStep) bool {
	for i := range steps {
		s := &steps[i].Summary
		if s.CachedShare == nil || s.CachedTokens > 0 || s.CachedReported < s.RequestsOK {
			return false
		}
	}
	return len(steps) > 0
}
