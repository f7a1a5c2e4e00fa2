package benchmark

import (
	"fmt"

	"github.com/servecmp/servecmp/benchmark/result"
)

// CachedShareWarn is the share of prompt tokens served from the prefix
// cache above which a run warns that it measured cache hits.
const CachedShareWarn = 0.5

// requestWarnings adds the warning about prompt-cache hits that one
// measured step's summary calls for: more than CachedShareWarn of the
// prompt tokens cached, beyond what the workload's own shared prefixes
// explain (self, a share); a trace replay's reuse is checked against the
// trace's own (tracecache.go). Retries on a fresh connection, EOS tokens
// counted but not streamed and tokens streamed with empty text are how
// an engine behaves, not a fault of the run: the summary (and its text)
// states them, and they are not warned about.
func requestWarnings(w *warnings, sum *result.Summary, self float64) {
	cachedReuseWarning(w, sum) // a trace replay's own check (tracecache.go)
	if sh := sum.CachedShare; sh != nil && *sh > CachedShareWarn && sum.ImpliedReuseShare == nil && *sh > self+warmMargin {
		w.add(fmt.Sprintf("the server's prompt cache served %.1f%% of the prompt tokens (usage.prompt_tokens_details.cached_tokens, %d of %d requests reporting), more than the workload's own shared prefixes explain (at most %.1f%%): TTFT measures cache hits, not prefill; reset or disable the cache for prefill figures", 100**sh, sum.CachedReported, sum.RequestsOK, 100*self))
	}
}

// noCacheHits reports whether every step's ok requests reported their
// cached prompt tokens and at most the share allowed of them was cached:
// the prefix cache, reset or not, served nothing beyond the workload's
// own repeats.
func noCacheHits(steps []result.SweepStep, allowed float64) bool {
	for i := range steps {
		s := &steps[i].Summary
		if s.CachedShare == nil || (s.CachedTokens > 0 && *s.CachedShare > allowed) || s.CachedReported < s.RequestsOK {
			return false
		}
	}
	return len(steps) > 0
}
