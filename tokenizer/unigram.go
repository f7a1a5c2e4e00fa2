package tokenizer

import (
	"math"
	"unicode/utf8"
)

// unigramModel is the SentencePiece unigram model: the segmentation of a
// piece with the highest total score (Viterbi), pieces found with a trie
// of the vocabulary; a character with no piece is unk, scored 10 below
// the lowest score, and consecutive unks fuse into one.
type unigramModel struct {
	scores   []float64
	trie     *trieNode
	unkScore float64
	byteFall bool
}

type trieNode struct {
	next map[byte]*trieNode
	id   int32 // -1 when no piece ends here
}

func newUnigram(pieces []string, scores []float64, byteFallback bool) *unigramModel {
	u := &unigramModel{scores: scores, trie: &trieNode{id: -1}, byteFall: byteFallback}
	low := math.Inf(1)
	for id, p := range pieces {
		low = math.Min(low, scores[id])
		if p == "" {
			continue
		}
		n := u.trie
		for i := 0; i < len(p); i++ {
			if n.next == nil {
				n.next = map[byte]*trieNode{}
			}
			c, ok := n.next[p[i]]
			if !ok {
				c = &trieNode{id: -1}
				n.next[p[i]] = c
			}
			n = c
		}
		if n.id < 0 {
			n.id = int32(id)
		}
	}
	if math.IsInf(low, 1) {
		low = 0
	}
	u.unkScore = low - 10
	return u
}

// unigramWord segments w.
func (t *Tokenizer) unigramWord(w string) []int {
	u := t.uni
	type node struct {
		score float64
		start int
		id    int32
		set   bool
	}
	best := make([]node, len(w)+1)
	best[0].set = true
	for i := 0; i < len(w); {
		_, n := utf8.DecodeRuneInString(w[i:])
		base := best[i].score
		single := false
		for k, nd := i, u.trie; k < len(w); k++ {
			nd = nd.next[w[k]]
			if nd == nil {
				break
			}
			if nd.id < 0 {
				continue
			}
			end := k + 1
			sc := base + u.scores[nd.id]
			if !best[end].set || sc > best[end].score {
				best[end] = node{score: sc, start: i, id: nd.id, set: true}
			}
			if end-i == n {
				single = true
			}
		}
		if !single {
			sc := base + u.unkScore
			if e := i + n; !best[e].set || sc > best[e].score {
				best[e] = node{score: sc, start: i, id: -1, set: true}
			}
		}
		i += n
	}
	var rev []int32
	var spans []span
	for e := len(w); e > 0; e = best[e].start {
		rev = append(rev, best[e].id)
		spans = append(spans, span{best[e].start, e})
	}
	ids := make([]int, 0, len(rev))
	for k := len(rev) - 1; k >= 0; k-- {
		if rev[k] >= 0 {
			ids = append(ids, int(rev[k]))
			continue
		}
		// A run of unknown characters is one unk (or its bytes).
		start := spans[k].start
		for k > 0 && rev[k-1] < 0 {
			k--
		}
		unknown := w[start:spans[k].end]
		if u.byteFall && t.hasBytes && t.allBytes(unknown) {
			for i := 0; i < len(unknown); i++ {
				ids = append(ids, t.byteIDs[unknown[i]])
			}
		} else if t.unk >= 0 {
			ids = append(ids, t.unk)
		}
	}
	return ids
}

// allBytes reports whether every byte of s has a byte token.
func (t *Tokenizer) allBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if t.byteIDs[s[i]] < 0 {
			return false
		}
	}
	return true
}
