package tokenizer

import (
	"bytes"
	"encoding/json"
	"testing"
)

// tinyByteLevelJSON is a small byte-level BPE tokenizer.json: the 256 byte
// tokens, two merges and one added token.
func tinyByteLevelJSON() []byte {
	vocab := map[string]int{}
	for b := 0; b < 256; b++ {
		vocab[string(byteToRune[b])] = b
	}
	vocab["Ġt"] = 256
	vocab["Ġth"] = 257
	doc := map[string]any{
		"added_tokens": []any{map[string]any{"id": 258, "content": "<|end|>", "special": true}},
		"normalizer":   map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": `\p{N}`}, "behavior": "Isolated"},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
		}},
		"model": map[string]any{"type": "BPE", "vocab": vocab, "merges": []any{"Ġ t", []string{"Ġt", "h"}}, "ignore_merges": true},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return data
}

func tinySPMJSON() []byte {
	return []byte(`{"normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
		{"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
		"model": {"type": "BPE", "byte_fallback": true, "unk_token": "<unk>",
		"vocab": {"<unk>": 0, "<0x41>": 1, "▁": 2, "a": 3, "▁a": 4},
		"merges": ["▁ a"]}}`)
}

func TestTinyJSON(t *testing.T) {
	tok, err := parseHFJSON(tinyByteLevelJSON())
	if err != nil {
		t.Fatal(err)
	}
	// " the 42": \p{N} splits off the digits, the GPT-2 pattern cuts " the"
	// and " "; "Ġ t" then "Ġt h" merge; byte b has id b here.
	if got := tok.Encode(" the 42<|end|>"); !equalInts(got, []int{257, 'e', ' ', '4', '2', 258}) {
		t.Errorf("Encode = %v", got)
	}
	if s := tok.Decode(tok.Encode(" the 42<|end|>")); s != " the 42<|end|>" {
		t.Errorf("round trip %q", s)
	}
	spm, err := parseHFJSON(tinySPMJSON())
	if err != nil {
		t.Fatal(err)
	}
	if got := spm.Encode("a aA"); !equalInts(got, []int{4, 4, 1}) {
		t.Errorf("SentencePiece Encode = %v", got)
	}
	if s := spm.Decode([]int{4, 4, 1}); s != "a aA" {
		t.Errorf("SentencePiece Decode = %q", s)
	}
}

func FuzzGGUF(f *testing.F) {
	good := tinySPM()
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := loadGGUF(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if bytes.ContainsRune([]byte(err.Error()), '\n') {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		tok.Decode(tok.Encode("a b\n\tc ab é 12"))
	})
}

func FuzzTokenizerJSON(f *testing.F) {
	f.Add(tinyByteLevelJSON())
	f.Add(tinySPMJSON())
	f.Add([]byte(`{"model": {"merges": ["a b"], "vocab": {"a": 0, "b": 1, "ab": 2}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := parseHFJSON(data)
		if err != nil {
			return
		}
		tok.Decode(tok.Encode("a b\n\tc ab é 12"))
	})
}

// TestMetaspace: the Metaspace form prepends "▁" only where the text does
// not already start with one, and for "first" only at the start.
func TestMetaspace(t *testing.T) {
	doc := func(scheme string) []byte {
		return []byte(`{"pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "` + scheme + `", "split": false},
		"added_tokens": [{"id": 5, "content": "<x>", "special": true}],
		"model": {"type": "BPE", "byte_fallback": true, "vocab": {"<unk>": 0, "▁": 2, "a": 3, "▁a": 4, "▁▁": 6},
		"merges": ["▁ a", "▁ ▁"]}}`)
	}
	tests := []struct {
		scheme, text string
		want         []int
	}{
		{"always", "a", []int{4}},
		{"always", " a", []int{4}},
		{"always", "a<x>a", []int{4, 5, 4}},
		{"first", "a<x>a", []int{4, 5, 3}},
		{"first", "  a", []int{2, 4}},
	}
	for _, tc := range tests {
		tok, err := parseHFJSON(doc(tc.scheme))
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Encode(tc.text); !equalInts(got, tc.want) {
			t.Errorf("%s %q: %v, want %v", tc.scheme, tc.text, got, tc.want)
		}
	}
	if _, err := parseHFJSON([]byte(`{"pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "sometimes"}, "model": {"type": "BPE", "vocab": {}, "merges": []}}`)); err == nil {
		t.Error("Metaspace with an unknown scheme was accepted")
	}
}
