// Package table is servecmp's presentation model and its encoders.
//
// A Table holds raw values: integers, floats, strings, or nil for "no
// value". Columns carry a unit; only the encoders format numbers:
//
//   - Text renders a readable, aligned table: "ns" columns as milliseconds
//     with three decimals, "share" columns (a fraction 0..1) as percent,
//     "ns/req" and "ns/token" as ms per request or token (three decimals;
//     three significant digits below 0.1 ms for Sig3 columns);
//   - Markdown renders GitHub tables with the units in the headers, like
//     Text, and numbers without unit scaling in their shortest form;
//   - CSV is one long table of every cell (table, row, key, column, unit,
//     value) with raw numbers; TidyCSV and WriteCSVDir write one tidy
//     table per file, the unit in the header ("busy_ns");
//   - JSON writes every table with its columns and raw rows.
//
// Display precision is a column property that Text and Markdown honour
// (Sig3, Digits, Floor, Max); CSV and JSON always write the raw values.
// Encoders maps each format name to its encoder; Lookup is the one place
// a format name is checked.
//
// The package uses the standard library only and never prints on its own.
package table

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Units understood by the encoders. Any other unit is shown as is.
const (
	NS       = "ns"       // nanoseconds, int64
	Share    = "share"    // fraction 0..1, float64
	Count    = "count"    // plain count, int64
	NSPerReq = "ns/req"   // ns per request, float64
	NSPerTok = "ns/token" // ns per output token, float64
)

// Column is a table column: a snake_case name and a unit ("" for text).
type Column struct {
	Name string `json:"name"`
	Unit string `json:"unit,omitempty"`
	// Max, when > 0, caps a text cell's width in Text output: longer
	// values are cut and end in "…". CSV and JSON keep the whole value.
	Max int `json:"-"`
	// Sig3, for "ns/req" and "ns/token" columns, makes Text show values
	// below 0.1 ms with three significant digits (0.0172, not 0.017), so
	// that microsecond per-work figures of two systems can be compared.
	Sig3 bool `json:"-"`
	// Digits, when > 0, makes Text and Markdown round float cells to that
	// many significant digits, but to no fewer than one decimal (1234.5,
	// 12.35, 0.01235 for 4), before any unit scaling.
	Digits int `json:"-"`
	// Floor, when > 0, makes Text and Markdown show float cells below it
	// as "<Floor" (p-values below 0.0001 as "<0.0001").
	Floor float64 `json:"-"`
	// Footnote makes Text show a cell longer than footnoteOver runes as
	// "[n]" and the whole value as footnote n under the table (a command
	// line, a detection path); CSV and JSON keep it in place.
	Footnote bool `json:"-"`
	// Drop, when > 0, lets Text leave the column out of a table wider
	// than TextWidth, highest Drop first, and say so under the table;
	// every other encoder keeps it.
	Drop int `json:"-"`
	// RowUnit marks a column whose cells take their unit from the row's
	// "unit" column (a metrics table mixing ms and tok/s rows); the long
	// CSV writes that unit.
	RowUnit bool `json:"-"`
}

// display applies the column's Digits and Floor to a cell for Text and
// Markdown: it returns the value to format, or a finished string.
func (c Column) display(v any) any {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return v
	}
	if c.Floor > 0 && f < c.Floor {
		return "<" + strconv.FormatFloat(c.Floor, 'f', -1, 64)
	}
	if c.Digits <= 0 {
		return v
	}
	if f == 0 {
		return 0.0
	}
	mag := int(math.Floor(math.Log10(math.Abs(f))))
	scale := math.Pow(10, float64(max(1, c.Digits-1-mag)))
	return math.Round(f*scale) / scale
}

// Display is the value Text and Markdown show for v: v rounded to the
// column's Digits, or a finished string below its Floor.
func (c Column) Display(v any) any { return c.display(v) }

// Table is a named grid of raw values. Each row has len(Columns) cells.
type Table struct {
	Name    string   `json:"name"`  // snake_case identifier, used by CSV and JSON
	Title   string   `json:"title"` // heading for text output
	Columns []Column `json:"columns"`
	Rows    [][]any  `json:"rows"`
	Notes   []string `json:"notes,omitempty"`
	// Key is how many leading columns identify a row, for the long CSV's
	// key column; 0 means the leading columns without a unit (at least
	// one, never all).
	Key int `json:"-"`
}

// Add appends a row.
func (t *Table) Add(cells ...any) { t.Rows = append(t.Rows, cells) }

// Encoder writes tables to w.
type Encoder func(w io.Writer, ts []*Table) error

// Text writes each table as aligned columns under its title, separated by a
// blank line. Text columns are left-aligned, numbers right-aligned. A
// table is kept within TextWidth columns: long cells of Footnote columns
// move below it as numbered footnotes, and Drop columns are left out
// (named in a line under it) until its rows fit; titles, notes and
// footnotes wrap at WrapWidth.
func Text(w io.Writer, ts []*Table) error {
	var b strings.Builder
	for k, t := range ts {
		if k > 0 {
			b.WriteByte('\n')
		}
		writeText(&b, t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeText writes one table for Text.
func writeText(b *strings.Builder, t *Table) {
	if t.Title != "" {
		writeWrapped(b, Escape(t.Title), "", "  ")
	}
	g, dropped := fitGrid(t)
	writeRow(b, keep(g, g.head), keep(g, g.width), keep(g, g.right))
	for _, row := range g.cells {
		writeRow(b, keep(g, row), keep(g, g.width), keep(g, g.right))
	}
	for i, f := range g.notes {
		writeWrapped(b, Escape(f), fmt.Sprintf("[%d] ", i+1), "    ")
	}
	if len(dropped) > 0 {
		writeWrapped(b, "not shown here: "+strings.Join(dropped, ", ")+" (to keep the table within "+strconv.Itoa(TextWidth)+
			" columns; --format json or csv, the CSV files and the workbook have them)", "", "  ")
	}
	for _, n := range t.Notes {
		writeWrapped(b, Escape(n), "note: ", "      ")
	}
}

// TextWidth is the most columns a Text table's rows take; WrapWidth is
// where Text wraps titles, notes and footnotes (and WrapLines lines).
const (
	TextWidth = 120
	WrapWidth = 100
)

// footnoteOver is the longest cell a Footnote column shows in place,
// and footnoteTight the longest when the table is too wide otherwise.
const (
	footnoteOver  = 32
	footnoteTight = 4 // "[12]"
)

// fitGrid formats t for Text within TextWidth: long Footnote cells
// (over footnoteOver) to footnotes and Drop columns left out as needed;
// when the rows still run wider, every Footnote cell longer than
// footnoteTight goes to a footnote instead (a table of short result
// paths). It returns the grid and the columns left out.
func fitGrid(t *Table) (*grid, []string) {
	g := textGrid(t, footnoteOver)
	dropped := g.fit(t.Columns)
	if g.rowWidth() <= TextWidth {
		return g, dropped
	}
	tight := textGrid(t, footnoteTight)
	if td := tight.fit(t.Columns); tight.rowWidth() < g.rowWidth() {
		return tight, td
	}
	return g, dropped
}

// grid is a table's text cells, before columns are dropped.
type grid struct {
	head  []string
	cells [][]string
	width []int
	right []bool
	show  []bool
	notes []string // footnotes, [1] first
}

// textGrid formats every cell of t for Text, moving cells of Footnote
// columns longer than over runes to numbered footnotes.
func textGrid(t *Table, over int) *grid {
	n := len(t.Columns)
	g := &grid{head: make([]string, n), width: make([]int, n), right: make([]bool, n), show: make([]bool, n)}
	for i, c := range t.Columns {
		g.head[i] = Escape(textHeader(c))
		g.width[i] = utf8.RuneCountInString(g.head[i])
		g.right[i], g.show[i] = c.Unit != "", true
	}
	for _, row := range t.Rows {
		cells := make([]string, n)
		for i, c := range t.Columns {
			var v any
			if i < len(row) {
				v = row[i]
			}
			s := Escape(textCell(c.Unit, c.display(v), c.Sig3))
			switch {
			case c.Footnote && utf8.RuneCountInString(s) > over:
				g.notes = append(g.notes, textHeader(t.Columns[0])+" "+plain(cell(row, 0))+", "+textHeader(c)+": "+s)
				s = fmt.Sprintf("[%d]", len(g.notes))
			case c.Max > 1 && utf8.RuneCountInString(s) > c.Max:
				s = string([]rune(s)[:c.Max-1]) + "…"
			}
			cells[i] = s
			g.width[i] = max(g.width[i], utf8.RuneCountInString(s))
		}
		g.cells = append(g.cells, cells)
	}
	return g
}

// fit leaves out Drop columns, highest Drop first, while the rows are
// wider than TextWidth, and returns the names of those left out. Columns
// of one Drop value go together (n_a never without n_b).
func (g *grid) fit(cols []Column) []string {
	var out []string
	for g.rowWidth() > TextWidth {
		at := -1
		for i, c := range cols {
			if g.show[i] && c.Drop > 0 && (at < 0 || c.Drop > cols[at].Drop) {
				at = i
			}
		}
		if at < 0 {
			break
		}
		for i, c := range cols {
			if g.show[i] && c.Drop == cols[at].Drop {
				g.show[i] = false
				out = append(out, g.head[i])
			}
		}
	}
	return out
}

func (g *grid) rowWidth() int {
	w, n := 0, 0
	for i, s := range g.show {
		if s {
			w += g.width[i]
			n++
		}
	}
	return w + 2*max(n-1, 0)
}

// keep returns the shown entries of xs.
func keep[T any](g *grid, xs []T) []T {
	out := make([]T, 0, len(xs))
	for i, x := range xs {
		if g.show[i] {
			out = append(out, x)
		}
	}
	return out
}

func writeRow(b *strings.Builder, cells []string, width []int, right []bool) {
	var line strings.Builder
	for i, s := range cells {
		if i > 0 {
			line.WriteString("  ")
		}
		pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
		if right[i] {
			line.WriteString(pad)
			line.WriteString(s)
		} else {
			line.WriteString(s)
			if i < len(cells)-1 {
				line.WriteString(pad)
			}
		}
	}
	b.WriteString(strings.TrimRight(line.String(), " "))
	b.WriteByte('\n')
}

func textHeader(c Column) string { return Header(c, false) }

// textCell formats v for Text; sig3 keeps three significant digits in
// per-work cells below 0.1 ms (Column.Sig3).
func textCell(unit string, v any, sig3 bool) string {
	if f, ok := v.(float64); v == nil || ok && math.IsNaN(f) {
		return "-"
	}
	switch unit {
	case NS:
		if f, ok := toFloat(v); ok {
			return strconv.FormatFloat(f/1e6, 'f', 3, 64)
		}
	case NSPerReq, NSPerTok:
		if f, ok := toFloat(v); ok {
			ms, dec := f/1e6, 3
			if a := math.Abs(ms); sig3 && a > 0 && a < 0.1 {
				dec = min(9, 2-int(math.Floor(math.Log10(a))))
			}
			return strconv.FormatFloat(ms, 'f', dec, 64)
		}
	case Share:
		if f, ok := toFloat(v); ok {
			return strconv.FormatFloat(f*100, 'f', 1, 64)
		}
	}
	return plain(v)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x)
	}
	return 0, false
}

// plain formats a value without unit scaling: integers in full, floats with
// the fewest digits that round-trip.
func plain(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	}
	return fmt.Sprint(v)
}

// JSON writes {"tables": [...]} with raw cell values; NaN becomes null.
func JSON(w io.Writer, ts []*Table) error {
	clean := make([]*Table, len(ts))
	for i, t := range ts {
		c := *t
		c.Rows = make([][]any, len(t.Rows))
		for r, row := range t.Rows {
			c.Rows[r] = make([]any, len(row))
			for j, v := range row {
				if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
					v = nil
				}
				c.Rows[r][j] = v
			}
		}
		clean[i] = &c
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Tables []*Table `json:"tables"`
	}{clean})
}
