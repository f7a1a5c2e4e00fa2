package tokenizer

import (
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// Patterns of tokenizer.json files are Oniguruma regexes (Ruby syntax).
// They run on regexp2, a backtracking engine with .NET syntax, which has
// the same \s (Unicode White_Space), \d (Nd), \p{…} classes, lookaround
// and leftmost-first alternation. Two differences are translated: \w is
// Oniguruma's word set (.NET leaves out Mc, Me, Nl and the Latin-1
// digits), and ^ and $ are line anchors as in Ruby (the Multiline option).

// maxRegexStack bounds one match's backtracking stack (integer slots);
// regexTimeout bounds one match's time. A find that exceeds either fails:
// the piece is left unsplit, Encode records the failure (Tokenizer.Err)
// and EncodeChecked returns it, naming the file and the pattern.
const maxRegexStack = 1 << 24

var regexTimeout = 10 * time.Second // a variable for the tests only

// regexFailures counts finds abandoned for exceeding a bound.
var regexFailures atomic.Int64

// RegexFailures is the number of pre-tokenizer regex finds abandoned
// since the process started because they exceeded the backtracking or
// time bound (0 for every pattern of a real tokenizer file; Load refuses
// a pattern that exceeds them on its probe texts).
func RegexFailures() int64 { return regexFailures.Load() }

// failingMatcher is a matcher whose find can exceed a bound; ok is false
// then, and the matches are unknown.
type failingMatcher interface {
	matcher
	findOK(s string, dst []span) (out []span, ok bool)
	pattern() string
}

// regexMatcher runs an Oniguruma pattern on regexp2.
type regexMatcher struct {
	re  *regexp2.Regexp
	src string
}

func newRegexMatcher(pattern string) (*regexMatcher, error) {
	re, err := regexp2.Compile(onigToNET(pattern), regexp2.Multiline, regexp2.OptionMaxBacktrackingStackSize(maxRegexStack))
	if err != nil {
		return nil, fmt.Errorf("pre-tokenizer pattern %q: %v", pattern, oneLineErr(err))
	}
	re.MatchTimeout = regexTimeout
	return &regexMatcher{re: re, src: pattern}, nil
}

func oneLineErr(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// find is findOK; on a failure it returns dst (no matches) and counts it.
func (x *regexMatcher) find(s string, dst []span) []span {
	out, ok := x.findOK(s, dst)
	if !ok {
		regexFailures.Add(1)
	}
	return out
}

func (x *regexMatcher) findOK(s string, dst []span) ([]span, bool) {
	idx, err := x.re.FindAllStringIndex(s, -1)
	if err != nil {
		return dst, false
	}
	for _, m := range idx {
		dst = append(dst, span{m[0], m[1]})
	}
	return dst, true
}

func (x *regexMatcher) pattern() string { return x.src }

// onigWord is Oniguruma's Unicode \w inside a character class:
// alphabetic characters, marks, decimal digits, connector punctuation, and
// the Latin-1 digits ² ³ ¹ and fractions ¼ ½ ¾.
const onigWord = `\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\u00B2\u00B3\u00B9\u00BC-\u00BE`

// onigToNET rewrites \w and \W (outside classes) and \w (inside) to
// Oniguruma's meaning; everything else is kept.
func onigToNET(p string) string { return rewriteEscape(p, 'w', onigWord) }

// goRegexMatcher runs a lookaround-free pattern on Go's regexp
// (leftmost-first, the match a backtracking engine picks), after \s and
// \S are widened to Unicode White_Space. GGUF pre-tokenizer patterns that
// llama.cpp runs use it.
type goRegexMatcher struct{ re *regexp.Regexp }

func (x goRegexMatcher) find(s string, dst []span) []span {
	for _, m := range x.re.FindAllStringIndex(s, -1) {
		dst = append(dst, span{m[0], m[1]})
	}
	return dst
}

// newGGUFMatcher returns the matcher for one of llama.cpp's patterns.
func newGGUFMatcher(pattern string) (matcher, error) {
	if pattern == gpt2Isolated {
		return gpt2Scanner{}, nil
	}
	if m, ok := fastMatcher(pattern); ok {
		return m, nil
	}
	if strings.Contains(pattern, "(?=") || strings.Contains(pattern, "(?!") || strings.Contains(pattern, "(?<") {
		return newPatternMatcher(pattern)
	}
	tp := translateSpace(pattern)
	if cs, ok := compileClassSplitter(tp); ok {
		return cs, nil
	}
	re, err := regexp.Compile(tp)
	if err != nil {
		return nil, fmt.Errorf("pre-tokenizer pattern %q: %v", pattern, err)
	}
	return goRegexMatcher{re: re}, nil
}

// translateSpace rewrites \s and \S to the Unicode White_Space set (Go's
// \s is ASCII only).
func translateSpace(p string) string { return rewriteEscape(p, 's', `\t\n\v\f\r \x{85}\p{Z}`) }

// rewriteEscape replaces the class escape \<lower> by set: inside a
// class by set's members, outside by [set]; its negation \<upper>
// outside a class by [^set]. Everything else is kept.
func rewriteEscape(p string, lower byte, set string) string {
	upper := lower - 'a' + 'A'
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			switch {
			case p[i+1] == lower && inClass:
				b.WriteString(set)
			case p[i+1] == lower:
				b.WriteString("[" + set + "]")
			case p[i+1] == upper && !inClass:
				b.WriteString("[^" + set + "]")
			default:
				b.WriteString(p[i : i+2])
			}
			i++
			continue
		}
		if c == '[' && !inClass {
			inClass = true
		} else if c == ']' && inClass {
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// engineMatcher runs a pattern on the package's regex engine and, for a
// text where the engine's bound is exceeded, on regexp2.
type engineMatcher struct {
	root     *reNode
	fallback *regexMatcher
}

func (x engineMatcher) find(s string, dst []span) []span {
	out, ok := x.findOK(s, dst)
	if !ok {
		regexFailures.Add(1)
	}
	return out
}

func (x engineMatcher) findOK(s string, dst []span) ([]span, bool) {
	n := len(dst)
	out, ok := reMatch(x.root, s, dst)
	if ok {
		return out, true
	}
	return x.fallback.findOK(s, out[:n])
}

func (x engineMatcher) pattern() string { return x.fallback.src }

// newPatternMatcher compiles an Oniguruma pattern with regexp2 (which
// decides whether the pattern is valid) and, when the pattern is in its
// subset, with the package's engine, which then runs it. A pattern that
// exceeds the bounds on a probe text is refused (probeMatcher).
func newPatternMatcher(pattern string) (failingMatcher, error) {
	slow, err := newRegexMatcher(pattern)
	if err != nil {
		return nil, err
	}
	var m failingMatcher = slow
	if root, err := parseRegex(pattern); err == nil {
		m = engineMatcher{root: root, fallback: slow}
	}
	if err := probeMatcher(m); err != nil {
		return nil, err
	}
	return m, nil
}
