package rules

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// A prefilter skips rules that cannot match. For each rule it holds a set
// of literals at least one of which occurs in every string the rule's
// pattern matches (derived from the pattern's syntax tree). Most kernel
// names contain none of a rule's literals, and a few substring searches
// cost far less than running the regexp, which for long templated names
// and large alternations falls back to Go's NFA.
//
// The prefilter is only an optimisation: when it cannot derive literals
// for a pattern, or when a name is not ASCII (case folding is then beyond
// a plain lower-casing), the rule's regexp decides alone.
type prefilter struct {
	re         []*regexp.Regexp // the pattern each entry was derived from, to detect edited rules
	lits       [][]lit          // nil: no prefilter for that rule
	sufficient []bool           // the literals are the pattern's whole language: a hit is a match
	always     []uint64         // bit set of rules without literals
	cs, fold   litIndex         // case-sensitive literals, and lower-cased ones
}

// litIndex finds every literal occurring in a string in one pass, through
// its first two bytes (a CSR table keyed by the byte pair).
type litIndex struct {
	start   []uint32 // len 1<<16+1 when non-empty
	entries []litEntry
}

type litEntry struct {
	s    string
	rule int32
}

func buildIndex(es []litEntry) litIndex {
	if len(es) == 0 {
		return litIndex{}
	}
	count := make([]uint32, 1<<16+1)
	for _, e := range es {
		count[key(e.s)+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	out := make([]litEntry, len(es))
	fill := append([]uint32(nil), count[:1<<16]...)
	for _, e := range es {
		k := key(e.s)
		out[fill[k]] = e
		fill[k]++
	}
	return litIndex{start: count, entries: out}
}

func key(s string) uint16 { return uint16(s[0])<<8 | uint16(s[1]) }

// scan sets in bits the rule of every literal that occurs in s.
func (x *litIndex) scan(s string, bits []uint64) {
	if x.start == nil {
		return
	}
	for p := 0; p+1 < len(s); p++ {
		k := uint16(s[p])<<8 | uint16(s[p+1])
		lo, hi := x.start[k], x.start[k+1]
		for _, e := range x.entries[lo:hi] {
			if bits[e.rule>>6]&(1<<(e.rule&63)) == 0 && strings.HasPrefix(s[p:], e.s) {
				bits[e.rule>>6] |= 1 << (e.rule & 63)
			}
		}
	}
}

type lit struct {
	s    string
	fold bool // s is lower-case; compare against the lower-cased input
}

const (
	maxLits   = 64 // larger literal sets are not worth building
	minLitLen = 2  // shorter literals filter too little
)

func newPrefilter(rs []Rule) *prefilter {
	n := len(rs)
	p := &prefilter{re: make([]*regexp.Regexp, n), lits: make([][]lit, n), sufficient: make([]bool, n),
		always: make([]uint64, (n+63)/64)}
	var cs, fold []litEntry
	for i := range rs {
		re := rs[i].Name
		if re == nil {
			re = rs[i].NVTX
		}
		p.re[i] = re
		if re != nil {
			p.lits[i], p.sufficient[i] = requiredLiterals(re.String())
		}
		if p.lits[i] == nil {
			p.always[i>>6] |= 1 << (i & 63)
			continue
		}
		for _, l := range p.lits[i] {
			e := litEntry{l.s, int32(i)}
			if l.fold {
				fold = append(fold, e)
			} else {
				cs = append(cs, e)
			}
		}
	}
	p.cs, p.fold = buildIndex(cs), buildIndex(fold)
	return p
}

// requiredLiterals returns literals one of which every match of expr
// contains, or nil; sufficient reports that expr matches exactly the
// strings that contain one of them.
func requiredLiterals(expr string) (ls []lit, sufficient bool) {
	t, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, false
	}
	t = t.Simplify()
	ls, exact, ok := need(t)
	if !ok || len(ls) == 0 || len(ls) > maxLits || minLen(ls) < minLitLen {
		return nil, false
	}
	mode := 0
	return dedupe(ls), exact && pure(t, &mode)
}

// pure reports whether t is built only of literals, small character
// classes, alternation, concatenation, optional parts and grouping, with one case mode
// throughout (mode: 0 unset, 1 folded, 2 exact), so that the literal set
// computed by need is its whole language.
func pure(t *syntax.Regexp, mode *int) bool {
	switch t.Op {
	case syntax.OpLiteral:
		m := 2
		if t.Flags&syntax.FoldCase != 0 {
			m = 1
		}
		if *mode != 0 && *mode != m {
			return false
		}
		*mode = m
		return true
	case syntax.OpCharClass:
		if *mode == 1 {
			return false
		}
		*mode = 2
		return true // need has checked its size
	case syntax.OpEmptyMatch:
		return true
	case syntax.OpCapture, syntax.OpConcat, syntax.OpAlternate, syntax.OpQuest:
		for _, sub := range t.Sub {
			if !pure(sub, mode) {
				return false
			}
		}
		return true
	}
	return false
}

// need computes, for the regexp t, a set of strings such that every match
// of t contains one of them. exact reports the stronger property that
// every match is one of them (zero-width assertions aside), which lets a
// concatenation multiply neighbouring sets. ok is false when nothing
// useful can be said.
func need(t *syntax.Regexp) (ls []lit, exact, ok bool) {
	switch t.Op {
	case syntax.OpLiteral:
		fold := t.Flags&syntax.FoldCase != 0
		s := string(t.Rune)
		if fold {
			if !isASCII(s) {
				return nil, false, false
			}
			s = strings.ToLower(s)
		}
		return []lit{{s, fold}}, true, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []lit{{"", false}}, true, true
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(t.Rune); i += 2 {
			n += int(t.Rune[i+1]-t.Rune[i]) + 1
			if n > 4 {
				return nil, false, false
			}
		}
		for i := 0; i+1 < len(t.Rune); i += 2 {
			for r := t.Rune[i]; r <= t.Rune[i+1]; r++ {
				ls = append(ls, lit{string(r), false})
			}
		}
		return ls, true, len(ls) > 0
	case syntax.OpCapture:
		return need(t.Sub[0])
	case syntax.OpPlus:
		ls, _, ok = need(t.Sub[0])
		return ls, false, ok
	case syntax.OpRepeat:
		if t.Min < 1 {
			return nil, false, false
		}
		ls, exact, ok = need(t.Sub[0])
		return ls, exact && t.Min == 1 && t.Max == 1, ok
	case syntax.OpQuest:
		ls, exact, ok = need(t.Sub[0])
		if !ok || !exact {
			return nil, false, false
		}
		return append(ls, lit{"", false}), true, true
	case syntax.OpAlternate:
		exact = true
		for _, sub := range t.Sub {
			l, e, o := need(sub)
			if !o {
				return nil, false, false
			}
			ls = append(ls, l...)
			exact = exact && e
			if len(ls) > maxLits {
				return nil, false, false
			}
		}
		return ls, exact, true
	case syntax.OpConcat:
		return needConcat(t.Sub)
	}
	return nil, false, false
}

// needConcat multiplies runs of exact neighbours and keeps the best
// necessary set among the runs and the inexact parts.
func needConcat(subs []*syntax.Regexp) ([]lit, bool, bool) {
	acc := []lit{{"", false}}
	allExact := true
	var best []lit
	consider := func(ls []lit) {
		if len(ls) == 0 || len(ls) > maxLits {
			return
		}
		if best == nil || better(ls, best) {
			best = ls
		}
	}
	for _, sub := range subs {
		l, e, o := need(sub)
		if o && e && len(acc)*len(l) <= maxLits {
			acc = cross(acc, l)
			continue
		}
		allExact = false
		consider(acc)
		acc = []lit{{"", false}}
		if o {
			if e {
				acc = l // a run may start again from this exact part
			} else {
				consider(l)
			}
		}
	}
	if allExact {
		return acc, true, true
	}
	consider(acc)
	if best == nil || minLen(best) == 0 {
		return nil, false, false
	}
	return best, false, true
}

func cross(a, b []lit) []lit {
	out := make([]lit, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			fold := x.fold || y.fold
			xs, ys := x.s, y.s
			if fold {
				if !isASCII(xs) || !isASCII(ys) {
					// cannot lower-case soundly; keep the folded part only
					if y.fold {
						out = append(out, y)
					} else {
						out = append(out, x)
					}
					continue
				}
				xs, ys = strings.ToLower(xs), strings.ToLower(ys)
			}
			out = append(out, lit{xs + ys, fold})
		}
	}
	return out
}

// better prefers the set whose shortest literal is longer, then the
// smaller set.
func better(a, b []lit) bool {
	ma, mb := minLen(a), minLen(b)
	if ma != mb {
		return ma > mb
	}
	return len(a) < len(b)
}

func minLen(ls []lit) int {
	m := -1
	for _, l := range ls {
		if m < 0 || len(l.s) < m {
			m = len(l.s)
		}
	}
	return max(m, 0)
}

func dedupe(ls []lit) []lit {
	seen := map[lit]bool{}
	out := ls[:0:0]
	for _, l := range ls {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// input is a string prepared for prefiltering: the set of rules whose
// literals occur in it, or skip when the prefilter cannot be trusted for it.
type input struct {
	bits []uint64
	skip bool
}

func (p *prefilter) prepare(s string) input {
	if p == nil || !isASCII(s) {
		return input{skip: true}
	}
	bits := append([]uint64(nil), p.always...)
	p.cs.scan(s, bits)
	if p.fold.start != nil {
		p.fold.scan(strings.ToLower(s), bits)
	}
	return input{bits: bits}
}

// check reports whether rule i (whose pattern is re) can match in
// (may), and whether it certainly does (sure).
func (p *prefilter) check(i int, re *regexp.Regexp, in *input) (may, sure bool) {
	if p == nil || in.skip || i >= len(p.re) || p.re[i] != re {
		return true, false
	}
	if in.bits[i>>6]&(1<<(i&63)) == 0 {
		return false, false
	}
	return true, p.sufficient[i]
}
