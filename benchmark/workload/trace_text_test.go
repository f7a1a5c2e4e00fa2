package workload

import "testing"

// TestTraceText: with a tokenizer (byte-level BPE and SentencePiece
// families, tokenizer.json and GGUF) the prompts are text of exactly the
// trace's lengths, re-tokenized here, and every two prompts share exactly
// the tokens their hash ids imply, the shared blocks as the same text.
func TestTraceText(t *testing.T) {
	files := []string{"hf/llama3/tokenizer.json", "gguf/ggml-vocab-phi-3.gguf", "hf/qwen2.5/tokenizer.json", "hf/gpt2/tokenizer.json", "hf/phi-3-mini/tokenizer.json", "gguf/ggml-vocab-llama-spm.gguf"}
	if testing.Short() || raceEnabled {
		files = files[:2] // one byte-level BPE, one SentencePiece
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			tok := sharedTokenizer(t, file)
			gs := smallTrace(150, 12)
			gs.BlockSize, gs.DocMean, gs.UserMean = 32, 120, 40
			path, src := genTrace(t, gs, TraceMooncake)
			w, _, st := replay(t, path, TraceSpec{Format: TraceMooncake, BlockSize: 32, Seed: 4, Text: &TextPrompts{Tokenizer: tok}})
			h := w.Header
			if h.Prompt != KindText || h.TokenizerHash != tok.Hash() || h.Trace.Vocab != 0 || h.Trace.ImpliedPrefixReuseShare != st.ImpliedShare {
				t.Fatalf("header %+v %+v", h, h.Trace)
			}
			ids := make([][]int, len(w.Requests))
			for i, r := range w.Requests {
				ids[i] = tok.Encode(r.Prompt)
				if len(ids[i]) != src[i].Input || r.InputLen != src[i].Input {
					t.Fatalf("request %d: %d tokens, input_len %d, trace %d", i, len(ids[i]), r.InputLen, src[i].Input)
				}
			}
			for i := range w.Requests {
				for j := range i {
					imp := impliedLCP(src[i], src[j], gs.BlockSize)
					if got := lcp(ids[i], ids[j]); got != imp {
						t.Fatalf("requests %d and %d share %d tokens, their hash ids imply %d\n%q\n%q", j, i, got, imp, w.Requests[j].Prompt, w.Requests[i].Prompt)
					}
					if k := imp / gs.BlockSize * gs.BlockSize; k > 0 {
						a, b := w.Requests[i].Prompt, w.Requests[j].Prompt
						if n := len(tok.Decode(ids[i][:k])); a[:n] != b[:n] {
							t.Fatalf("requests %d and %d: the shared blocks' text differs", j, i)
						}
					}
				}
			}
		})
	}
}
