package tokenizer

import (
	_ "embed"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// publicDomainText is the bundled corpus for synthetic prompts: passages
// of public-domain works reproduced from memory (wording may differ a
// little from printed editions): Lincoln's Gettysburg Address (1863), the
// openings of Austen's Pride and Prejudice (1813), Melville's Moby-Dick
// (1851), Dickens's A Tale of Two Cities (1859), Carroll's Alice's
// Adventures in Wonderland (1865), Doyle's A Scandal in Bohemia (1891),
// Tolstoy's Anna Karenina (Garnett translation, 1901), the preamble of the
// US Declaration of Independence (1776); the last paragraph, with numbers,
// was written for this file after Verne's Twenty Thousand Leagues Under the
// Sea.
//
//go:embed corpus/public-domain.txt
var publicDomainText string

// TextSource supplies running text to cut prompts from.
type TextSource interface {
	// Text returns at least minBytes of text starting at a random word.
	Text(rng *rand.Rand, minBytes int) string
}

// Corpus is a TextSource over a fixed text, read cyclically: a window that
// runs past the end continues at the start after a space.
type Corpus struct {
	text   string
	starts []int // byte offsets where words start
}

// NewCorpus builds a corpus; whitespace runs become single spaces.
func NewCorpus(text string) (*Corpus, error) {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) == 0 {
		return nil, errors.New("tokenizer: empty corpus")
	}
	c := &Corpus{text: text, starts: []int{0}}
	for i := 1; i < len(text); i++ {
		if text[i-1] == ' ' {
			c.starts = append(c.starts, i)
		}
	}
	return c, nil
}

// DefaultCorpus is the bundled public-domain corpus.
func DefaultCorpus() *Corpus {
	c, err := NewCorpus(publicDomainText)
	if err != nil {
		panic(err) // the embedded file is not empty
	}
	return c
}

// Text returns a window of at least minBytes starting at a random word.
func (c *Corpus) Text(rng *rand.Rand, minBytes int) string {
	var b strings.Builder
	pos := c.starts[rng.IntN(len(c.starts))]
	for b.Len() < minBytes {
		b.WriteString(c.text[pos:])
		b.WriteByte(' ')
		pos = 0
	}
	return b.String()
}

// ExactText returns text of exactly n tokens under tok (Encode, so no BOS
// or other special tokens counted), cut from src at token boundaries.
func ExactText(tok *Tokenizer, n int, src TextSource, rng *rand.Rand) (string, error) {
	return ExactTextAfter(tok, "", n, src, rng)
}

// exactTextAfter is ExactTextAfter's search; ExactTextAfter adds the
// check that no regex failed on the way (Err): counts would be wrong.

// ExactTextAfter returns prefix followed by text from src such that the
// whole has exactly n tokens; the prefix is kept verbatim, so a shared
// prefix gives the same leading text in every prompt. Put any separator
// (a space, a newline) at the end of prefix.
func ExactTextAfter(tok *Tokenizer, prefix string, n int, src TextSource, rng *rand.Rand) (string, error) {
	s, err := exactTextAfter(tok, prefix, n, src, rng)
	if ferr := tok.Err(); ferr != nil {
		return "", ferr
	}
	return s, err
}

func exactTextAfter(tok *Tokenizer, prefix string, n int, src TextSource, rng *rand.Rand) (string, error) {
	base := tok.Count(prefix)
	if n < base {
		return "", fmt.Errorf("tokenizer: %d tokens requested but the prefix alone has %d", n, base)
	}
	if n == base {
		return prefix, nil
	}
	for attempt := 0; attempt < 16; attempt++ {
		if s, ok := exactFromWindow(tok, prefix, n, n-base, src, rng); ok {
			return s, nil
		}
	}
	return "", fmt.Errorf("tokenizer: no text of exactly %d tokens found after 16 windows", n)
}

// exactFromWindow tries one window of source text: cut it after m tokens,
// re-count (tokens may merge across the cut), correct m, and if counts
// skip over n, extend a short candidate one character at a time.
func exactFromWindow(tok *Tokenizer, prefix string, n, need int, src TextSource, rng *rand.Rand) (string, bool) {
	window := src.Text(rng, need*6+256)
	ids := tok.Encode(window)
	for len(ids) < need+16 {
		window += src.Text(rng, need*6+256)
		ids = tok.Encode(window)
	}
	m, below := need, ""
	seen := map[int]bool{}
	for !seen[m] && m > 0 && m <= len(ids) {
		seen[m] = true
		body := validPrefix(tok.Decode(ids[:m]))
		c := tok.Count(prefix + body)
		if c == n {
			return prefix + body, true
		}
		if c < n && len(body) > len(below) {
			below = body
		}
		m += n - c
	}
	rest, ok := strings.CutPrefix(window, below)
	if !ok {
		return "", false
	}
	// Extend the longest candidate that was too short, rune by rune.
	for i, r := range rest {
		if i > 64 {
			break
		}
		s := prefix + below + rest[:i+utf8.RuneLen(r)]
		switch c := tok.Count(s); {
		case c == n && !unicode.IsSpace(r):
			return s, true
		case c > n:
			return "", false
		}
	}
	return "", false
}

// validPrefix drops a trailing partial UTF-8 sequence (a cut inside a
// multi-byte character's byte tokens).
func validPrefix(s string) string {
	for k := 0; k < utf8.UTFMax && len(s) > 0 && !utf8.ValidString(s); k++ {
		s = s[:len(s)-1]
	}
	return s
}
