package table

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Markdown writes each table as a GitHub table under a "### Title"
// heading, its notes as italic lines below it, and a blank line between
// tables. Columns with a unit are right-aligned; "ns" values show as
// milliseconds with three decimals and "share" values as percent, as in
// Text; other numbers keep their shortest form. A missing value is "-".
func Markdown(w io.Writer, ts []*Table) error {
	var b strings.Builder
	for k, t := range ts {
		if k > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("### " + mdText(t.Title) + "\n\n")
		head := make([]string, len(t.Columns))
		align := make([]string, len(t.Columns))
		for j, c := range t.Columns {
			head[j] = mdText(mdHeader(c))
			align[j] = "---"
			if c.Unit != "" {
				align[j] = "---:"
			}
		}
		b.WriteString("| " + strings.Join(head, " | ") + " |\n| " + strings.Join(align, " | ") + " |\n")
		cells := make([]string, len(t.Columns))
		for _, row := range t.Rows {
			for j, c := range t.Columns {
				var v any
				if j < len(row) {
					v = row[j]
				}
				cells[j] = mdText(mdCell(c.Unit, c.display(v)))
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
		for _, n := range t.Notes {
			b.WriteString("\n_" + mdText(n) + "_\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdText makes a text safe in a Markdown table: control characters
// escaped (Escape), a pipe escaped so that it cannot split a cell, and a
// "<" that could open an HTML tag or comment (<script, </, <!) escaped
// with a backslash, so that a name from outside cannot inject HTML into a
// page that renders the Markdown. "p99<=500" is left as it is.
func mdText(s string) string {
	s = strings.ReplaceAll(Escape(s), "|", "\\|")
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && i+1 < len(s) && (isLetter(s[i+1]) || strings.IndexByte("/!?", s[i+1]) >= 0) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func mdHeader(c Column) string { return Header(c, true) }

func mdCell(unit string, v any) string {
	if v == nil {
		return "-"
	}
	f, isNum := mdNum(v)
	if isNum && math.IsNaN(f) {
		return "-"
	}
	switch unit {
	case NS, NSPerReq, NSPerTok:
		if isNum {
			return strconv.FormatFloat(f/1e6, 'f', 3, 64)
		}
	case Share:
		if isNum {
			return strconv.FormatFloat(f*100, 'f', 1, 64)
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	if isNum {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// mdNum is the numeric value of a Markdown cell: float64, int64 and int
// cells are numbers; other types print with fmt.
func mdNum(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}
