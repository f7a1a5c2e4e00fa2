package tokenizer

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pre-tokenization: the normalized text of a segment is cut into pieces
// before the model runs on each piece. A matcher finds match spans; a
// split step turns matches and the gaps between them into pieces by one
// of the format's behaviours; other steps (ByteLevel, Metaspace, …) may
// also rewrite a piece. A pipeline applies the steps in turn, each to
// every piece of the previous one.

// span is a byte range [start, end) of a string.
type span struct{ start, end int }

// matcher finds the non-overlapping matches of a pattern, left to right,
// as a backtracking engine would pick them.
type matcher interface {
	find(s string, dst []span) []span
}

// Character classes as the reference regex engines see them: \p{L}, \p{N}
// and \s (the Unicode White_Space property).
const (
	clsOther = iota
	clsLetter
	clsNumber
	clsSpace
)

var asciiClass [128]uint8

func init() {
	for c := 0; c < 128; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			asciiClass[c] = clsLetter
		case c >= '0' && c <= '9':
			asciiClass[c] = clsNumber
		case c == ' ', c >= '\t' && c <= '\r':
			asciiClass[c] = clsSpace
		}
	}
}

func classOf(r rune) uint8 {
	if r < 128 {
		return asciiClass[r]
	}
	switch {
	case unicode.IsLetter(r):
		return clsLetter
	case unicode.IsNumber(r):
		return clsNumber
	case unicode.IsSpace(r):
		return clsSpace
	}
	return clsOther
}

// at decodes the rune at byte offset i.
func at(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// classAt is the class of the rune at i, or -1 at the end of s.
func classAt(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	r, _ := at(s, i)
	return int(classOf(r))
}

// runOf returns the end of the run of runes of class cls starting at i.
func runOf(s string, i int, cls uint8) int {
	for i < len(s) {
		r, n := at(s, i)
		if classOf(r) != cls {
			break
		}
		i += n
	}
	return i
}

// Case matching of contractions: exact ('s), by ASCII classes ('[sS]), or
// case-insensitive ((?i:'s), Unicode simple case folding).
const (
	caseExact = iota
	caseASCII
	caseFold
)

// contraction returns the length of an English contraction suffix
// ('s 't 're 've 'm 'll 'd) at s[i:], which starts with an apostrophe,
// matched with the given case rule.
func contraction(s string, i int, rule int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	lower := func(c byte) byte {
		if rule != caseExact && c >= 'A' && c <= 'Z' {
			return c + 32
		}
		return c
	}
	switch lower(s[i+1]) {
	case 's', 't', 'm', 'd':
		return 2
	}
	// Case-insensitive matching folds by Unicode simple case folding:
	// "ſ" (U+017F, long s) is an "s" there; no other letter of the
	// contractions has a fold outside ASCII.
	if rule == caseFold && strings.HasPrefix(s[i+1:], "ſ") {
		return 3
	}
	if i+2 < len(s) {
		two := string([]byte{lower(s[i+1]), lower(s[i+2])})
		if two == "re" || two == "ve" || two == "ll" {
			return 3
		}
	}
	return 0
}

// spaceRunEnd handles a whitespace run starting at i: \s+(?!\S) keeps the
// last space for the next piece unless the run ends the fragment or is a
// single rune; the trailing \s+ alternative then takes single runs.
func spaceRunEnd(s string, i int) int {
	e := runOf(s, i, clsSpace)
	if e == len(s) {
		return e
	}
	_, n := utf8.DecodeLastRuneInString(s[:e])
	if e-n == i {
		return e
	}
	return e - n
}

// coverAll appends the consecutive pieces that piece(s, i) cuts from s:
// the hand scanners' patterns match every character, so their matches
// cover the text.
func coverAll(s string, dst []span, piece func(string, int) int) []span {
	for i := 0; i < len(s); {
		e := piece(s, i)
		dst = append(dst, span{i, e})
		i = e
	}
	return dst
}

// gpt2Scanner is the GPT-2 pattern
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
type gpt2Scanner struct{}

func (gpt2Scanner) find(s string, dst []span) []span { return coverAll(s, dst, gpt2Piece) }

func gpt2Piece(s string, i int) int {
	if k := contraction(s, i, caseExact); k > 0 {
		return i + k
	}
	j := i
	if s[i] == ' ' {
		if c := classAt(s, i+1); c >= 0 && c != clsSpace {
			j = i + 1
		}
	}
	switch c := uint8(classAt(s, j)); c {
	case clsLetter, clsNumber, clsOther:
		return runOf(s, j, c)
	}
	return spaceRunEnd(s, i)
}

// llama3Scanner is the Llama 3 / Qwen2 pattern
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,D}|
// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ with D = maxDigits.
type llama3Scanner struct {
	maxDigits int
	caseRule  int // of the contractions: caseFold for (?i:…), caseASCII for '[sS]…
}

func (l llama3Scanner) find(s string, dst []span) []span { return coverAll(s, dst, l.piece) }

func (l llama3Scanner) piece(s string, i int) int {
	if k := contraction(s, i, l.caseRule); k > 0 {
		return i + k
	}
	r, n := at(s, i)
	c := classOf(r)
	if c != clsLetter && c != clsNumber && r != '\r' && r != '\n' && classAt(s, i+n) == clsLetter {
		return runOf(s, i+n, clsLetter)
	}
	switch c {
	case clsLetter:
		return runOf(s, i, clsLetter)
	case clsNumber:
		return digitsEnd(s, i, l.maxDigits)
	}
	if e := otherRunEnd(s, i, "\r\n"); e > i {
		return e
	}
	return newlineOrSpaceEnd(s, i)
}

// digitsEnd ends a run of at most max \p{N} runes at i.
func digitsEnd(s string, i, max int) int {
	for k := 0; k < max && i < len(s); k++ {
		r, n := at(s, i)
		if classOf(r) != clsNumber {
			break
		}
		i += n
	}
	return i
}

// otherRunEnd matches " ?[^\s\p{L}\p{N}]+[tail]*" at i, or returns i.
func otherRunEnd(s string, i int, tail string) int {
	j := i
	if s[i] == ' ' && classAt(s, i+1) == clsOther {
		j = i + 1
	}
	if classAt(s, j) != clsOther {
		return i
	}
	e := runOf(s, j, clsOther)
	for e < len(s) && strings.IndexByte(tail, s[e]) >= 0 {
		e++
	}
	return e
}

// newlineOrSpaceEnd matches \s*[\r\n]+|\s+(?!\S)|\s+ at i (a space).
func newlineOrSpaceEnd(s string, i int) int {
	e := runOf(s, i, clsSpace)
	if p := strings.LastIndexAny(s[i:e], "\r\n"); p >= 0 {
		return i + p + 1
	}
	return spaceRunEnd(s, i)
}

// Known patterns with lookahead, recognised by their exact text.
var (
	gpt2Patterns = map[string]bool{
		`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`: true,
	}
	// gpt2Isolated lacks the final \s+: a lone space between words is a
	// gap, not a match, so the scanner's pieces equal the pattern's only
	// under the Isolated behaviour (llama.cpp's GGUF steps).
	gpt2Isolated = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)`
	llama3Tail   = `|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}%s| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	llama3Head   = []string{`(?i:'s|'t|'re|'ve|'m|'ll|'d)`, `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`}
)

// fastMatcher returns the hand scanner for a known pattern, if any; each
// is proven equal to the regex engine by the tests.
func fastMatcher(pattern string) (matcher, bool) {
	if gpt2Patterns[pattern] {
		return gpt2Scanner{}, true
	}
	if pattern == o200kPattern {
		return o200kScanner{}, true
	}
	for k, head := range llama3Head {
		for digits, rep := range map[int]string{1: "", 3: "{1,3}"} {
			if pattern == head+fmt.Sprintf(llama3Tail, rep) {
				return llama3Scanner{maxDigits: digits, caseRule: []int{caseFold, caseASCII}[k]}, true
			}
		}
	}
	return nil, false
}

// newMatcher returns the matcher for a tokenizer.json Split regex: a hand
// scanner when one is known for the pattern, else the class scanner for
// simple shapes, else the regex engine with Oniguruma's classes.
func newMatcher(pattern string) (matcher, error) {
	if m, ok := fastMatcher(pattern); ok {
		return m, nil
	}
	if cs, ok := compileClassSplitter(translateSpace(pattern)); ok && !strings.ContainsAny(pattern, "$^") {
		return cs, nil
	}
	return newPatternMatcher(pattern)
}
