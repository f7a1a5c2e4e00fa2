package tokenizer

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// randomText mixes pieces that stress pre-tokenizers: whitespace runs,
// contractions, digits, punctuation, accents, CJK, emoji and combining
// marks.
func randomText(rng *rand.Rand, pieces int) string {
	alphabet := []string{"a", "b", "Z", "the", "Hello", "é", "ß", "Ä", " ", "  ", "   ", "\n", "\n\n", "\t", "\r\n",
		"'s", "'LL", "'", "1", "23", "4567", ".", "!!", "(", ")", "$", "+", "<", "=", "`", "🦙", "😀", "\u200d", "\ufe0f",
		"中", "文字", "ру", "ក", "ុ", "\u0301", "\u00a0", "\u3000", "ﬁ", "Ⅻ", "½", "٣", "：", "－", "µ", "Ω"}
	var b strings.Builder
	for i := 0; i < pieces; i++ {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// TestSameVocabularyAgrees checks that files holding the same vocabulary in
// different forms (ranked merges in tokenizer.json, merges or scores in
// GGUF) tokenize random text identically.
func TestSameVocabularyAgrees(t *testing.T) {
	needTestdata(t)
	pairs := [][2]string{
		{"hf/gpt2/tokenizer.json", "gguf/ggml-vocab-gpt-2.gguf"},
		{"hf/phi-3-mini/tokenizer.json", "gguf/ggml-vocab-phi-3.gguf"},
		{"hf/phi-3-mini/tokenizer.json", "gguf/ggml-vocab-llama-spm.gguf"},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range pairs {
		a := mustLoad(t, filepath.Join(testdataDir, p[0]))
		b := mustLoad(t, filepath.Join(testdataDir, p[1]))
		for i := 0; i < 2000; i++ {
			s := randomText(rng, 1+rng.IntN(24))
			if ga, gb := a.Encode(s), b.Encode(s); !equalInts(ga, gb) {
				t.Fatalf("%s and %s differ on %q:\n%v\n%v", p[0], p[1], s, ga, gb)
			}
		}
	}
}

// TestSpaceSplitIsExact checks the SentencePiece shortcut (cutting words
// before "▁" to cache them) against whole-text BPE.
func TestSpaceSplitIsExact(t *testing.T) {
	needTestdata(t)
	rng := rand.New(rand.NewPCG(8, 9))
	for _, rel := range []string{"hf/phi-3-mini/tokenizer.json", "gguf/ggml-vocab-llama-spm.gguf"} {
		tok, err := Load(filepath.Join(testdataDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if !tok.splitSpaces {
			t.Fatalf("%s: the shortcut is off", rel)
		}
		whole, _ := Load(filepath.Join(testdataDir, rel))
		whole.splitSpaces = false
		for i := 0; i < 2000; i++ {
			s := randomText(rng, 1+rng.IntN(32))
			if a, b := tok.Encode(s), whole.Encode(s); !equalInts(a, b) {
				t.Fatalf("%s: %q: split %v, whole %v", rel, s, a, b)
			}
		}
	}
}

func TestRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for _, path := range tokenizerFiles(t) {
		tok := mustLoad(t, path)
		if tok.Kind() == WordPiece {
			continue // lowercases and drops accents: not reversible
		}
		for i := 0; i < 300; i++ {
			s := randomText(rng, 1+rng.IntN(24))
			want := s
			if tok.nfc {
				want = norm.NFC.String(s)
			}
			if got := tok.Decode(tok.Encode(s)); got != want {
				t.Fatalf("%s: Decode(Encode(%q)) = %q", path, s, got)
			}
		}
	}
}
