package tokenizer

import (
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
)

// workloadTexts draws count corpus windows of about 1,000 tokens each
// (4,500 bytes of English prose).
func workloadTexts(count int) []string {
	rng := rand.New(rand.NewPCG(11, 12))
	src := DefaultCorpus()
	texts := make([]string, count)
	for i := range texts {
		texts[i] = src.Text(rng, 4500)[:4500]
	}
	return texts
}

// encodeAll encodes texts on two goroutines and returns the total tokens.
func encodeAll(tok *Tokenizer, texts []string) int {
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(texts); i += 2 {
				counts[w] += len(tok.Encode(texts[i]))
			}
		}(w)
	}
	wg.Wait()
	return counts[0] + counts[1]
}

// BenchmarkWorkload10k tokenizes a 10,000-request workload of ~1,000-token
// prompts on two goroutines with a cold cache (a fresh tokenizer per
// iteration); the goal, 10 s on 2 cores, is checked by make bench, never
// by a timed test.
func BenchmarkWorkload10k(b *testing.B) {
	needTestdata(b)
	texts := workloadTexts(10000)
	for _, rel := range []string{"hf/llama3/tokenizer.json", "hf/qwen2.5/tokenizer.json", "hf/phi-3-mini/tokenizer.json", "gguf/ggml-vocab-llama-spm.gguf", "gguf/ggml-vocab-falcon.gguf"} {
		b.Run(filepath.Base(filepath.Dir(rel))+"/"+filepath.Base(rel), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				tok := mustLoad(b, filepath.Join(testdataDir, rel)) // fresh, cold cache
				b.StartTimer()
				n := encodeAll(tok, texts)
				b.ReportMetric(float64(n)/1e4, "tokens/prompt")
			}
		})
	}
}

func benchmarkEncode(b *testing.B, rel string) {
	needTestdata(b)
	tok := mustLoad(b, filepath.Join(testdataDir, rel))
	texts := workloadTexts(256)
	b.ResetTimer()
	tokens := 0
	for i := 0; i < b.N; i++ {
		tokens += len(tok.Encode(texts[i%len(texts)]))
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkEncodeLlama3(b *testing.B)   { benchmarkEncode(b, "hf/llama3/tokenizer.json") }
func BenchmarkEncodeQwen25(b *testing.B)   { benchmarkEncode(b, "hf/qwen2.5/tokenizer.json") }
func BenchmarkEncodePhi3(b *testing.B)     { benchmarkEncode(b, "hf/phi-3-mini/tokenizer.json") }
func BenchmarkEncodeFalcon(b *testing.B)   { benchmarkEncode(b, "gguf/ggml-vocab-falcon.gguf") }
func BenchmarkEncodeLlamaSPM(b *testing.B) { benchmarkEncode(b, "gguf/ggml-vocab-llama-spm.gguf") }

// BenchmarkEncodeCold measures the merge loop without the word cache.
func BenchmarkEncodeCold(b *testing.B) {
	needTestdata(b)
	tok := mustLoad(b, filepath.Join(testdataDir, "hf/llama3/tokenizer.json"))
	texts := workloadTexts(64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tok.mu.Lock()
		clear(tok.cache)
		tok.mu.Unlock()
		tok.Encode(texts[i%len(texts)])
	}
}
