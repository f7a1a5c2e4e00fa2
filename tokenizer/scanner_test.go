package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// scannerPatterns are the patterns with a hand scanner, each checked
// against the regex engine.
func scannerPatterns() []string {
	var out []string
	for p := range gpt2Patterns {
		out = append(out, p)
	}
	for _, head := range llama3Head {
		out = append(out, head+fmt.Sprintf(llama3Tail, ""), head+fmt.Sprintf(llama3Tail, "{1,3}"))
	}
	return append(out, o200kPattern)
}

// checkScanner compares a hand scanner with regexp2 on s.
func checkScanner(t *testing.T, p, s string) {
	t.Helper()
	fast, ok := fastMatcher(p)
	if !ok {
		t.Fatalf("no scanner for %q", p)
	}
	slow, err := newRegexMatcher(p)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := fast.find(s, nil), slow.find(s, nil); !slices.Equal(a, b) {
		t.Fatalf("pattern %q on %q:\nscanner %v\nregex   %v", p, s, a, b)
	}
}

// TestGPT2IsolatedPieces: for the GPT-2 pattern without its final \s+,
// the scanner's Isolated pieces equal the regex engine's.
func TestGPT2IsolatedPieces(t *testing.T) {
	slow, err := newRegexMatcher(gpt2Isolated)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(33, 34))
	texts := hostileCorpus()
	for i := 0; i < 2000; i++ {
		texts = append(texts, randomText(rng, 1+rng.IntN(30)))
	}
	for _, s := range texts {
		a := splitStep{m: gpt2Scanner{}}.pieces(s, false, nil)
		b := splitStep{m: slow}.pieces(s, false, nil)
		if !slices.Equal(a, b) {
			t.Fatalf("%q:\nscanner %q\nregex   %q", s, a, b)
		}
	}
}

// TestScannersMatchRegex: every hand scanner picks the matches the regex
// engine picks, on the hostile corpus and on random mixtures.
func TestScannersMatchRegex(t *testing.T) {
	texts := hostileCorpus()
	rng := rand.New(rand.NewPCG(31, 32))
	for i := 0; i < 3000; i++ {
		texts = append(texts, randomText(rng, 1+rng.IntN(30)))
	}
	for _, p := range scannerPatterns() {
		for _, s := range texts {
			checkScanner(t, p, s)
		}
	}
}

// FuzzScannersMatchRegex is TestScannersMatchRegex on fuzzed text.
func FuzzScannersMatchRegex(f *testing.F) {
	for _, s := range hostileCorpus()[:40] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range scannerPatterns() {
			checkScanner(t, p, s)
		}
	})
}
