package tokenizer

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizer regex engine (reparse.go, rematch.go) runs the
// patterns of tokenizer files that have no hand scanner, with the
// matches of a backtracking engine (leftmost, first alternative, greedy
// or lazy quantifiers, atomic lookahead) and Oniguruma's classes. It
// reads a subset of the syntax; a pattern outside it (lookbehind,
// backreferences, possessive or atomic groups, nested classes, classes
// under (?i), a pattern or loop body that can match empty, …) is refused
// with errUnsupported and runs on regexp2 instead. Tests prove the engine
// equal to regexp2 on every pattern of the known tokenizer families, on
// random patterns and by fuzzing.

// errUnsupported marks a pattern the engine leaves to regexp2.
var errUnsupported = errors.New("pattern outside the engine's subset")

// reOp is the kind of a pattern node.
type reOp uint8

const (
	reSet    reOp = iota // one rune of set
	reEmpty              // matches the empty string
	reConcat             // subs in order
	reAlt                // first sub that leads to a match
	reRepeat             // sub min..max times (max < 0: unbounded), greedy unless lazy
	reLook               // lookahead: sub matches here (neg: does not), zero width
	reBOL                // ^: start of text or after "\n"
	reEOL                // $: end of text or before "\n"
	reBOT                // \A
	reEOT                // \z
)

// reNode is a node of a parsed pattern.
type reNode struct {
	op       reOp
	set      *runeSet
	subs     []*reNode
	min, max int
	lazy     bool
	neg      bool
	first    firstSet // runes a match can start with (a superset)
}

// maxRepeat bounds the counts of {n,m}; maxPatternNodes bounds a pattern.
const (
	maxRepeat       = 1000
	maxPatternNodes = 10000
)

// reParser reads a pattern; fold is the (?i) flag in force.
type reParser struct {
	src   []rune
	pos   int
	fold  bool
	nodes int
}

// parseRegex parses an Oniguruma pattern into the engine's tree.
func parseRegex(pattern string) (*reNode, error) {
	if !utf8.ValidString(pattern) {
		return nil, errUnsupported
	}
	p := &reParser{src: []rune(pattern)}
	n, err := p.alt()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.src) {
		return nil, errUnsupported // an unbalanced ")"
	}
	if err := check(n); err != nil {
		return nil, err
	}
	if n.first.nullable {
		return nil, errUnsupported
	}
	return n, nil
}

func (p *reParser) more() bool { return p.pos < len(p.src) }

func (p *reParser) peek() rune {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return -1
}

func (p *reParser) node(n *reNode) (*reNode, error) {
	if p.nodes++; p.nodes > maxPatternNodes {
		return nil, errUnsupported
	}
	return n, nil
}

// alt reads alternatives up to ")" or the end.
func (p *reParser) alt() (*reNode, error) {
	saved := p.fold
	defer func() { p.fold = saved }() // (?i) lasts to the end of its group
	var subs []*reNode
	for {
		c, err := p.concat()
		if err != nil {
			return nil, err
		}
		subs = append(subs, c)
		if p.peek() != '|' {
			break
		}
		p.pos++
	}
	if len(subs) == 1 {
		return subs[0], nil
	}
	if set := unionOfSets(subs); set != nil {
		return p.node(&reNode{op: reSet, set: set})
	}
	return p.node(&reNode{op: reAlt, subs: subs})
}

// unionOfSets joins alternatives that are all single-rune sets into one
// set (the same matches: each alternative takes the same one rune and
// leaves the same continuation), or returns nil. Without it, a loop over
// such alternatives would try every alternative that fits each rune.
func unionOfSets(subs []*reNode) *runeSet {
	sets := make([]*runeSet, len(subs))
	for i, s := range subs {
		if s.op != reSet {
			return nil
		}
		sets[i] = s.set
	}
	return newPredSet(func(r rune) bool {
		for _, c := range sets {
			if c.has(r) {
				return true
			}
		}
		return false
	})
}

// concat reads items up to "|", ")" or the end.
func (p *reParser) concat() (*reNode, error) {
	var subs []*reNode
	for p.more() && p.peek() != '|' && p.peek() != ')' {
		n, err := p.repeat()
		if err != nil {
			return nil, err
		}
		if n != nil {
			subs = append(subs, n)
		}
	}
	switch len(subs) {
	case 0:
		return p.node(&reNode{op: reEmpty})
	case 1:
		return subs[0], nil
	}
	return p.node(&reNode{op: reConcat, subs: subs})
}

// repeat reads an atom and its quantifier, if any.
func (p *reParser) repeat() (*reNode, error) {
	atom, err := p.atom()
	if err != nil || atom == nil {
		return atom, err
	}
	min, max, ok, err := p.quantifier()
	if err != nil || !ok {
		return atom, err
	}
	n := &reNode{op: reRepeat, subs: []*reNode{atom}, min: min, max: max}
	switch p.peek() {
	case '?':
		n.lazy = true
		p.pos++
	case '+':
		return nil, errUnsupported // possessive
	}
	switch p.peek() {
	case '?', '*', '+', '{':
		return nil, errUnsupported // a quantified quantifier
	}
	return p.node(n)
}

// quantifier reads ?, *, + or {n}, {n,}, {n,m}.
func (p *reParser) quantifier() (min, max int, ok bool, err error) {
	switch p.peek() {
	case '?':
		p.pos++
		return 0, 1, true, nil
	case '*':
		p.pos++
		return 0, -1, true, nil
	case '+':
		p.pos++
		return 1, -1, true, nil
	case '{':
	default:
		return 0, 0, false, nil
	}
	end := p.pos + 1
	for end < len(p.src) && p.src[end] != '}' {
		end++
	}
	if end == len(p.src) {
		return 0, 0, false, errUnsupported
	}
	body := string(p.src[p.pos+1 : end])
	lo, hi, found := strings.Cut(body, ",")
	min, err1 := strconv.Atoi(lo)
	max, err2 := min, error(nil)
	if found {
		max, err2 = -1, nil
		if hi != "" {
			max, err2 = strconv.Atoi(hi)
		}
	}
	if err1 != nil || err2 != nil || lo == "" || strings.ContainsAny(body, "+- ") || min > maxRepeat || max > maxRepeat || (max >= 0 && max < min) {
		return 0, 0, false, errUnsupported
	}
	p.pos = end + 1
	return min, max, true, nil
}

// atom reads one item: a group, a class, an escape, an anchor or a
// literal. It returns nil for an inline flag group such as (?i).
func (p *reParser) atom() (*reNode, error) {
	c := p.src[p.pos]
	p.pos++
	switch c {
	case '(':
		return p.group()
	case '[':
		return p.class()
	case '.':
		return p.node(&reNode{op: reSet, set: newPredSet(func(r rune) bool { return r != '\n' })})
	case '^':
		return p.node(&reNode{op: reBOL})
	case '$':
		return p.node(&reNode{op: reEOL})
	case '\\':
		return p.escape()
	case '*', '+', '?', '{', '}', ']':
		return nil, errUnsupported
	}
	return p.literal(c)
}

// literal is one rune. Under (?i) a lowercase or uppercase rune also
// matches the other runes of its simple case folding orbit, as regexp2
// takes it (other runes, title case included, match only themselves).
func (p *reParser) literal(c rune) (*reNode, error) {
	runes := []rune{c}
	if p.fold && (unicode.IsLower(c) || unicode.IsUpper(c)) {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			runes = append(runes, f)
		}
	}
	return p.node(&reNode{op: reSet, set: newRuneListSet(runes)})
}

// group reads what follows "(".
func (p *reParser) group() (*reNode, error) {
	look, neg := false, false
	if p.peek() == '?' {
		p.pos++
		switch c := p.peek(); {
		case c == ':':
			p.pos++
		case c == '=' || c == '!':
			look, neg = true, c == '!'
			p.pos++
		case c == 'i' || c == '-':
			return p.flagGroup()
		default:
			return nil, errUnsupported // lookbehind, named, atomic, comments, …
		}
	}
	n, err := p.alt()
	if err != nil {
		return nil, err
	}
	if p.peek() != ')' {
		return nil, errUnsupported
	}
	p.pos++
	if look {
		return p.node(&reNode{op: reLook, subs: []*reNode{n}, neg: neg})
	}
	return n, nil
}

// flagGroup reads (?i) (?-i) (?i:…) (?-i:…), after "(?".
func (p *reParser) flagGroup() (*reNode, error) {
	on := true
	if p.peek() == '-' {
		on = false
		p.pos++
	}
	if p.peek() != 'i' {
		return nil, errUnsupported
	}
	p.pos++
	switch p.peek() {
	case ')':
		p.pos++
		p.fold = on // to the end of the enclosing group
		return nil, nil
	case ':':
		p.pos++
		saved := p.fold
		p.fold = on
		n, err := p.alt()
		p.fold = saved
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, errUnsupported
		}
		p.pos++
		return n, nil
	}
	return nil, errUnsupported
}

// escape reads what follows "\" outside a class.
func (p *reParser) escape() (*reNode, error) {
	if !p.more() {
		return nil, errUnsupported
	}
	switch c := p.src[p.pos]; c {
	case 'A':
		p.pos++
		return p.node(&reNode{op: reBOT})
	case 'z':
		p.pos++
		return p.node(&reNode{op: reEOT})
	}
	set, lit, err := p.escapeItem()
	if err != nil {
		return nil, err
	}
	if p.fold && (set != nil || unicode.IsLower(lit) || unicode.IsUpper(lit) || unicode.IsTitle(lit)) {
		return nil, errUnsupported // regexp2 folds escapes its own way
	}
	if set != nil {
		return p.node(&reNode{op: reSet, set: newPredSet(set)})
	}
	return p.literal(lit)
}

// escapeItem reads an escape valid both inside and outside classes, after
// "\": a class (\s \S \d \D \w \W \p{…} \P{…}) or one rune.
func (p *reParser) escapeItem() (func(rune) bool, rune, error) {
	c := p.src[p.pos]
	p.pos++
	switch c {
	case 's', 'S':
		return negIf(isWhiteSpace, c == 'S'), 0, nil
	case 'd', 'D':
		return negIf(func(r rune) bool { return unicode.Is(unicode.Nd, r) }, c == 'D'), 0, nil
	case 'w', 'W':
		return negIf(isWordChar, c == 'W'), 0, nil
	case 'p', 'P':
		t, err := p.property()
		if err != nil {
			return nil, 0, err
		}
		return negIf(func(r rune) bool { return unicode.Is(t, r) }, c == 'P'), 0, nil
	case 'n':
		return nil, '\n', nil
	case 'r':
		return nil, '\r', nil
	case 't':
		return nil, '\t', nil
	case 'f':
		return nil, '\f', nil
	case 'v':
		return nil, '\v', nil
	case 'x':
		return p.hex(2)
	case 'u':
		return p.hex(4)
	}
	if c < utf8.RuneSelf && (unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_') {
		return nil, 0, errUnsupported // \b \B \G \h \k \K \R \X \1 …
	}
	return nil, c, nil
}

// hex reads exactly n hex digits of \xHH or \uHHHH.
func (p *reParser) hex(n int) (func(rune) bool, rune, error) {
	if p.pos+n > len(p.src) {
		return nil, 0, errUnsupported
	}
	v, err := strconv.ParseUint(string(p.src[p.pos:p.pos+n]), 16, 32)
	if err != nil {
		return nil, 0, errUnsupported
	}
	p.pos += n
	return nil, rune(v), nil
}

// property reads {Name} of \p{Name}: a general category or a script.
func (p *reParser) property() (*unicode.RangeTable, error) {
	if p.peek() != '{' {
		return nil, errUnsupported
	}
	end := p.pos
	for end < len(p.src) && p.src[end] != '}' {
		end++
	}
	if end == len(p.src) {
		return nil, errUnsupported
	}
	name := string(p.src[p.pos+1 : end])
	p.pos = end + 1
	if t, ok := unicode.Categories[name]; ok && unicode.Properties[name] == nil {
		return t, nil
	}
	if t, ok := unicode.Scripts[name]; ok && unicode.Properties[name] == nil && unicode.CategoryAliases[name] == "" {
		return t, nil
	}
	return nil, errUnsupported
}

func negIf(f func(rune) bool, neg bool) func(rune) bool {
	if neg {
		return func(r rune) bool { return !f(r) }
	}
	return f
}

// isWhiteSpace is \s: the Unicode White_Space property.
func isWhiteSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiClass[r] == clsSpace
	}
	return unicode.IsSpace(r)
}
