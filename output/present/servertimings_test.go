package present

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
)

func TestRequestChecksText(t *testing.T) {
	share := 0.75
	for _, tc := range []struct {
		name string
		s    result.Summary
		want []string
		not  []string
	}{
		{"none", result.Summary{RequestsOK: 3}, nil, []string{"retried", "prompt cache", "client − server", "eos"}},
		{"all", result.Summary{RequestsOK: 4, Retried: 2, CachedShare: &share, CachedTokens: 30, CachedReported: 4, EOSNotStreamed: 1, EmptyTextTokens: 2,
			ServerTimings: &result.TimingCheck{Requests: 4, TTFTMinusPromptMs: result.Dist{Mean: 1.25, Count: 4}}},
			[]string{"2 requests (failed on a reused connection", "75.0% of prompt tokens cached", "eos not streamed", "2 requests streamed some tokens as chunks with empty text", "ttft − prompt_ms", "1.250", "by n−1 gaps"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteBenchmarkText(&buf, &result.Result{Summary: tc.s}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("text lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("text has %q:\n%s", w, out)
				}
			}
		})
	}
}
