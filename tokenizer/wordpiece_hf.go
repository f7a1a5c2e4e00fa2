package tokenizer

import "unicode/utf8"

// wordPieceModel is tokenizer.json's WordPiece: each pre-token is matched
// greedily longest-first; pieces after the first carry the continuation
// prefix ("##"); a word longer than maxChars characters, or with a
// position no piece matches, is one unk.
type wordPieceModel struct {
	prefix   string
	maxChars int
}

func (m *wordPieceModel) word(t *Tokenizer, w string, out []int) []int {
	if utf8.RuneCountInString(w) > m.maxChars {
		return t.appendUnk(out)
	}
	n0 := len(out)
	for i := 0; i < len(w); {
		found := -1
		end := i
		for j := len(w); j > i; j-- {
			if j < len(w) && !utf8.RuneStart(w[j]) {
				continue
			}
			key := w[i:j]
			if i > 0 {
				key = m.prefix + key
			}
			if id, ok := t.vocab[key]; ok {
				found, end = id, j
				break
			}
		}
		if found < 0 {
			return t.appendUnk(out[:n0])
		}
		out = append(out, found)
		i = end
	}
	return out
}

func (t *Tokenizer) appendUnk(out []int) []int {
	if t.unk >= 0 {
		return append(out, t.unk)
	}
	return out
}
