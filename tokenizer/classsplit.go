package tokenizer

import (
	"regexp/syntax"
	"unicode/utf8"
)

// runeClass is a character class: an ASCII table and sorted ranges.
type runeClass struct {
	ascii  [128]bool
	ranges []rune // lo, hi pairs above ASCII, sorted
}

func newRuneClass(pairs []rune) runeClass {
	var c runeClass
	for i := 0; i+1 < len(pairs); i += 2 {
		lo, hi := pairs[i], pairs[i+1]
		for r := lo; r <= hi && r < 128; r++ {
			c.ascii[r] = true
		}
		if hi >= 128 {
			c.ranges = append(c.ranges, max(lo, 128), hi)
		}
	}
	return c
}

func (c *runeClass) has(r rune) bool {
	if r < 128 {
		return r >= 0 && c.ascii[r]
	}
	lo, hi := 0, len(c.ranges)/2 // the first range whose end is >= r
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.ranges[2*m+1] < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(c.ranges)/2 && c.ranges[2*lo] <= r
}

// classSplitter matches patterns of the shape P?M{min,max}$? with P and M
// character classes (greedy), the shape of most pre-tokenizer steps:
// \p{N}, [\r\n], \s?\p{L}+, [0-9][0-9][0-9], \s+$, [...]+. It picks the
// same matches as a backtracking engine: at each position it first tries
// with the optional prefix, then without.
type classSplitter struct {
	prefix   *runeClass
	main     runeClass
	min, max int // max < 0: unbounded
	anchored bool
}

// compileClassSplitter recognises the shape in a (translated) pattern.
func compileClassSplitter(pattern string) (*classSplitter, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, false
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	x := &classSplitter{}
	if n := len(subs); n > 0 && subs[n-1].Op == syntax.OpEndText {
		x.anchored, subs = true, subs[:n-1]
	}
	if len(subs) > 1 && subs[0].Op == syntax.OpQuest && greedy(subs[0]) {
		p, ok := classOfNode(subs[0].Sub[0])
		if !ok {
			return nil, false
		}
		x.prefix, subs = &p, subs[1:]
	}
	if !x.mainPart(subs) || (x.anchored && (x.prefix != nil || x.max >= 0)) {
		return nil, false
	}
	return x, true
}

func greedy(re *syntax.Regexp) bool { return re.Flags&syntax.NonGreedy == 0 }

// mainPart reads M{min,max} from one node, or from k identical classes.
func (x *classSplitter) mainPart(subs []*syntax.Regexp) bool {
	if len(subs) == 0 {
		return false
	}
	if len(subs) > 1 {
		for _, s := range subs[1:] {
			if !s.Equal(subs[0]) {
				return false
			}
		}
		c, ok := classOfNode(subs[0])
		x.main, x.min, x.max = c, len(subs), len(subs)
		return ok
	}
	re := subs[0]
	switch re.Op {
	case syntax.OpPlus:
		x.min, x.max = 1, -1
	case syntax.OpRepeat:
		x.min, x.max = re.Min, re.Max
		if x.min < 1 {
			return false
		}
	default:
		c, ok := classOfNode(re)
		x.main, x.min, x.max = c, 1, 1
		return ok
	}
	c, ok := classOfNode(re.Sub[0])
	x.main = c
	return ok && greedy(re)
}

func classOfNode(re *syntax.Regexp) (runeClass, bool) {
	switch {
	case re.Op == syntax.OpCharClass:
		return newRuneClass(re.Rune), true
	case re.Op == syntax.OpLiteral && len(re.Rune) == 1 && re.Flags&syntax.FoldCase == 0:
		return newRuneClass([]rune{re.Rune[0], re.Rune[0]}), true
	}
	return runeClass{}, false
}

func (x *classSplitter) find(s string, dst []span) []span {
	if x.anchored {
		start := len(s)
		for start > 0 {
			r, n := utf8.DecodeLastRuneInString(s[:start])
			if !x.main.has(r) {
				break
			}
			start -= n
		}
		if start < len(s) && utf8.RuneCountInString(s[start:]) >= x.min {
			dst = append(dst, span{start, len(s)})
		}
		return dst
	}
	for i := 0; i < len(s); {
		if x.prefix == nil {
			i = x.skip(s, i) // no match can start before a rune of main
			if i == len(s) {
				break
			}
		}
		e, ok := x.matchAt(s, i)
		if !ok {
			_, n := at(s, i)
			i += n
			continue
		}
		dst = append(dst, span{i, e})
		i = e
	}
	return dst
}

// skip returns the offset of the first rune of main at or after i, or
// len(s).
func (x *classSplitter) skip(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if x.main.ascii[c] {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if x.main.has(r) {
			return i
		}
		i += n
	}
	return i
}

// matchAt tries a match starting at i: with the prefix, then without.
func (x *classSplitter) matchAt(s string, i int) (int, bool) {
	if x.prefix != nil {
		if r, n := at(s, i); x.prefix.has(r) && i+n < len(s) {
			if e, ok := x.run(s, i+n); ok {
				return e, true
			}
		}
	}
	return x.run(s, i)
}

// run matches M{min,max} greedily at i.
func (x *classSplitter) run(s string, i int) (int, bool) {
	k := 0
	for i < len(s) && (x.max < 0 || k < x.max) {
		if c := s[i]; c < utf8.RuneSelf {
			if !x.main.ascii[c] {
				break
			}
			i++
			k++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !x.main.has(r) {
			break
		}
		i += n
		k++
	}
	return i, k >= x.min
}
