package tokenizer

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// ggufBuilder writes GGUF v3 metadata for tests.
type ggufBuilder struct{ bytes.Buffer }

func (b *ggufBuilder) u32(v uint32) { binary.Write(&b.Buffer, binary.LittleEndian, v) }
func (b *ggufBuilder) u64(v uint64) { binary.Write(&b.Buffer, binary.LittleEndian, v) }
func (b *ggufBuilder) str(s string) { b.u64(uint64(len(s))); b.WriteString(s) }

func (b *ggufBuilder) header(nkv int) {
	b.WriteString("GGUF")
	b.u32(3)
	b.u64(0)
	b.u64(uint64(nkv))
}

func (b *ggufBuilder) kvString(k, v string) { b.str(k); b.u32(ggufString); b.str(v) }

func (b *ggufBuilder) kvStrings(k string, vs []string) {
	b.str(k)
	b.u32(ggufArray)
	b.u32(ggufString)
	b.u64(uint64(len(vs)))
	for _, v := range vs {
		b.str(v)
	}
}

func (b *ggufBuilder) kvFloats(k string, vs []float32) {
	b.str(k)
	b.u32(ggufArray)
	b.u32(ggufFloat32)
	b.u64(uint64(len(vs)))
	for _, v := range vs {
		b.u32(math.Float32bits(v))
	}
}

func (b *ggufBuilder) kvInts(k string, vs []int32) {
	b.str(k)
	b.u32(ggufArray)
	b.u32(ggufInt32)
	b.u64(uint64(len(vs)))
	for _, v := range vs {
		b.u32(uint32(v))
	}
}

func (b *ggufBuilder) kvU32(k string, v uint32) { b.str(k); b.u32(ggufUint32); b.u32(v) }

// tinySPM is a small SentencePiece vocabulary: <unk>, <s>, </s>, the 256
// byte tokens, then pieces scored so that "▁ab" and "▁abc" form.
func tinySPM() []byte {
	toks := []string{"<unk>", "<s>", "</s>"}
	types := []int32{ggufTokUnknown, ggufTokControl, ggufTokControl}
	for i := 0; i < 256; i++ {
		toks = append(toks, "<0x"+strings.ToUpper(hex.EncodeToString([]byte{byte(i)}))+">")
		types = append(types, ggufTokByte)
	}
	for _, p := range []string{"▁", "a", "b", "c", "▁a", "▁ab", "▁abc"} {
		toks = append(toks, p)
		types = append(types, ggufTokNormal)
	}
	scores := make([]float32, len(toks))
	for i := range scores {
		scores[i] = float32(-i)
	}
	scores[len(toks)-1] = 10 // ▁abc beats everything
	var b ggufBuilder
	b.header(7)
	b.kvString("general.architecture", "llama")
	b.kvString("tokenizer.ggml.model", "llama")
	b.kvStrings("tokenizer.ggml.tokens", toks)
	b.kvFloats("tokenizer.ggml.scores", scores)
	b.kvInts("tokenizer.ggml.token_type", types)
	b.kvU32("tokenizer.ggml.bos_token_id", 1)
	b.kvU32("tokenizer.ggml.eos_token_id", 2)
	return b.Bytes()
}

func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTinyGGUF(t *testing.T) {
	data := tinySPM()
	tok, err := Load(writeTemp(t, "tiny.gguf", data))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if tok.Hash() != hex.EncodeToString(sum[:]) {
		t.Errorf("Hash = %s", tok.Hash())
	}
	if tok.VocabSize() != 3+256+7 || tok.Kind() != SentencePieceBPE {
		t.Errorf("VocabSize %d, Kind %v", tok.VocabSize(), tok.Kind())
	}
	abc := tok.vocab["▁abc"]
	got := tok.Encode("abc ab é")
	want := []int{abc, tok.vocab["▁ab"], tok.vocab["▁"], 3 + 0xC3, 3 + 0xA9}
	if !equalInts(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
	if s := tok.Decode(got); s != "abc ab é" {
		t.Errorf("Decode = %q", s)
	}
	if id, ok := tok.TokenID("bos"); !ok || id != 1 {
		t.Errorf("bos = %d %v", id, ok)
	}
	if id, ok := tok.TokenID("eos"); !ok || id != 2 {
		t.Errorf("eos = %d %v", id, ok)
	}
	if len(tok.Encode("")) != 0 {
		t.Error("empty text gave tokens")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBadInput(t *testing.T) {
	good := tinySPM()
	var giantString, giantArray, giantKeys, badType, unsupported, noTokens ggufBuilder
	giantString.header(1)
	giantString.u64(1 << 62) // key length
	giantArray.header(1)
	giantArray.str("tokenizer.ggml.tokens")
	giantArray.u32(ggufArray)
	giantArray.u32(ggufString)
	giantArray.u64(1 << 40)
	giantKeys.header(0)
	giantKeys.Truncate(16)
	giantKeys.u64(1 << 50)
	badType.header(1)
	badType.str("x")
	badType.u32(99)
	unsupported.header(2)
	unsupported.kvString("tokenizer.ggml.model", "t5")
	unsupported.kvStrings("tokenizer.ggml.tokens", []string{"a"})
	noTokens.header(1)
	noTokens.kvString("tokenizer.ggml.model", "llama")
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty.json", nil, "neither a GGUF file nor a tokenizer.json"},
		{"text.bin", []byte("hello"), "neither a GGUF file nor a tokenizer.json"},
		{"trunc.gguf", good[:len(good)/2], "truncated"},
		{"magic.gguf", []byte("GGUF"), "truncated"},
		{"version.gguf", append([]byte("GGUF"), 9, 0, 0, 0), "version 9"},
		{"giantstr.gguf", giantString.Bytes(), "exceeds the limit"},
		{"giantarr.gguf", giantArray.Bytes(), "exceeds the limit"},
		{"giantkeys.gguf", giantKeys.Bytes(), "exceeds the limit"},
		{"type.gguf", badType.Bytes(), "unknown GGUF value type 99"},
		{"t5.gguf", unsupported.Bytes(), `unsupported tokenizer model "t5"`},
		{"notok.gguf", noTokens.Bytes(), "no tokenizer.ggml.tokens"},
		{"trunc.json", []byte(`{"model": {"type": "BPE", "vocab": {"a": 0`), "invalid tokenizer.json"},
		{"model.json", []byte(`{"model": {"type": "WordLevel", "vocab": {}}}`), `unsupported tokenizer.json model type "WordLevel"`},
		{"uni.json", []byte(`{"model": {"type": "Unigram", "vocab": {"a": 1}}}`), `want [[piece, score]`},
		{"norm.json", []byte(`{"normalizer": {"type": "Fancy"}, "model": {"type": "BPE", "vocab": {}, "merges": []}}`), `unsupported normalizer "Fancy"`},
		{"id.json", []byte(`{"model": {"type": "BPE", "vocab": {"a": 99999999999}, "merges": []}}`), "out of range"},
		{"look.json", []byte(`{"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "a(?=b"}, "behavior": "Isolated"}, "model": {"type": "BPE", "vocab": {}, "merges": []}}`), "pre-tokenizer pattern"},
		{"behave.json", []byte(`{"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Sideways"}, "model": {"type": "BPE", "vocab": {}, "merges": []}}`), `unknown behavior "Sideways"`},
		{"merges.json", []byte(`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}}`), `makes "ab", which is not in the vocabulary`},
		{"merges2.json", []byte(`{"model": {"type": "BPE", "vocab": {"a": 0, "ab": 1}, "merges": [["a", "b"]]}}`), `names "b", which is not in the vocabulary`},
		{"dropout.json", []byte(`{"model": {"type": "BPE", "dropout": 0.1, "vocab": {}, "merges": []}}`), "dropout"},
		{"nobytes.json", []byte(`{"pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`), "not a byte-level vocabulary"},
	}
	for _, tc := range tests {
		path := writeTemp(t, tc.name, tc.data)
		_, err := Load(path)
		if err == nil {
			t.Errorf("%s: loaded", tc.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || !strings.Contains(msg, path) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line naming the file and containing %q", tc.name, msg, tc.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing file loaded")
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}

// TestTruncatedEverywhere cuts a valid GGUF at every length: each must fail
// cleanly, never panic.
func TestTruncatedEverywhere(t *testing.T) {
	good := tinySPM()
	dir := t.TempDir()
	for n := 0; n < len(good); n += 1 + n/64 {
		path := filepath.Join(dir, "t.gguf")
		if err := os.WriteFile(path, good[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil {
			t.Fatalf("cut at %d of %d bytes: loaded", n, len(good))
		}
	}
}

func TestSharedFileFacts(t *testing.T) {
	needTestdata(t)
	tests := []struct {
		rel       string
		vocab     int
		hashStart string
		ids       map[string]int
	}{
		{"hf/gpt2/tokenizer.json", 50257, "cda20b8ca044", map[string]int{"Hello": 15496, "ĠHello": 18435}},
		{"hf/llama3/tokenizer.json", 128256, "c05a3c2174e9", map[string]int{"bos": 128000, "eos": 128001, "Hello": 9906}},
		{"hf/qwen2.5/tokenizer.json", 151665, "c0382117ea32", map[string]int{"eos": 151645, "<|endoftext|>": 151643, "Hello": 9707}},
		{"hf/phi-3-mini/tokenizer.json", 32011, "9e2ae3d66819", map[string]int{"bos": 1, "unk": 0}},
		{"gguf/ggml-vocab-phi-3.gguf", 32064, "967d7190d11c", map[string]int{"bos": 1, "eos": 32000}},
		{"gguf/ggml-vocab-llama-spm.gguf", 32000, "16c3724582d5", map[string]int{"bos": 1, "eos": 2}},
	}
	for _, tc := range tests {
		tok := mustLoad(t, filepath.Join(testdataDir, tc.rel))
		if tok.VocabSize() != tc.vocab {
			t.Errorf("%s: VocabSize %d, want %d", tc.rel, tok.VocabSize(), tc.vocab)
		}
		if !strings.HasPrefix(tok.Hash(), tc.hashStart) {
			t.Errorf("%s: Hash %s", tc.rel, tok.Hash())
		}
		for name, want := range tc.ids {
			if id, ok := tok.TokenID(name); !ok || id != want {
				t.Errorf("%s: TokenID(%q) = %d, %v; want %d", tc.rel, name, id, ok, want)
			}
		}
	}
}

// TestAddedTokensInText: special tokens written in the text are matched
// as single tokens, as the Hugging Face encoder does.
func TestAddedTokensInText(t *testing.T) {
	needTestdata(t)
	tok := mustLoad(t, filepath.Join(testdataDir, "hf/qwen2.5/tokenizer.json"))
	got := tok.Encode("<|im_start|>user\nHello<|im_end|>")
	want := []int{151644, 872, 198, 9707, 151645}
	if !equalInts(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
	if s := tok.Decode(got); s != "<|im_start|>user\nHello<|im_end|>" {
		t.Errorf("Decode = %q", s)
	}
}

// TestCompactGPT2Form: the original openai-community/gpt2 tokenizer.json
// has no model "type" and no "use_regex"; it must load and match the
// references like the re-serialised form.
func TestCompactGPT2Form(t *testing.T) {
	needTestdata(t)
	path := filepath.Join(testdataDir, "hf/gpt2/tokenizer.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["model"].(map[string]any), "type")
	delete(doc["pre_tokenizer"].(map[string]any), "use_regex")
	compact, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := Load(writeTemp(t, "tokenizer.json", compact))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range readRefs(t, path) {
		if got := tok.Encode(c.text); !equalInts(got, c.ids) {
			t.Errorf("case %d %q: %v, want %v", i, c.text, got, c.ids)
		}
	}
}

func TestConcurrentEncode(t *testing.T) {
	needTestdata(t)
	path := filepath.Join(testdataDir, "hf/llama3/tokenizer.json")
	serial := mustLoad(t, path)
	texts := workloadTexts(40)
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = serial.Encode(s)
	}
	tok, err := Load(path) // fresh cache, filled concurrently
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan string, 4*len(texts))
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := range texts {
				k := (i + g*7) % len(texts)
				if got := tok.Encode(texts[k]); !equalInts(got, want[k]) {
					errs <- texts[k][:20]
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("concurrent Encode differs for text starting %q", s)
	}
}

// TestAddedTokenStrip: Phi-3's chat tokens have rstrip, so the newline a
// chat template puts after <|user|> is not tokenized.
func TestAddedTokenStrip(t *testing.T) {
	needTestdata(t)
	tok := mustLoad(t, filepath.Join(testdataDir, "hf/phi-3-mini/tokenizer.json"))
	got := tok.Encode("<|user|>\nHi<|end|>\n<|assistant|>\n")
	hi := tok.Encode("Hi")
	want := append(append([]int{32010}, hi...), 32007, 32001)
	if !equalInts(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
	spm, err := parseHFJSON([]byte(`{"added_tokens": [{"id": 5, "content": "<x>", "lstrip": true, "normalized": false}],
		"normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
		"model": {"type": "BPE", "vocab": {"▁": 2, "a": 3, "▁a": 4}, "merges": ["▁ a"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := spm.Encode("a  <x> a"); !equalInts(got, []int{4, 5, 2, 4}) {
		t.Errorf("lstrip: %v", got)
	}
}
