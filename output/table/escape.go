package table

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape makes s safe to print on a terminal or in a Markdown table:
// control characters (C0, DEL, C1), Unicode line and paragraph
// separators, bidirectional overrides and invalid UTF-8 bytes become
// visible Go-style escapes (\n, \x1b, \u202e, \xff), so that a string
// read from a file (a kernel name, an NVTX range, a model name) can
// neither move the cursor, recolour the screen, nor break a row in two
// and forge another. A backslash is left as it is. Other text is
// returned unchanged, without copying.
//
// The text and Markdown encoders escape every title, header, cell and
// note through it; other renderers of outside strings (HTML, warnings on
// stderr) call it too.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case unsafeRune(r, n):
			q := strconv.QuoteRuneToASCII(r) // '\n', '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeRune reports whether the rune r, n bytes long in its string, must
// be escaped.
func unsafeRune(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true // an invalid byte
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true // bidirectional controls
	}
	return false
}
