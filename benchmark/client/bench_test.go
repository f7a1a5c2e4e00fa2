package client

import (
	"fmt"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
)

// BenchmarkParseChunks measures the client's per-chunk CPU cost: SSE
// framing plus chunk decoding of vLLM-shaped completion chunks with
// continuous usage, fed in 32 KiB reads.
func BenchmarkParseChunks(b *testing.B) {
	var sb strings.Builder
	const n = 256
	for i := range n {
		fmt.Fprintf(&sb, `data: {"id":"cmpl-5b9c0d1e2f","object":"text_completion","created":1732900000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" word%d","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":512,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", i, 513+i, i+1)
	}
	sb.WriteString("data: [DONE]\n\n")
	in := []byte(sb.String())
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	rec := &result.Record{ChunkTimesMs: make([]float64, 0, n), ChunkTokens: make([]int, 0, n)}
	for b.Loop() {
		rec.ChunkTimesMs, rec.ChunkTokens = rec.ChunkTimesMs[:0], rec.ChunkTokens[:0]
		s := stream{rec: rec}
		var p sseParser
		for off := 0; off < len(in); off += 32 << 10 {
			_ = p.feed(in[off:min(off+32<<10, len(in))], s.event)
		}
		if len(rec.ChunkTimesMs) != n {
			b.Fatalf("%d chunks", len(rec.ChunkTimesMs))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
}
