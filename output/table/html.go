package table

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// HTML writes each table as an HTML fragment: a <table class="t"> in a
// <div class="t"> (a page can scroll a wide table in it), with the title
// as its <caption>, the headers and cells formatted exactly as
// Text formats them (units in the headers, "ns" as ms, "share" as
// percent, "-" for a missing value), columns with a unit in cells of
// class "num", and each note as a <p class="note"> after the table.
// Unlike Text, long cells are not cut (Column.Max): text cells longer
// than 40 characters (kernel names) are of class "long", which a page can
// let wrap anywhere.
// Every string is escaped with EscapeHTML.
func HTML(w io.Writer, ts []*Table) error {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString("<div class=\"t\"><table class=\"t\">\n")
		if t.Title != "" {
			b.WriteString("<caption>" + EscapeHTML(t.Title) + "</caption>\n")
		}
		b.WriteString("<thead><tr>")
		for _, c := range t.Columns {
			b.WriteString("<th" + numClass(c) + ">" + EscapeHTML(textHeader(c)) + "</th>")
		}
		b.WriteString("</tr></thead>\n<tbody>\n")
		for _, row := range t.Rows {
			b.WriteString("<tr>")
			for i, c := range t.Columns {
				var v any
				if i < len(row) {
					v = row[i]
				}
				s := textCell(c.Unit, c.display(v), c.Sig3)
				class := numClass(c)
				if class == "" && utf8.RuneCountInString(s) > longCell {
					class = ` class="long"`
				}
				b.WriteString("<td" + class + ">" + EscapeHTML(s) + "</td>")
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody>\n</table></div>\n")
		for _, n := range t.Notes {
			b.WriteString("<p class=\"note\">note: " + EscapeHTML(n) + "</p>\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// longCell is the length above which a text cell is of class "long".
const longCell = 40

// numClass marks the cells of a column with a unit, right-aligned like
// Text's number columns.
func numClass(c Column) string {
	if c.Unit != "" {
		return ` class="num"`
	}
	return ""
}

// EscapeHTML makes s safe as HTML text or as a quoted attribute value:
// it escapes & < > " and ', replaces invalid UTF-8 with U+FFFD, shows
// C0 control characters and DEL (other than tab and newline) as their
// Unicode control pictures (U+241B for ESC), and replaces C1 control
// characters and bidirectional overrides, which would reorder or hide
// the text around them, with U+FFFD.
func EscapeHTML(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			b.WriteRune(utf8.RuneError)
			i += max(n, 1)
			continue
		}
		i += n
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&#34;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune(0x2421)
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
