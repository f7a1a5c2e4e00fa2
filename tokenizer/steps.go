package tokenizer

import (
	"strings"
	"sync"
	"unicode"
)

// behavior is how a split step treats the matches of its pattern.
type behavior int

const (
	isolated behavior = iota
	removed
	mergedWithPrevious
	mergedWithNext
	contiguous
)

var behaviors = map[string]behavior{
	"Isolated": isolated, "Removed": removed, "MergedWithPrevious": mergedWithPrevious,
	"MergedWithNext": mergedWithNext, "Contiguous": contiguous,
}

// preStep is one pre-tokenizer: it appends the pieces of s to dst. first
// says whether s starts the original text (Metaspace's "first" scheme).
type preStep interface {
	pieces(s string, first bool, dst []string) []string
}

// pipeline applies pre-tokenizer steps in order.
type pipeline []preStep

// run calls fn for every final piece of s, in order. It returns the
// pattern of a regex that exceeded its bounds on some piece (that piece
// was left unsplit), or "".
func (p pipeline) run(s string, first bool, fn func(string)) (failed string) {
	if len(s) == 0 {
		return ""
	}
	if len(p) == 0 {
		fn(s)
		return ""
	}
	w := pipelinePool.Get().(*pipelineScratch)
	defer pipelinePool.Put(w)
	cur, next := append(w.a[:0], s), w.b[:0]
	for _, step := range p {
		next = next[:0]
		split, isSplit := step.(splitStep)
		for k, piece := range cur {
			if isSplit {
				next = split.split(piece, next, &w.split)
			} else {
				next = step.pieces(piece, first && k == 0, next)
			}
		}
		cur, next = next, cur
	}
	for _, piece := range cur {
		if piece != "" {
			fn(piece)
		}
	}
	clear(cur)
	clear(next)
	w.a, w.b = cur[:0], next[:0]
	failed, w.split.failed = w.split.failed, ""
	return failed
}

// pipelineScratch holds the buffers of pipeline.run between calls: the
// piece lists and the split steps' buffers.
type pipelineScratch struct {
	a, b  []string
	split splitScratch
}

var pipelinePool = sync.Pool{New: func() any { return new(pipelineScratch) }}

// splitStep cuts s at the matches of m, by behavior; invert swaps the
// roles of matches and gaps.
type splitStep struct {
	m        matcher
	behavior behavior
	invert   bool
}

// part is a match or a gap.
type part struct {
	span
	match bool
}

// splitScratch holds a split step's match and part buffers between calls
// (a step runs once per piece, so fresh buffers would dominate the cost).
type splitScratch struct {
	spans  []span
	parts  []part
	failed string // the pattern of a find that exceeded its bounds
}

var splitScratchPool = sync.Pool{New: func() any { return new(splitScratch) }}

func (x splitStep) pieces(s string, _ bool, dst []string) []string {
	sc := splitScratchPool.Get().(*splitScratch)
	defer splitScratchPool.Put(sc)
	return x.split(s, dst, sc)
}

// split appends the pieces of s to dst, with the buffers of sc.
func (x splitStep) split(s string, dst []string, sc *splitScratch) []string {
	var matches []span
	if fm, ok := x.m.(failingMatcher); ok {
		var found bool
		if matches, found = fm.findOK(s, sc.spans[:0]); !found {
			if sc.failed == "" {
				sc.failed = fm.pattern()
			}
			return append(dst, s) // unsplit: no text is dropped
		}
	} else {
		matches = x.m.find(s, sc.spans[:0])
	}
	sc.spans = matches
	parts := sc.parts[:0]
	defer func() { sc.parts = parts[:0] }()
	last := 0
	for _, m := range matches {
		if m.start > last {
			parts = append(parts, part{span{last, m.start}, x.invert})
		}
		parts = append(parts, part{m, !x.invert})
		last = m.end
	}
	if last < len(s) {
		parts = append(parts, part{span{last, len(s)}, x.invert})
	}
	for _, p := range combine(parts, x.behavior) {
		if p.end > p.start {
			dst = append(dst, s[p.start:p.end])
		}
	}
	return dst
}

// combine applies a behavior to parts that cover a string in order. It
// works in place: every output part is written at or before the index of
// the last input part it reads.
func combine(parts []part, b behavior) []part {
	out := parts[:0]
	prevMatch := false
	switch b {
	case isolated:
		return parts
	case removed:
		for _, p := range parts {
			if !p.match {
				out = append(out, p)
			}
		}
	case mergedWithPrevious:
		for _, p := range parts {
			if p.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].end = p.end
			} else {
				out = append(out, p)
			}
			prevMatch = p.match
		}
	case mergedWithNext:
		// A match joins the part after it when that part is a gap.
		for i := 0; i < len(parts); i++ {
			p := parts[i]
			if p.match && i+1 < len(parts) && !parts[i+1].match {
				p.end, p.match = parts[i+1].end, false
				i++
			}
			out = append(out, p)
		}
	case contiguous:
		for i, p := range parts {
			if i > 0 && p.match == prevMatch {
				out[len(out)-1].end = p.end
			} else {
				out = append(out, p)
			}
			prevMatch = p.match
		}
	}
	return out
}

// byteLevelStep is the ByteLevel pre-tokenizer: an optional leading space,
// then the GPT-2 pattern when useRegex. The model maps bytes to its
// alphabet, so pieces stay raw bytes here.
type byteLevelStep struct{ prefixSpace, useRegex bool }

func (b byteLevelStep) pieces(s string, _ bool, dst []string) []string {
	if b.prefixSpace && !strings.HasPrefix(s, " ") {
		s = " " + s
	}
	if !b.useRegex {
		return append(dst, s)
	}
	return splitStep{m: gpt2Scanner{}}.pieces(s, false, dst)
}

// metaspaceStep replaces spaces by the replacement, prepends one by the
// scheme (always; first: only at the start of the text; never) unless
// the piece starts with it, and with split cuts before each replacement.
type metaspaceStep struct {
	repl   string
	scheme string
	split  bool
}

func (m metaspaceStep) pieces(s string, first bool, dst []string) []string {
	s = strings.ReplaceAll(s, " ", m.repl)
	if (m.scheme == "always" || (m.scheme == "first" && first)) && !strings.HasPrefix(s, m.repl) {
		s = m.repl + s
	}
	if !m.split {
		return append(dst, s)
	}
	return splitStep{m: literalMatcher(m.repl), behavior: mergedWithNext}.pieces(s, false, dst)
}

// literalMatcher matches a fixed string.
type literalMatcher string

func (l literalMatcher) find(s string, dst []span) []span {
	if l == "" {
		return dst
	}
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], string(l))
		if k < 0 {
			break
		}
		dst = append(dst, span{i + k, i + k + len(l)})
		i += k + len(l)
	}
	return dst
}

// runeMatcher matches single runes (each) or runs of runes (contiguous)
// for which is holds.
type runeMatcher struct {
	is  func(rune) bool
	run bool
}

func (m runeMatcher) find(s string, dst []span) []span {
	for i := 0; i < len(s); {
		r, n := at(s, i)
		if !m.is(r) {
			i += n
			continue
		}
		e := i + n
		for m.run && e < len(s) {
			r2, n2 := at(s, e)
			if !m.is(r2) {
				break
			}
			e += n2
		}
		dst = append(dst, span{i, e})
		i = e
	}
	return dst
}

// isPunct is the format's punctuation: ASCII punctuation or Unicode P*.
func isPunct(r rune) bool {
	if r < 128 {
		return r > ' ' && r < 127 && !(r >= '0' && r <= '9') && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z')
	}
	return unicode.IsPunct(r)
}

// isWordChar is Oniguruma's Unicode \w (onigWord).
func isWordChar(r rune) bool {
	switch r {
	case 0xB2, 0xB3, 0xB9, 0xBC, 0xBD, 0xBE:
		return true
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.In(r, unicode.Nd, unicode.Nl, unicode.Pc)
}

// whitespaceStep is the Whitespace pre-tokenizer, \w+|[^\w\s]+ with the
// gaps (whitespace) removed.
type whitespaceStep struct{}

func (whitespaceStep) pieces(s string, _ bool, dst []string) []string {
	for i := 0; i < len(s); {
		r, n := at(s, i)
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		word := isWordChar(r)
		e := i + n
		for e < len(s) {
			r2, n2 := at(s, e)
			if unicode.IsSpace(r2) || isWordChar(r2) != word {
				break
			}
			e += n2
		}
		dst = append(dst, s[i:e])
		i = e
	}
	return dst
}

// bertStep is BertPreTokenizer: split at whitespace (removed), then every
// punctuation rune on its own.
type bertStep struct{}

func (bertStep) pieces(s string, _ bool, dst []string) []string {
	for _, w := range strings.FieldsFunc(s, unicode.IsSpace) {
		dst = splitStep{m: runeMatcher{is: isPunct}}.pieces(w, false, dst)
	}
	return dst
}
