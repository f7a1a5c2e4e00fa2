package tokenizer

import "sync"

// firstSet is what the engine knows of a node's matches before trying it:
// the ASCII runes one can start with, whether one can start with a rune
// above ASCII, and whether one can be empty (then it may start with
// anything that follows it).
type firstSet struct {
	ascii    [2]uint64
	nonASCII bool
	nullable bool
}

// allows reports whether a match of the node may start at s[i:].
func (f *firstSet) allows(s string, i int) bool {
	if f.nullable {
		return true
	}
	if i >= len(s) {
		return false
	}
	if c := s[i]; c < 0x80 {
		return f.ascii[c>>6]&(1<<(c&63)) != 0
	}
	return f.nonASCII
}

func (f *firstSet) union(g firstSet) {
	f.ascii[0] |= g.ascii[0]
	f.ascii[1] |= g.ascii[1]
	f.nonASCII = f.nonASCII || g.nonASCII
}

// check computes the first sets of n and its subtree and refuses loops
// whose body can match empty (their semantics differ between engines).
func check(n *reNode) error {
	for _, s := range n.subs {
		if err := check(s); err != nil {
			return err
		}
	}
	switch n.op {
	case reSet:
		n.first = firstSet{ascii: n.set.ascii, nonASCII: n.set.other != nil}
	case reConcat:
		n.first.nullable = true
		for _, s := range n.subs {
			n.first.union(s.first)
			if !s.first.nullable {
				n.first.nullable = false
				break
			}
		}
	case reAlt:
		for _, s := range n.subs {
			n.first.union(s.first)
			n.first.nullable = n.first.nullable || s.first.nullable
		}
	case reRepeat:
		if n.subs[0].first.nullable {
			return errUnsupported
		}
		n.first = n.subs[0].first
		n.first.nullable = n.min == 0
	default: // empty, anchors, lookahead: zero width
		n.first.nullable = true
	}
	return nil
}

// reCont is a pending continuation: the rest of a concatenation (from
// sub j) or of a loop (j iterations done), then the continuation next.
type reCont struct {
	n    *reNode
	j    int
	next int32 // index in reRun.conts; -1: the match ends here
}

// reRun is the state of matching one string. Continuations live on a
// stack (conts) in call order; the matcher returns the end of the whole
// match, or -1.
type reRun struct {
	s      string
	conts  []reCont
	steps  int
	limit  int
	failed bool // a bound was exceeded: the answer is unknown
}

// Bounds of one find: steps per byte of text (plus a base), and the
// depth of the match recursion.
const (
	reStepsPerByte = 512
	reStepsBase    = 1 << 16
	reMaxDepth     = 1 << 13
)

var reRunPool = sync.Pool{New: func() any { return new(reRun) }}

// reMatch finds the matches of root in s, left to right; ok is false when
// a bound was exceeded.
func reMatch(root *reNode, s string, dst []span) ([]span, bool) {
	r := reRunPool.Get().(*reRun)
	defer func() {
		r.s = "" // the pool keeps no text alive
		reRunPool.Put(r)
	}()
	*r = reRun{s: s, conts: r.conts[:0], limit: reStepsBase + reStepsPerByte*len(s)}
	for i := 0; i < len(s); {
		if root.first.allows(s, i) {
			if e := r.m(root, i, -1); e > i {
				dst = append(dst, span{i, e})
				i = e
				continue
			}
			if r.failed {
				return dst, false
			}
		}
		_, w := at(s, i)
		i += w
	}
	return dst, true
}

// push adds a continuation and returns its index. The recursion only
// deepens by a bounded number of calls between pushes (every other step
// moves to an older continuation), so bounding the stack of
// continuations bounds the recursion.
func (r *reRun) push(n *reNode, j int, next int32) int32 {
	if len(r.conts) >= reMaxDepth {
		r.failed = true
		r.limit = 0 // the next step fails
	}
	r.conts = append(r.conts, reCont{n: n, j: j, next: next})
	return int32(len(r.conts) - 1)
}

// m matches n at i, then the continuation k.
func (r *reRun) m(n *reNode, i int, k int32) int {
	if r.steps++; r.steps > r.limit {
		r.failed = true
		return -1
	}
	switch n.op {
	case reSet:
		if i >= len(r.s) {
			return -1
		}
		if c := r.s[i]; c < 0x80 {
			if n.set.ascii[c>>6]&(1<<(c&63)) == 0 {
				return -1
			}
			return r.cont(k, i+1)
		}
		c, w := at(r.s, i)
		if !n.set.has(c) {
			return -1
		}
		return r.cont(k, i+w)
	case reConcat:
		top := len(r.conts)
		e := r.m(n.subs[0], i, r.push(n, 1, k))
		r.conts = r.conts[:top]
		return e
	case reAlt:
		if !n.first.allows(r.s, i) {
			return -1
		}
		for _, sub := range n.subs {
			if !sub.first.allows(r.s, i) {
				continue
			}
			if e := r.m(sub, i, k); e >= 0 || r.failed {
				return e
			}
		}
		return -1
	case reRepeat:
		if n.subs[0].op == reSet {
			return r.setRun(n, i, k)
		}
		return r.loop(n, 0, i, k)
	case reLook:
		top := len(r.conts)
		e := r.m(n.subs[0], i, -1) // atomic: its first match decides
		r.conts = r.conts[:top]
		if r.failed || (e >= 0) == n.neg {
			return -1
		}
		return r.cont(k, i)
	}
	if !r.anchor(n.op, i) {
		return -1
	}
	return r.cont(k, i)
}

// anchor tests a zero-width node other than a lookahead.
func (r *reRun) anchor(op reOp, i int) bool {
	switch op {
	case reBOL:
		return i == 0 || r.s[i-1] == '\n'
	case reEOL:
		return i == len(r.s) || r.s[i] == '\n'
	case reBOT:
		return i == 0
	case reEOT:
		return i == len(r.s)
	}
	return true // reEmpty
}

// cont runs the continuation k from i.
func (r *reRun) cont(k int32, i int) int {
	if k < 0 {
		return i
	}
	c := r.conts[k]
	if c.n.op == reRepeat {
		return r.loop(c.n, c.j, i, c.next)
	}
	if c.j == len(c.n.subs)-1 { // the last item: no continuation of its own
		return r.m(c.n.subs[c.j], i, c.next)
	}
	top := len(r.conts)
	e := r.m(c.n.subs[c.j], i, r.push(c.n, c.j+1, c.next))
	r.conts = r.conts[:top]
	return e
}

// loop continues a repeat after count iterations ending at i.
func (r *reRun) loop(n *reNode, count, i int, k int32) int {
	more := n.max < 0 || count < n.max
	if n.lazy && count >= n.min {
		if e := r.cont(k, i); e >= 0 || r.failed {
			return e
		}
	}
	if more && n.subs[0].first.allows(r.s, i) {
		top := len(r.conts)
		e := r.m(n.subs[0], i, r.push(n, count+1, k))
		r.conts = r.conts[:top]
		if e >= 0 || r.failed || n.lazy {
			return e
		}
	}
	if !n.lazy && count >= n.min {
		return r.cont(k, i)
	}
	return -1
}

// setRun is a repeat of a single-rune set: greedy takes the longest run
// and gives back one rune at a time; lazy takes one more at a time.
func (r *reRun) setRun(n *reNode, i int, k int32) int {
	set, s := n.subs[0].set, r.s
	if n.lazy {
		for count := 0; ; count++ {
			if count >= n.min {
				if e := r.cont(k, i); e >= 0 || r.failed {
					return e
				}
			}
			if (n.max >= 0 && count >= n.max) || i >= len(s) {
				return -1
			}
			c, w := at(s, i)
			if !set.has(c) {
				return -1
			}
			i += w
		}
	}
	j, count := i, 0
	for (n.max < 0 || count < n.max) && j < len(s) {
		if c := s[j]; c < 0x80 {
			if set.ascii[c>>6]&(1<<(c&63)) == 0 {
				break
			}
			j++
			count++
			continue
		}
		c, w := at(s, j)
		if !set.has(c) {
			break
		}
		j += w
		count++
	}
	for ; count >= n.min; count-- {
		if k < 0 {
			return j
		}
		if e := r.cont(k, j); e >= 0 || r.failed {
			return e
		}
		if count > 0 {
			_, w := lastRune(s[i:j])
			j -= w
		}
	}
	return -1
}
