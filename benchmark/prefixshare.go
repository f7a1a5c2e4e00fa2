package benchmark

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/servecmp/servecmp/benchmark/workload"
)

// warmMargin is how far (a share of the prompt tokens) the prefix cache's
// hits may exceed what the workload's own shared prefixes explain before
// a run warns that its prompts were cached before it began.
const warmMargin = 0.05

// sharedPrefixShare is an upper bound of the share of the workload's
// prompt that a prefix cache can serve from the workload's own repeats
// within one run: for each prompt, the longest prefix it shares with any
// other prompt, summed and divided by the total prompt length. Token-id
// prompts count tokens; text and chat prompts count bytes (of the text,
// or of each message's role and content), which stand in for tokens. A
// workload of multi-turn sessions returns 1: later turns resend the
// conversation so far, which the cache is meant to serve.
func sharedPrefixShare(reqs []workload.Request) float64 {
	keys := make([][]int, 0, len(reqs))
	total := 0
	for i := range reqs {
		r := &reqs[i]
		if r.Session != "" {
			return 1
		}
		k := promptKey(r)
		keys = append(keys, k)
		total += len(k)
	}
	if total == 0 || len(keys) < 2 {
		return 0
	}
	slices.SortFunc(keys, slices.Compare[[]int])
	shared := 0
	prev := 0 // LCP of keys[i-1] and keys[i]
	for i := range keys {
		next := 0
		if i+1 < len(keys) {
			next = lcp(keys[i], keys[i+1])
		}
		shared += max(prev, next)
		prev = next
	}
	return float64(shared) / float64(total)
}

// promptKey is the prompt as a sequence to compare prefixes of: its token
// ids, or the bytes of its text or messages.
func promptKey(r *workload.Request) []int {
	if len(r.PromptTokens) > 0 {
		return r.PromptTokens
	}
	var k []int
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			k = append(k, int(s[i]))
		}
		k = append(k, -1) // a boundary no byte equals
	}
	add(r.Prompt)
	for _, m := range r.Messages {
		add(m.Role)
		add(m.Content)
	}
	return k
}

// lcp is the length of the longest common prefix of a and b.
func lcp(a, b []int) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// warmCacheWarning is the warning for a measured window whose prefix
// cache served hit (a share of the prompt tokens) when the workload's
// own repeats explain at most self: "" when they explain it, or when
// the cache was reset before the run.
func warmCacheWarning(hit, self float64, reset bool) string {
	if reset || hit <= self+warmMargin {
		return ""
	}
	return fmt.Sprintf("the server's prefix cache served %.1f%% of the prompt tokens, more than the workload's own shared prefixes explain (at most %.1f%%): its prompts were cached before this run began (an earlier run or step sent them) and the cache was not reset, so these figures are of a warm cache (--reset-prefix-cache, or reset_prefix_cache in an experiment file, measures every run from an empty cache)",
		100*hit, 100*cmp.Or(self, 0))
}
