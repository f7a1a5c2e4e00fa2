package tokenizer

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"
)

// TestClassSplitterMatchesRegexp compares the class scanner with Go's
// regexp on every simple pre-tokenizer pattern.
func TestClassSplitterMatchesRegexp(t *testing.T) {
	var patterns []string
	for _, pre := range []string{"falcon", "deepseek-llm", "deepseek-coder", "starcoder", "default"} {
		steps, _ := ggufPreSteps(pre)
		patterns = append(patterns, steps...)
	}
	patterns = append(patterns, `a`, `\s?\p{N}{2,3}`, `[ab]{2}`)
	rng := rand.New(rand.NewPCG(21, 22))
	scanned := 0
	for _, p := range patterns {
		tp := translateSpace(p)
		cs, ok := compileClassSplitter(tp)
		if !ok {
			continue
		}
		scanned++
		ref := goRegexMatcher{re: regexp.MustCompile(tp)}
		for i := 0; i < 3000; i++ {
			s := randomText(rng, 1+rng.IntN(20))
			if a, b := cs.find(s, nil), ref.find(s, nil); !slices.Equal(a, b) {
				t.Fatalf("pattern %q on %q: scanner %v, regexp %v", p, s, a, b)
			}
		}
	}
	if scanned < 10 {
		t.Errorf("only %d patterns took the class scanner", scanned)
	}
	for _, p := range []string{`a|bc`, `a*?`, `(?i)a`, `\s?a+$`, `a{0,2}`} {
		if _, ok := compileClassSplitter(translateSpace(p)); ok {
			t.Errorf("%q was taken by the class scanner", p)
		}
	}
}
