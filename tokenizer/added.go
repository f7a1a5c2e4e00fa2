package tokenizer

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// addedToken is a token matched in text before the model runs.
type addedToken struct {
	text           string
	id             int
	lstrip, rstrip bool // the match also takes the whitespace before/after it
	singleWord     bool // only where no word character touches it
	normalized     bool // matched in normalized text (else in raw text)
	special        bool
}

// addedSet finds added tokens: leftmost, then longest.
type addedSet struct {
	by    map[byte][]addedToken // by first byte, longest first
	first [256]bool
}

func newAddedSet(toks []addedToken) *addedSet {
	if len(toks) == 0 {
		return nil
	}
	a := &addedSet{by: map[byte][]addedToken{}}
	sorted := append([]addedToken(nil), toks...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i].text) > len(sorted[j].text) })
	for _, t := range sorted {
		if t.text == "" {
			continue
		}
		c := t.text[0]
		a.first[c] = true
		a.by[c] = append(a.by[c], t)
	}
	return a
}

// next finds the next match in s at or after from: the token and the span
// it covers, stripped whitespace included.
func (a *addedSet) next(s string, from int) (int, int, *addedToken) {
	if a == nil {
		return -1, -1, nil
	}
	for i := from; i < len(s); i++ {
		if !a.first[s[i]] {
			continue
		}
		for k := range a.by[s[i]] {
			t := &a.by[s[i]][k]
			if !strings.HasPrefix(s[i:], t.text) {
				continue
			}
			end := i + len(t.text)
			if t.singleWord && (endsWithWord(s[:i]) || startsWithWord(s[end:])) {
				continue
			}
			start := i
			if t.lstrip {
				start = from + len(strings.TrimRightFunc(s[from:i], unicode.IsSpace))
			}
			if t.rstrip {
				end = len(s) - len(strings.TrimLeftFunc(s[end:], unicode.IsSpace))
			}
			return start, end, t
		}
	}
	return -1, -1, nil
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' }

func endsWithWord(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isWordRune(r)
}

func startsWithWord(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isWordRune(r)
}

// splitAdded calls fn for the text between matches (tok nil) and for each
// match, in order; off is the text's offset in the segment it came from.
func (a *addedSet) splitAdded(s string, fn func(text string, off int, tok *addedToken)) {
	pos := 0
	for pos < len(s) {
		start, end, tok := a.next(s, pos)
		if tok == nil {
			break
		}
		if start > pos {
			fn(s[pos:start], pos, nil)
		}
		fn("", start, tok)
		pos = end
	}
	if pos < len(s) {
		fn(s[pos:], pos, nil)
	}
}
