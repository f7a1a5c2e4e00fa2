package tokenizer

import (
	"slices"
	"unicode/utf8"
)

// runeSet is a set of runes for the regex engine: a bitmap for ASCII and
// a predicate above it (nil: none).
type runeSet struct {
	ascii [2]uint64
	other func(rune) bool
}

func (c *runeSet) has(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && c.ascii[r>>6]&(1<<(r&63)) != 0
	}
	return c.other != nil && c.other(r)
}

// newPredSet is the set of runes for which f holds.
func newPredSet(f func(rune) bool) *runeSet {
	c := &runeSet{other: f}
	for r := rune(0); r < utf8.RuneSelf; r++ {
		if f(r) {
			c.ascii[r>>6] |= 1 << (r & 63)
		}
	}
	return c
}

// newRuneListSet is the set of the given runes.
func newRuneListSet(runes []rune) *runeSet {
	var big []rune
	c := &runeSet{}
	for _, r := range runes {
		if r >= 0 && r < utf8.RuneSelf {
			c.ascii[r>>6] |= 1 << (r & 63)
		} else {
			big = append(big, r)
		}
	}
	if len(big) > 0 {
		c.other = func(r rune) bool { return slices.Contains(big, r) }
	}
	return c
}

// classItem is one member of a bracket class: a range or a predicate.
type classItem struct {
	lo, hi rune
	pred   func(rune) bool
}

// class reads a bracket class after "[": an optional "^", then single
// runes, ranges a-z and escapes. Nested classes, intersections, a "]" or
// "-" in an ambiguous place and classes under (?i) are refused.
func (p *reParser) class() (*reNode, error) {
	if p.fold {
		return nil, errUnsupported
	}
	neg := false
	if p.peek() == '^' {
		neg = true
		p.pos++
	}
	if p.peek() == ']' {
		return nil, errUnsupported
	}
	var items []classItem
	for {
		if !p.more() {
			return nil, errUnsupported
		}
		if p.peek() == ']' {
			p.pos++
			break
		}
		it, err := p.classItem(len(items) == 0)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	f := func(r rune) bool {
		for _, it := range items {
			if it.pred != nil {
				if it.pred(r) {
					return true
				}
			} else if r >= it.lo && r <= it.hi {
				return true
			}
		}
		return false
	}
	return p.node(&reNode{op: reSet, set: newPredSet(negIf(f, neg))})
}

// classItem reads one rune, range or class escape inside a class.
func (p *reParser) classItem(first bool) (classItem, error) {
	lo, pred, escaped, err := p.classRune()
	if err != nil || pred != nil {
		if err == nil && p.dashInside() {
			err = errUnsupported // \w-x: neither a range nor clearly a literal "-"
		}
		return classItem{pred: pred}, err
	}
	if lo == '-' && !escaped && !first && p.peek() != ']' {
		return classItem{}, errUnsupported // "-" after a range, or a subtraction
	}
	if !p.dashInside() {
		return classItem{lo: lo, hi: lo}, nil
	}
	p.pos++ // "-"
	hi, pred, _, err := p.classRune()
	if err != nil || pred != nil || hi < lo || p.dashInside() {
		return classItem{}, errUnsupported // a bad range, or a-b-c
	}
	return classItem{lo: lo, hi: hi}, nil
}

// dashInside reports whether a "-" that is not the class's last rune
// comes next.
func (p *reParser) dashInside() bool {
	return p.peek() == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']'
}

// classRune reads a rune or a class escape inside a class; escaped says
// the rune was written with a backslash.
func (p *reParser) classRune() (r rune, pred func(rune) bool, escaped bool, err error) {
	c := p.src[p.pos]
	p.pos++
	switch c {
	case '[':
		return 0, nil, false, errUnsupported // nested class or [:alpha:]
	case '&':
		if p.peek() == '&' {
			return 0, nil, false, errUnsupported // intersection
		}
	case '\\':
		if !p.more() || p.peek() == 'b' {
			return 0, nil, false, errUnsupported // \b: backspace in .NET, a boundary elsewhere
		}
		pred, r, err := p.escapeItem()
		return r, pred, true, err
	}
	return c, nil, false, nil
}
