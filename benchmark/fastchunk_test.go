package benchmark

import "testing"

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
