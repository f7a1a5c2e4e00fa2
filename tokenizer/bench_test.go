package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
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

// benchFamilies are the files the family benchmarks encode: the shared
// test data and, when fetched, the current families of the oracle tests.
func benchFamilies(b *testing.B) map[string]string {
	files := map[string]string{}
	for _, rel := range []string{"hf/gpt2/tokenizer.json", "hf/llama3/tokenizer.json", "hf/qwen2.5/tokenizer.json", "hf/phi-3-mini/tokenizer.json",
		"gguf/ggml-vocab-llama-spm.gguf", "gguf/ggml-vocab-falcon.gguf", "gguf/ggml-vocab-bert-bge.gguf", "gguf/ggml-vocab-deepseek-llm.gguf"} {
		if p := filepath.Join(testdataDir, rel); fileExistsB(p) {
			files[rel] = p
		}
	}
	dir := os.Getenv("SERVECMP_TOKENIZER_CACHE")
	if dir == "" {
		if c, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(c, "servecmp-tokenizers")
		}
	}
	for _, f := range families {
		if f.rel != "" {
			if p := filepath.Join(dir, "node_modules", f.rel); fileExistsB(p) {
				files[f.name] = p
			}
		}
	}
	if len(files) == 0 {
		b.Skip("no tokenizer files")
	}
	return files
}

// reportCPURate reports MB per CPU second of the process ("cpu-MB/s"), the
// per-core figure that stays meaningful when other processes share the
// machine (wall-time MB/s then understates it). GC work on other threads
// is counted too.
func reportCPURate(b *testing.B, cpu time.Duration, bytes int) {
	if cpu > 0 {
		b.ReportMetric(float64(bytes)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}

func fileExistsB(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// BenchmarkEncodeFamilies encodes plain English (the bundled corpus) with
// an empty word cache on every pass and reports MB/s per core; the goal,
// at least 5 MB/s for every family, is checked by make bench.
func BenchmarkEncodeFamilies(b *testing.B) {
	texts := workloadTexts(256)
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	files := benchFamilies(b)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			tok := mustLoad(b, files[name])
			b.SetBytes(int64(size))
			runtime.GC()
			b.ResetTimer()
			cpu := processCPU()
			for range b.N {
				tok.mu.Lock()
				clear(tok.cache)
				tok.mu.Unlock()
				for _, s := range texts {
					tok.Encode(s)
				}
			}
			reportCPURate(b, processCPU()-cpu, b.N*size)
		})
	}
}

// BenchmarkSplitScannerVsRegex splits plain English with each hand
// scanner, with the package's regex engine (the regex path of patterns
// without a scanner) and with regexp2 (its fallback) on the same pattern;
// the goal (the regex path at most 2x slower than the scanner) is checked
// by make bench.
func BenchmarkSplitScannerVsRegex(b *testing.B) {
	text := strings.Join(workloadTexts(64), "")
	patterns := map[string]string{
		"gpt2":   `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
		"llama3": llama3Head[0] + fmt.Sprintf(llama3Tail, "{1,3}"),
		"o200k":  o200kPattern,
	}
	for name, p := range patterns {
		fast, _ := fastMatcher(p)
		slow, err := newRegexMatcher(p)
		if err != nil {
			b.Fatal(err)
		}
		eng, err := newPatternMatcher(p)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := eng.(engineMatcher); !ok {
			b.Fatalf("%s: the pattern is outside the engine's subset", name)
		}
		for _, m := range []struct {
			kind string
			m    matcher
		}{{"scanner", fast}, {"engine", eng}, {"regexp2", slow}} {
			b.Run(name+"/"+m.kind, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				var buf []span
				cpu := processCPU()
				for range b.N {
					buf = m.m.find(text, buf[:0])
				}
				reportCPURate(b, processCPU()-cpu, b.N*len(text))
			})
		}
	}
}
