package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// o200kPattern is the pre-tokenizer pattern of the o200k vocabularies
// (gpt-4o, gpt-oss): words split at case changes, contractions kept on
// the word, digits by threes.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Rune flags for the o200k scanner: U is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}],
// W is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
const (
	flagU = 1 << iota
	flagW
)

func o200kFlags(r rune) uint8 {
	switch {
	case r < 128:
		switch {
		case r >= 'a' && r <= 'z':
			return flagW
		case r >= 'A' && r <= 'Z':
			return flagU
		}
		return 0
	case unicode.In(r, unicode.Lm, unicode.Lo, unicode.M):
		return flagU | flagW
	case unicode.In(r, unicode.Lu, unicode.Lt):
		return flagU
	case unicode.Is(unicode.Ll, r):
		return flagW
	}
	return 0
}

// o200kScanner matches o200kPattern; the pattern matches every character,
// so pieces cover the text.
type o200kScanner struct{}

func (o200kScanner) find(s string, dst []span) []span { return coverAll(s, dst, o200kPiece) }

func o200kPiece(s string, i int) int {
	r, n := at(s, i)
	c := classOf(r)
	prefix := c != clsLetter && c != clsNumber && r != '\r' && r != '\n'
	// The two word alternatives, each with then without the prefix.
	if prefix && i+n < len(s) {
		if e, ok := upperLower(s, i+n); ok {
			return e
		}
	}
	if e, ok := upperLower(s, i); ok {
		return e
	}
	if prefix && i+n < len(s) {
		if e, ok := upperThenLower(s, i+n); ok {
			return e
		}
	}
	if e, ok := upperThenLower(s, i); ok {
		return e
	}
	if c == clsNumber {
		return digitsEnd(s, i, 3)
	}
	if e := otherRunEnd(s, i, "\r\n/"); e > i {
		return e
	}
	return newlineOrSpaceEnd(s, i)
}

// upperLower matches U*W+ then an optional contraction at i: the U run is
// greedy and gives back runes until a W rune can start the W run.
func upperLower(s string, i int) (int, bool) {
	e := i
	for e < len(s) {
		r, n := at(s, e)
		if o200kFlags(r)&flagU == 0 {
			break
		}
		e += n
	}
	if w := wRunEnd(s, e); w > e {
		return w + contraction(s, w, caseFold), true
	}
	// Give back U runes from the end; the last one that is also W starts
	// (and, since the next rune is not W, ends) the W run.
	for j := e; j > i; {
		r, n := lastRune(s[:j])
		if o200kFlags(r)&flagW != 0 {
			return j + contraction(s, j, caseFold), true
		}
		j -= n
	}
	return 0, false
}

// upperThenLower matches U+W* then an optional contraction at i.
func upperThenLower(s string, i int) (int, bool) {
	e := i
	for e < len(s) {
		r, n := at(s, e)
		if o200kFlags(r)&flagU == 0 {
			break
		}
		e += n
	}
	if e == i {
		return 0, false
	}
	e = wRunEnd(s, e)
	return e + contraction(s, e, caseFold), true
}

// wRunEnd is the end of the run of W runes at i.
func wRunEnd(s string, i int) int {
	for i < len(s) {
		r, n := at(s, i)
		if o200kFlags(r)&flagW == 0 {
			break
		}
		i += n
	}
	return i
}

// lastRune decodes the last rune of s.
func lastRune(s string) (rune, int) {
	if c := s[len(s)-1]; c < 0x80 {
		return rune(c), 1
	}
	return utf8.DecodeLastRuneInString(s)
}
