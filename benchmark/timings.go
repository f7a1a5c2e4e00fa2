package benchmark

import (
	"fmt"

	"github.com/servecmp/servecmp/benchmark/result"
)

// CachedShareWarn is the share of prompt tokens served from the prefix
// cache above which a run warns that it measured cache hits.
const CachedShareWarn = 0.5

// requestWarnings adds the warnings about retries, EOS accounting and
// prompt-cache hits that one measured step's summary calls for.
func requestWarnings(w *warnings, sum *result.Summary) {
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
func noCacheHits(steps []result.SweepStep) bool {
	for i := range steps {
		s := &steps[i].Summary
		if s.CachedShare == nil || s.CachedTokens > 0 || s.CachedReported < s.RequestsOK {
			return false
		}
	}
	return len(steps) > 0
}
