package tokenizer

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// familyPatterns are the Split and Replace patterns of the tokenizer files
// this package is checked on, the hand-scanned ones included, and
// patterns written to reach every construct of the engine.
func familyPatterns() []string {
	out := append([]string{gpt2Isolated}, scannerPatterns()...)
	out = append(out, deepseekV3Steps...)
	out = append(out,
		`\p{N}{1,3}`, `\p{N}`, ` {2,}`, `\s+$`, `^\s+`, `[\r\n]`, `\s?\p{L}+`, `\s?\p{P}+`,
		`[一-龥ࠀ-一가-퟿]+`, `[^\s\p{L}]+?x`, `a+?`, `\w+|\W`, `\d{2}|\D`, `[\w\-]+`, `[-a]+|[a-]+|[\]\[]+`,
		`(?i:hello|wORLD)|(?i)ǅ|ß|ſ|İ|k`, `(?=\p{Lu})\p{L}+|.`, `(?:ab|a)(?:bc|c)?`, `(?:\s*\n)+|\S+`,
		`\A\p{L}+|\p{N}+\z|.`, `[^\p{L}\p{N}\s]{1,2}|\P{L}`, `(?:'s|'t)(?!\p{L})|'`, `x*y|x`, `(?:a|b)*?c|.`,
		`\x41+|\u00e9+|\t|[\x00-\x1f]+`, `$\n|[^$]`, `(a|ab)(c|bcd)(d*)`, `\p{Han}+|\p{Hiragana}+|.`,
		`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+`, `\.{3}|\.`, `[^\r\n\p{L}\p{N}]?\p{L}+`,
	)
	return out
}

// engineAlphabet covers the class boundaries the patterns test: ASCII,
// Latin-1 digits and fractions, spaces of every kind, marks, letters of
// each case kind, CJK ranges of the DeepSeek patterns, full-width forms,
// emoji with joiners, case-folding oddities and invalid UTF-8.
var engineAlphabet = []string{
	"a", "Z", "k", "s", "x", "y", "b", "c", "d", "hello", "World", "HELLO", "ab", "abc", " ", "  ", "\t", "\n", "\r", "\r\n",
	"\v", "\f", "'", "'s", "'T", "'re", "'LL", "'ſ", "0", "12", "345", "$", "-", "[", "]", "\\", ".", "...", "!", "?", "_",
	"\x85", "\u00a0", "\u1680", "\u180e", "\u2000", "\u2028", "\u2029", "\u202f", "\u3000", "\ufeff", "\u200b", "\u200d",
	"²", "¹", "½", "µ", "ª", "é", "e\u0301", "\u0903", "\u20dd", "ǅ", "ʰ", "ß", "ẞ", "ſ", "K", "İ", "ı", "Σ", "ς",
	"中", "文字", "龥", "ぁ", "ゟ", "カ", "ヿ", "ࠀ", "한", "！", "～", "‘", "‟", "。", "٣", "Ⅻ", "①", "🦙", "👩‍💻", "\ufe0f",
	"\x80", "\xff", "\xe4\xb8", "\xed\xa0\x80", "\x00", "\x1f", "\x7f", "A", "\U0001F600", "\U000E0001",
}

func engineText(rng *rand.Rand) string {
	var b strings.Builder
	for n := 1 + rng.IntN(24); n > 0; n-- {
		b.WriteString(engineAlphabet[rng.IntN(len(engineAlphabet))])
	}
	return b.String()
}

// regexp2Find is the reference: regexp2 with the package's translation.
func regexp2Find(t testing.TB, re *regexp2.Regexp, s string) ([]span, bool) {
	t.Helper()
	idx, err := re.FindAllStringIndex(s, -1)
	if err != nil {
		return nil, false
	}
	var out []span
	for _, m := range idx {
		out = append(out, span{m[0], m[1]})
	}
	return out, true
}

func compileRef(pattern string, timeout time.Duration) (*regexp2.Regexp, error) {
	re, err := regexp2.Compile(onigToNET(pattern), regexp2.Multiline, regexp2.OptionMaxBacktrackingStackSize(maxRegexStack))
	if err == nil {
		re.MatchTimeout = timeout
	}
	return re, err
}

// checkEngine compares the engine with regexp2 on s.
func checkEngine(t testing.TB, pattern string, root *reNode, re *regexp2.Regexp, s string) {
	t.Helper()
	want, ok := regexp2Find(t, re, s)
	if !ok {
		return
	}
	got, ok := reMatch(root, s, nil)
	if !ok {
		t.Fatalf("pattern %q on %q: the engine's bound was exceeded", pattern, s)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pattern %q on %q:\nengine  %v\nregexp2 %v", pattern, s, got, want)
	}
}

// TestEngineMatchesRegexp2: on every family pattern the engine accepts,
// its matches equal regexp2's on the hostile corpus and random text.
func TestEngineMatchesRegexp2(t *testing.T) {
	texts := hostileCorpus()
	rng := rand.New(rand.NewPCG(50, 51))
	for i := 0; i < scaledCount(1500); i++ {
		texts = append(texts, engineText(rng))
	}
	for _, p := range familyPatterns() {
		root, err := parseRegex(p)
		if err != nil {
			t.Errorf("pattern %q refused: %v", p, err)
			continue
		}
		re, err := compileRef(p, time.Minute)
		if err != nil {
			t.Fatalf("regexp2 refuses %q: %v", p, err)
		}
		for _, s := range texts {
			checkEngine(t, p, root, re, s)
		}
	}
}

// scaledCount is n, or a fifth of it under the race detector (the
// comparisons check matching, not concurrency).
func scaledCount(n int) int {
	if raceDetector {
		return n / 5
	}
	return n
}

// randomPattern builds a pattern from the engine's constructs, to check
// the engine on shapes that no family uses.
func randomPattern(rng *rand.Rand, depth int) string {
	atoms := []string{`a`, `b`, `x`, `\s`, `\S`, `\d`, `\w`, `\W`, `\p{L}`, `\p{N}`, `\P{L}`, `\p{Lu}`, `[ab]`, `[^a\s]`,
		`[a-c\d]`, `.`, `'`, `\n`, `[\r\n]`, `[\p{L}\p{M}]`, `(?i:s)`, `(?i:k)`, `ſ`, `中`, `[一-龥]`, ` `}
	switch k := rng.IntN(10); {
	case depth > 2 || k < 4:
		return atoms[rng.IntN(len(atoms))]
	case k < 6:
		var parts []string
		for n := 2 + rng.IntN(2); n > 0; n-- {
			parts = append(parts, randomPattern(rng, depth+1))
		}
		return "(?:" + strings.Join(parts, "") + ")"
	case k < 8:
		var parts []string
		for n := 2 + rng.IntN(3); n > 0; n-- {
			parts = append(parts, randomPattern(rng, depth+1))
		}
		return "(?:" + strings.Join(parts, "|") + ")"
	case k < 9:
		q := []string{"?", "*", "+", "{1,3}", "{2}", "{0,2}", "+?", "*?", "??", "{1,}"}[rng.IntN(10)]
		return "(?:" + randomPattern(rng, depth+1) + ")" + q
	}
	look := []string{"(?=", "(?!"}[rng.IntN(2)]
	return look + randomPattern(rng, depth+1) + ")" + randomPattern(rng, depth+1)
}

// goArbiter compiles a lookaround-free pattern for Go's regexp (RE2,
// leftmost-first like a backtracking engine) with Oniguruma's \s \w \d,
// a third engine for where the engine and regexp2 disagree; nil when the
// pattern has lookaround or syntax Go's regexp lacks.
func goArbiter(p string) *regexp.Regexp {
	if strings.Contains(p, "(?=") || strings.Contains(p, "(?!") {
		return nil
	}
	p = strings.NewReplacer(`\d`, `\p{Nd}`, `\D`, `\P{Nd}`).Replace(translateSpace(onigToNET(p)))
	p = strings.NewReplacer(`\u00B2`, `\x{B2}`, `\u00B3`, `\x{B3}`, `\u00B9`, `\x{B9}`, `\u00BC`, `\x{BC}`, `\u00BE`, `\x{BE}`).Replace(p)
	re, err := regexp.Compile(`(?m)` + p)
	if err != nil {
		return nil // syntax Go's regexp lacks (\uHHHH): no third opinion
	}
	return re
}

// checkArbitrated is checkEngine, except that where regexp2 disagrees and
// Go's regexp (when it can run the pattern) agrees with the engine, the
// difference is counted as regexp2's (defects) instead of failing. Texts
// where the engine's bound is exceeded are counted (fellBack): the
// matcher gives them to regexp2.
func checkArbitrated(t testing.TB, p string, root *reNode, re *regexp2.Regexp, arb *regexp.Regexp, s string, defects, fellBack *int) {
	t.Helper()
	want, ok := regexp2Find(t, re, s)
	if !ok {
		return
	}
	got, ok := reMatch(root, s, nil)
	if !ok {
		*fellBack++ // the matcher runs regexp2 instead
		return
	}
	if slices.Equal(got, want) {
		return
	}
	if arb != nil {
		var third []span
		for _, m := range arb.FindAllStringIndex(s, -1) {
			third = append(third, span{m[0], m[1]})
		}
		if slices.Equal(got, third) {
			*defects++
			return
		}
	}
	t.Fatalf("pattern %q on %q:\nengine  %v\nregexp2 %v", p, s, got, want)
}

// TestEngineRandomPatterns: random patterns of the engine's constructs
// match as on regexp2 (or, where regexp2 errs, as on Go's regexp).
func TestEngineRandomPatterns(t *testing.T) {
	rng := rand.New(rand.NewPCG(52, 53))
	tested, defects, fellBack := 0, 0, 0
	patterns := scaledCount(600)
	for i := 0; i < patterns; i++ {
		p := randomPattern(rng, 0) + "|" + randomPattern(rng, 0)
		root, err := parseRegex(p)
		if err != nil {
			continue // nullable: left to regexp2
		}
		re, err := compileRef(p, time.Minute)
		if err != nil {
			t.Fatalf("regexp2 refuses %q: %v", p, err)
		}
		arb := goArbiter(p)
		tested++
		for k := 0; k < 40; k++ {
			checkArbitrated(t, p, root, re, arb, engineText(rng), &defects, &fellBack)
		}
	}
	if tested < patterns/2 {
		t.Fatalf("only %d of %d random patterns in the engine's subset", tested, patterns)
	}
	t.Logf("%d random patterns; %d texts where regexp2 erred and Go's regexp agreed with the engine; %d beyond the engine's bound", tested, defects, fellBack)
}

// TestRegexp2ClassUnionDefect documents the regexp2 defect the arbiter
// absorbs: a class joining a negated category with a positive one
// ([\P{L}\p{Lu}], or \P{L}|\p{Lu} merged into one) loses the positive
// one. The engine matches "T" as Oniguruma and Go's regexp do.
func TestRegexp2ClassUnionDefect(t *testing.T) {
	for _, p := range []string{`[\P{L}\p{Lu}]`, `\P{L}|\p{Lu}`} {
		root, err := parseRegex(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := reMatch(root, "0T", nil); !slices.Equal(got, []span{{0, 1}, {1, 2}}) {
			t.Errorf("engine: %q on \"0T\" = %v", p, got)
		}
		re, _ := compileRef(p, time.Second)
		if got, _ := regexp2Find(t, re, "0T"); len(got) == 2 {
			t.Logf("regexp2 no longer has the defect on %q", p)
		}
	}
}

// FuzzEngineMatchesRegexp2 compares the engine with regexp2 on fuzzed
// patterns and text: a pattern both accept must give the same matches
// (where regexp2 refuses a pattern, the file is refused before the engine
// could run it).
func FuzzEngineMatchesRegexp2(f *testing.F) {
	for i, p := range familyPatterns() {
		f.Add(p, hostileCorpus()[i%40])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		if len(p) > 300 || len(s) > 2000 {
			return
		}
		root, err := parseRegex(p)
		if err != nil {
			return
		}
		re, err := compileRef(p, time.Second)
		if err != nil {
			return // invalid for regexp2: the file is refused before the engine runs
		}
		defects, fellBack := 0, 0
		checkArbitrated(t, p, root, re, goArbiter(p), s, &defects, &fellBack)
	})
}

// TestEngineRefuses: constructs outside the subset are left to regexp2.
func TestEngineRefuses(t *testing.T) {
	for _, p := range []string{`(?<=a)b`, `(?<!a)b`, `(a)\1`, `a++`, `(?>a)`, `a**`, `[[:alpha:]]`, `[a&&b]`, `[a-z-[aeiou]]`,
		`\bword\b`, `(?i:[a-z])`, `(?i)\p{Lu}`, `(?:a*)*`, `a*`, `x|`, `\x{41}`, `\h`, `(?<name>a)`, `a{,3}`, `(?s:.)`, `(?m)x`, `(?i)\x41`, `\p{Alphabetic}`} {
		if _, err := parseRegex(p); err == nil {
			t.Errorf("pattern %q accepted", p)
		}
	}
}
