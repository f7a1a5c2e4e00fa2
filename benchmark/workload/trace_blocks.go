package workload

import (
	"fmt"
	"math"
)

// blockTree holds every distinct prompt block of the requests kept: a
// Mooncake hash id (the block and everything before it), or a block of a
// trace without prefix information, which no other request shares.
//
// A block's token ids are a pure function of the seed, its hash id and
// where it first appeared:
//
//   - its first token, the head, is drawn per parent block: the k-th
//     distinct block to follow a prefix gets head (a·k + b) mod span,
//     with a coprime to span and a, b hashed from the seed and the
//     parent, so blocks that follow the same prefix differ in their first
//     token (while fewer than span of them do; beyond, clashes counts);
//   - the other tokens come from a counter-based generator (SplitMix64)
//     seeded by the seed and the hash id;
//   - a partial last block is the block's first tokens.
//
// So two prompts share exactly the tokens their hash ids imply: whole
// blocks while the ids agree, then, where they name the same last block,
// the shorter one's part of it.
type blockTree struct {
	seed     uint64
	span     uint64 // token ids are in [FirstTokenID, FirstTokenID+span)
	byID     map[int64]int32
	id       []int64 // hash id (seeds the block's tokens)
	parent   []int32 // the block before it, -1 at a prompt's start
	head     []int32 // first token
	line     []int32 // line the block first appeared on
	seen     []int32 // most tokens of the block an earlier request sent
	kids     []int32 // distinct blocks that follow it
	rootKids int32
	clashes  int // blocks whose head repeats a sibling's
}

func newBlockTree(seed uint64, vocab int) *blockTree {
	return &blockTree{seed: seed, span: uint64(vocab - FirstTokenID), byID: map[int64]int32{}}
}

// mix is SplitMix64's finaliser.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

const (
	saltHead = 0x68656164 // "head"
	saltBody = 0x626f6479 // "body"
	rootKey  = 0x726f6f74 // "root"
)

// newNode adds a block after parent (-1: at the start) and gives it its
// head.
func (t *blockTree) newNode(id int64, parent int32, line int) int32 {
	n := int32(len(t.id))
	k, key := &t.rootKids, uint64(rootKey)
	if parent >= 0 {
		k, key = &t.kids[parent], uint64(t.id[parent])
	}
	h := mix(t.seed ^ mix(key^saltHead))
	a := uint64(1)
	if t.span > 1 {
		a = 1 + h%(t.span-1)
	}
	for gcd(a, t.span) != 1 { // ends: span−1 is coprime with span
		a++
	}
	b := (h >> 32) % t.span
	if uint64(*k) >= t.span {
		t.clashes++
	}
	head := FirstTokenID + int32((a*(uint64(*k)%t.span)+b)%t.span)
	*k++
	t.id = append(t.id, id)
	t.parent = append(t.parent, parent)
	t.head = append(t.head, head)
	t.line = append(t.line, int32(min(line, math.MaxInt32)))
	t.seen = append(t.seen, 0)
	t.kids = append(t.kids, 0)
	return n
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// node returns the block named id after parent, adding it at its first
// appearance. An id seen after another block is an error: a Mooncake hash
// id names its whole prefix.
func (t *blockTree) node(id int64, parent int32, line int) (int32, error) {
	n, ok := t.byID[id]
	if !ok {
		n = t.newNode(id, parent, line)
		t.byID[id] = n
		return n, nil
	}
	if p := t.parent[n]; p != parent {
		return 0, fmt.Errorf("hash id %d follows %s, but on line %d it followed %s: a hash id names its block together with every block before it",
			id, t.describe(parent), t.line[n], t.describe(p))
	}
	return n, nil
}

func (t *blockTree) describe(n int32) string {
	if n < 0 {
		return "nothing (it starts the prompt)"
	}
	return fmt.Sprintf("hash id %d", t.id[n])
}

// reuse is how many leading tokens of a prompt of in tokens over blocks
// an earlier request already sent; it then records this prompt's blocks.
func (t *blockTree) reuse(blocks []int32, in, bs int) int {
	r, open := 0, true
	for j, n := range blocks {
		l := min(bs, in-j*bs)
		if open {
			c := min(int(t.seen[n]), l)
			r += c
			open = c == l
		}
		t.seen[n] = max(t.seen[n], int32(l))
	}
	return r
}

// appendTokens appends the first n token ids of block node.
func (t *blockTree) appendTokens(dst []int, node int32, n int) []int {
	if n <= 0 {
		return dst
	}
	dst = append(dst, int(t.head[node]))
	x := mix(t.seed ^ mix(uint64(t.id[node])^saltBody))
	span := t.span
	for range n - 1 {
		x += 0x9e3779b97f4a7c15
		dst = append(dst, FirstTokenID+int((mix(x)>>32)*span>>32))
	}
	return dst
}
