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
// blank line. Text columns are left-aligned, numbers right-aligned.
func Text(w io.Writer, ts []*Table) error {
	var b strings.Builder
	for k, t := range ts {
		if k > 0 {
			b.WriteByte('\n')
		}
		if t.Title != "" {
			b.WriteString(Escape(t.Title))
			b.WriteByte('\n')
		}
		head := make([]string, len(t.Columns))
		width := make([]int, len(t.Columns))
		right := make([]bool, len(t.Columns))
		for i, c := range t.Columns {
			head[i] = Escape(textHeader(c))
			width[i] = utf8.RuneCountInString(head[i])
			right[i] = c.Unit != ""
		}
		cells := make([][]string, len(t.Rows))
		for r, row := range t.Rows {
			cells[r] = make([]string, len(t.Columns))
			for i := range t.Columns {
				var v any
				if i < len(row) {
					v = row[i]
				}
				s := Escape(textCell(t.Columns[i].Unit, t.Columns[i].display(v), t.Columns[i].Sig3))
				if m := t.Columns[i].Max; m > 1 && utf8.RuneCountInString(s) > m {
					s = string([]rune(s)[:m-1]) + "…"
				}
				cells[r][i] = s
				width[i] = max(width[i], utf8.RuneCountInString(s))
			}
		}
		writeRow(&b, head, width, right)
		for _, row := range cells {
			writeRow(&b, row, width, right)
		}
		for _, n := range t.Notes {
			b.WriteString("note: ")
			b.WriteString(Escape(n))
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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

func textHeader(c Column) string {
	if nameHasUnit(c) && !scaled(c.Unit) {
		return c.Name
	}
	switch c.Unit {
	case NS:
		return c.Name + " ms"
	case Share:
		return c.Name + " %"
	case NSPerReq:
		return c.Name + " ms/req"
	case NSPerTok:
		return c.Name + " ms/tok"
	case "", Count:
		return c.Name
	}
	return c.Name + " " + c.Unit
}

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
