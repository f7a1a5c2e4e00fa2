package experiment

import (
	"errors"
	"strings"
)

// SplitCommand splits a command line into words without a shell: blanks
// (space, tab, newline) separate words; '…' quotes literally; "…" quotes
// with \" and \\ as the only escapes (any other backslash stays); outside
// quotes a backslash makes the next character literal. Quotes join with
// what touches them (a'b'c is one word "abc"); a pair of quotes with
// nothing inside is an empty word. An unterminated quote or a trailing
// backslash is an error.
func SplitCommand(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word (possibly an empty quoted one)
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\\':
			if i+1 == len(rs) {
				return nil, errors.New("command ends with a backslash")
			}
			i++
			cur.WriteRune(rs[i])
			in = true
		case c == '\'':
			end := indexRune(rs, i+1, '\'')
			if end < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			cur.WriteString(string(rs[i+1 : end]))
			i, in = end, true
		case c == '"':
			end, err := doubleQuoted(rs, i+1, &cur)
			if err != nil {
				return nil, err
			}
			i, in = end, true
		default:
			cur.WriteRune(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// doubleQuoted copies the inside of a "…" quote starting at rs[from] into
// b and returns the index of the closing quote.
func doubleQuoted(rs []rune, from int, b *strings.Builder) (int, error) {
	for j := from; j < len(rs); j++ {
		switch c := rs[j]; {
		case c == '"':
			return j, nil
		case c == '\\' && j+1 < len(rs) && (rs[j+1] == '"' || rs[j+1] == '\\'):
			j++
			b.WriteRune(rs[j])
		default:
			b.WriteRune(c)
		}
	}
	return 0, errors.New(`unterminated " quote`)
}

func indexRune(rs []rune, from int, r rune) int {
	for j := from; j < len(rs); j++ {
		if rs[j] == r {
			return j
		}
	}
	return -1
}

// quoteWord quotes w so that SplitCommand gives it back: as is when it
// holds no blank, quote or backslash, else in single quotes (a single
// quote inside becomes '\”).
func quoteWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n\r'\"\\") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
