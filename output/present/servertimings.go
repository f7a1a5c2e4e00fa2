package present

import (
	"fmt"
	"io"

	"github.com/servecmp/servecmp/benchmark/result"
)

// writeRequestChecks writes the benchmark summary's rows about how the
// requests went beyond latency: retries on a fresh connection, the
// prompt-cache share, EOS tokens counted but not streamed, and the
// client-minus-server timing check (tab-separated, for the caller's
// tabwriter).
func writeRequestChecks(w io.Writer, s *result.Summary) {
	if s.Retried > 0 {
		fmt.Fprintf(w, "retried\t%d requests (failed on a reused connection before any response byte; sent again on a fresh one)\n", s.Retried)
	}
	if s.CachedShare != nil {
		fmt.Fprintf(w, "prompt cache\t%.1f%% of prompt tokens cached (%d tokens; %d of %d ok requests report cached_tokens)\n",
			100**s.CachedShare, s.CachedTokens, s.CachedReported, s.RequestsOK)
	}
	if s.EOSNotStreamed > 0 {
		fmt.Fprintf(w, "eos not streamed\t%d requests stopped at EOS, counted in usage but never streamed\n", s.EOSNotStreamed)
	}
	if s.EmptyTextTokens > 0 {
		fmt.Fprintf(w, "empty-text tokens\t%d requests streamed some tokens as chunks with empty text\n", s.EmptyTextTokens)
	}
	tc := s.ServerTimings
	if tc == nil {
		return
	}
	fmt.Fprintf(w, "\nclient − server ms\tmean\tstd\tp50\tp90\tp99\tmax\tcount\n")
	for _, d := range []struct {
		name string
		d    result.Dist
	}{
		{"ttft − prompt_ms", tc.TTFTMinusPromptMs},
		{"tpot − predicted_per_token_ms", tc.TPOTMinusServerMs},
		{"tpot − server gap", tc.TPOTMinusServerGapMs},
	} {
		fmt.Fprintf(w, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\n", d.name, d.d.Mean, d.d.Std, d.d.P50, d.d.P90, d.d.P99, d.d.Max, d.d.Count)
	}
	fmt.Fprintf(w, "timing check\tthe engine's own timings of %d requests: TTFT also holds network, HTTP, tokenization and any wait for a slot;\n", tc.Requests)
	fmt.Fprintf(w, "\tTPOT divides first-to-last token time by n−1 gaps, predicted_per_token_ms by n tokens;\n")
	fmt.Fprintf(w, "\tserver gap = predicted_ms/(predicted_n−1), the like-for-like figure\n")
}
