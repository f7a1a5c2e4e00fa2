package tokenizer

// The merge loop shared by all BPE flavours. A word is split into initial
// symbols; adjacent pairs that may merge sit in a min-heap ordered by cost
// (merge rank, or minus the score of the merged piece), ties broken by the
// leftmost position, which is the order Hugging Face tokenizers and
// llama.cpp both use. Stale heap entries are detected by the symbol spans.

type symbol struct {
	id         int32 // vocabulary id, -1 when the span has none yet
	start, end int32 // byte span in the word
	prev, next int32 // neighbours, -1 at the ends
}

type candidate struct {
	cost            float64
	left, right     int32
	leftEnd, endPos int32 // spans at push time, to detect stale entries
	id              int32 // id of the merged piece
}

type pairHeap []candidate

func (h pairHeap) less(i, j int) bool {
	if h[i].cost != h[j].cost {
		return h[i].cost < h[j].cost
	}
	return h[i].left < h[j].left
}

func (h *pairHeap) push(c candidate) {
	*h = append(*h, c)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *pairHeap) pop() candidate {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && a.less(l, m) {
			m = l
		}
		if r < n && a.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// pairFunc says whether the symbols a and b (adjacent, a first) of word may
// merge, the merged id and its cost.
type pairFunc func(word string, a, b *symbol) (id int32, cost float64, ok bool)

// mergeWord runs the merge loop over syms (already linked) in place and
// returns the surviving symbols in order.
func mergeWord(word string, syms []symbol, pair pairFunc, h *pairHeap) []symbol {
	*h = (*h)[:0]
	add := func(l int32) {
		if l < 0 || syms[l].next < 0 {
			return
		}
		a, b := &syms[l], &syms[syms[l].next]
		if id, cost, ok := pair(word, a, b); ok {
			h.push(candidate{cost: cost, left: l, right: a.next, leftEnd: a.end, endPos: b.end, id: id})
		}
	}
	for i := range syms {
		add(int32(i))
	}
	for len(*h) > 0 {
		c := h.pop()
		a := &syms[c.left]
		if a.start < 0 || a.next != c.right || a.end != c.leftEnd || syms[c.right].end != c.endPos {
			continue
		}
		b := &syms[c.right]
		a.end, a.id, a.next = b.end, c.id, b.next
		if b.next >= 0 {
			syms[b.next].prev = c.left
		}
		b.start = -1 // dead
		add(a.prev)
		add(c.left)
	}
	out := syms[:0]
	for _, s := range syms {
		if s.start >= 0 {
			out = append(out, s)
		}
	}
	return out
}

// link sets prev/next of consecutive symbols.
func link(syms []symbol) {
	for i := range syms {
		syms[i].prev = int32(i) - 1
		syms[i].next = int32(i) + 1
	}
	if len(syms) > 0 {
		syms[len(syms)-1].next = -1
	}
}
