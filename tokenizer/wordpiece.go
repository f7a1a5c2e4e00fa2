package tokenizer

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// WordPiece as llama.cpp stores BERT vocabularies in GGUF: word-initial
// pieces carry a "▁" prefix and continuation pieces carry no "##". Text is
// NFD-normalized and lowercased, combining marks are dropped (BERT's
// accent stripping), split at whitespace, and every punctuation mark, ASCII
// symbol and CJK ideograph is a word of its own. Each word is matched
// greedily longest-first; a word with an unmatched position becomes [UNK].

func (t *Tokenizer) encodeWordPiece(s string, out []int) []int {
	for _, w := range wordPieceWords(s) {
		out = t.wordPieceWord(spaceMark+w, out)
	}
	return out
}

func (t *Tokenizer) wordPieceWord(w string, out []int) []int {
	n0 := len(out)
	for i := 0; i < len(w); {
		j := min(len(w), i+t.maxPiece)
		for ; j > i; j-- {
			if id, ok := t.vocab[w[i:j]]; ok {
				out = append(out, id)
				break
			}
		}
		if j == i {
			return append(out[:n0], t.unk)
		}
		i = j
	}
	return out
}

func wordPieceWords(s string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.IsSpace(r):
			flush()
		case r == 0 || r == 0xFFFD || unicode.IsControl(r) || unicode.Is(unicode.Mn, r):
		case unicode.IsPunct(r) || (r < 0x7F && unicode.IsSymbol(r)) || isCJK(r):
			flush()
			words = append(words, string(unicode.ToLower(r)))
		default:
			cur.WriteRune(unicode.ToLower(r))
		}
	}
	flush()
	return words
}

// isCJK reports the CJK ideograph blocks BERT splits one by one.
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

// appendWordPiece decodes one piece: a word start gets its space back.
func appendWordPiece(b []byte, p string) []byte {
	if rest, ok := strings.CutPrefix(p, spaceMark); ok {
		return append(append(b, ' '), rest...)
	}
	return append(b, p...)
}
