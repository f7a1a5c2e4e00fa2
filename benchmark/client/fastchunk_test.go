package client

import (
	"testing"
)

var chunkSeeds = []string{
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" hi","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":5,"total_tokens":6,"completion_tokens":1}}`,
	`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"choices":[{"index":0,"delta":{"content":"\u00e9\n"},"finish_reason":"stop"}],"usage":null}`,
	`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":0}}}`,
	`{"choices":[{"text":"a","token_ids":[1,2,3],"finish_reason":"length"}]}`,
	`{"choices":[{"delta":{"reasoning_content":"think"}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"id":"x"}]}}]}`,
	`{"error":{"message":"boom","code":500}}`,
	`{"object":"error","message":"bad"}`,
	`{"Choices":[{"Text":"a"}]}`,
	`{"choices":[{"text":"a"}],"choices":[]}`,
	`{"usage":{"prompt_tokens":1.5}}`,
	`{"choices":[{"text":"a"},{"text":"b","finish_reason":3}]}`,
	`null`, `[]`, `{}`, `{"a":[1,2,{"b":null}],"c":-0.5e+3}`, `{"choices":null}`,
}

// FuzzChunkDecode checks that the scanner, wherever it answers, agrees
// with encoding/json, and that decoding never panics.
func FuzzChunkDecode(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow chunkInfo
		var scratch wireChunk
		slowErr := slowChunk(data, &scratch, &slow)
		if fastChunk(data, &fast) {
			if slowErr != nil {
				t.Fatalf("scanner accepted %q, encoding/json: %v", data, slowErr)
			}
			if fast != slow {
				t.Fatalf("%q: scanner %+v, encoding/json %+v", data, fast, slow)
			}
		}
		var ci chunkInfo
		_ = decodeChunk(data, &scratch, &ci)
	})
}

func TestFastChunkCommonShapes(t *testing.T) {
	// The usual chunk shapes must take the fast path.
	for _, s := range chunkSeeds[:6] {
		var ci chunkInfo
		if !fastChunk([]byte(s), &ci) {
			t.Errorf("fell back on %s", s)
		}
	}
}

func TestChunkCachedAndTimings(t *testing.T) {
	for _, tc := range []struct {
		in         string
		fast       bool
		cached     int
		hasCached  bool
		timingsPtN int
	}{
		{`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":9}}}`, true, 9, true, -1},
		{`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":null}}}`, true, 0, false, -1},
		{`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"prompt_tokens_details":null}}`, true, 0, false, -1},
		{`{"choices":[{"text":"","finish_reason":"length"}],"usage":{"completion_tokens":5,"prompt_tokens":4,"prompt_tokens_details":{"cached_tokens":3}},` +
			`"timings":{"cache_n":3,"prompt_n":1,"prompt_ms":1.137,"prompt_per_token_ms":1.137,"predicted_n":5,"predicted_ms":2.384,"predicted_per_token_ms":0.4768}}`, false, 3, true, 1},
	} {
		var fast, ci chunkInfo
		var scratch wireChunk
		if got := fastChunk([]byte(tc.in), &fast); got != tc.fast {
			t.Errorf("%s: fast path %v, want %v", tc.in, got, tc.fast)
		}
		if err := decodeChunk([]byte(tc.in), &scratch, &ci); err != nil {
			t.Fatal(err)
		}
		if ci.cached != tc.cached || ci.hasCached != tc.hasCached {
			t.Errorf("%s: cached %d/%v, want %d/%v", tc.in, ci.cached, ci.hasCached, tc.cached, tc.hasCached)
		}
		switch {
		case tc.timingsPtN < 0 && ci.timings != nil:
			t.Errorf("%s: unexpected timings", tc.in)
		case tc.timingsPtN >= 0 && (ci.timings == nil || ci.timings.PromptN != tc.timingsPtN || ci.timings.PredictedPerTokenMs != 0.4768):
			t.Errorf("%s: timings %+v", tc.in, ci.timings)
		}
	}
}
