package table

import (
	"strings"
	"unicode/utf8"
)

// Wrap breaks text into lines of at most width runes at spaces: the
// first line starts with first, the others with rest. A word longer than
// a line (a path, a URL) stays whole on a line of its own.
func Wrap(text string, width int, first, rest string) []string {
	var lines []string
	line := first
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			lines = append(lines, line)
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	return append(lines, line)
}

// WrapLines wraps every line of text at WrapWidth, its continuation
// lines indented by indent; empty lines and lines that fit stay as they
// are.
func WrapLines(text, indent string) string {
	var b strings.Builder
	for l := range strings.Lines(text) {
		l = strings.TrimSuffix(l, "\n")
		if utf8.RuneCountInString(l) <= WrapWidth {
			b.WriteString(l + "\n")
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
		for _, w := range Wrap(l, WrapWidth, lead, lead+indent) {
			b.WriteString(w + "\n")
		}
	}
	return b.String()
}

func writeWrapped(b *strings.Builder, text, first, rest string) {
	for _, l := range Wrap(text, WrapWidth, first, rest) {
		b.WriteString(l + "\n")
	}
}
