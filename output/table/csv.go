package table

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/internal/atomicfile"
)

// The CSV outputs are tidy: every file is one table with one header line,
// one row per observation and raw values (no unit scaling, no rounding),
// so that Python's csv module, pandas and spreadsheets load them as they
// are. A text cell that a spreadsheet would take for a formula (it
// starts with = + - @, a tab or a carriage return: a model name
// "=HYPERLINK(...)" a server reported) is written with a leading single
// quote (neutralise); numbers are written as numbers.
//
//   - TidyCSV writes one table: its columns, named with their unit
//     (CSVHeader: "busy_ns", "delta_pct", "ttft_ms_p50").
//   - WriteCSVDir writes every table to DIR/<table>.csv.
//   - CSV writes every table as one long table with the columns
//     table, row, key, column, unit, value, text: one line per cell
//     outside the key columns. row counts from 1 within its table, key
//     joins the row's key columns (Table.Key) with "|", column is the
//     cell's CSVHeader and unit its column's unit (the row's own unit for
//     Column.RowUnit cells; empty for plain numbers). A number goes in
//     value, anything else (a verdict, a method) in text, so that value
//     holds numbers only and loads as numbers. In pandas,
//     df[df.table == "metrics"].pivot(index="key", columns="column",
//     values="value") gives the metrics table's numbers back.

// LongHeader is the header line of the long CSV.
var LongHeader = []string{"table", "row", "key", "column", "unit", "value", "text"}

// CSV writes ts as one long table (LongHeader).
func CSV(w io.Writer, ts []*Table) error {
	cw := csv.NewWriter(w)
	cw.Write(LongHeader)
	for _, t := range ts {
		nk := t.keyColumns()
		unitCol := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == "unit" && c.Unit == "" })
		for r, row := range t.Rows {
			keys := make([]string, nk)
			for i := range keys {
				keys[i] = plain(cell(row, i))
			}
			key := neutralise(strings.Join(keys, "|"))
			for i := nk; i < len(t.Columns); i++ {
				c := t.Columns[i]
				unit := c.Unit
				switch {
				case c.RowUnit && unitCol >= 0:
					unit = csvField(cell(row, unitCol))
				case unit == Count:
					unit = "" // a plain number; its column's name says what it counts
				}
				value, text := plain(cell(row, i)), ""
				if _, isNum := toFloat(cell(row, i)); !isNum {
					value, text = "", csvField(cell(row, i))
				}
				cw.Write([]string{t.Name, strconv.Itoa(r + 1), key, CSVHeader(c), unit, value, text})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// TidyCSV writes one table: the header (CSVHeader of each column), then
// its rows with raw values; a missing value is an empty field.
func TidyCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = CSVHeader(c)
	}
	cw.Write(head)
	rec := make([]string, len(t.Columns))
	for _, row := range t.Rows {
		for i := range rec {
			rec[i] = csvField(cell(row, i))
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSVDir writes each table to dir/<name>.csv (TidyCSV), atomically,
// and returns the paths written. The directory is made when missing; the
// names are resolved inside it (atomicfile.Dir), so a link planted in it
// does not lead a table out of it. A name used twice gets a suffix (_2,
// _3…) so that no table overwrites another.
func WriteCSVDir(dir string, ts []*Table) ([]string, error) {
	d, err := atomicfile.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var paths []string
	used := map[string]int{}
	for _, t := range ts {
		name := t.Name
		if used[t.Name]++; used[t.Name] > 1 {
			name = fmt.Sprintf("%s_%d", t.Name, used[t.Name])
		}
		var buf bytes.Buffer
		if err := TidyCSV(&buf, t); err != nil {
			return paths, err
		}
		if err := d.Write(name+".csv", buf.Bytes()); err != nil {
			return paths, err
		}
		paths = append(paths, d.Join(name+".csv"))
	}
	return paths, nil
}

// csvField is a cell as a CSV field: its raw value (plain), with a text
// that a spreadsheet would run as a formula neutralised (neutralise).
// Numbers are written as numbers: a negative number stays one.
func csvField(v any) string {
	if s, ok := v.(string); ok {
		return neutralise(s)
	}
	return plain(v)
}

// neutralise applies OWASP's rule against formula injection to a text
// from outside (a model name, an engine version, a kernel name): a text
// whose first character, after any blanks, is = + - @ or a tab or
// carriage return is prefixed with a single quote, so that a spreadsheet
// shows it as text instead of running it (=HYPERLINK(...)). A text that
// is a number ("-3.5"), and "-" alone, are left as they are.
func neutralise(s string) string {
	t := strings.TrimLeft(s, " ")
	if t == "" || t == "-" || !strings.ContainsRune("=+-@\t\r", rune(t[0])) {
		return s // "-" alone is the tables' mark of a missing value, not a formula
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return s
	}
	return "'" + s
}

// keyColumns is the number of leading columns that identify a row
// (Table.Key).
func (t *Table) keyColumns() int {
	if t.Key > 0 {
		return min(t.Key, len(t.Columns))
	}
	n := 0
	for n < len(t.Columns)-1 && t.Columns[n].Unit == "" {
		n++
	}
	return min(max(n, 1), len(t.Columns))
}

func cell(row []any, i int) any {
	if i < len(row) {
		return row[i]
	}
	return nil
}

// CSVHeader is a column's name in the CSV outputs, the name the JSON
// outputs give the same figure: the name with its unit appended (busy_ns,
// busy_per_request_ns for ns per request, delta_pct, busy_share; a per
// request or token column whose name does not say so gets it said:
// sum_ns_per_token), unless
// the name already carries the unit (ttft_ms_p50, busy_per_work_ns_a),
// the unit is a rate (a throughput's name is its spelling:
// output_throughput, in tok/s) or there is none.
func CSVHeader(c Column) string {
	switch {
	case c.Unit == "" || c.Unit == Count || nameHasUnit(c) || strings.HasSuffix(c.Unit, "/s"):
		return c.Name
	case (c.Unit == NSPerReq || c.Unit == NSPerTok) && strings.Contains(c.Name, "_per_"): // the name says per what
		return c.Name + "_ns"
	case c.Unit == NSPerReq:
		return c.Name + "_ns_per_req"
	case c.Unit == NSPerTok:
		return c.Name + "_ns_per_token"
	case c.Unit == "%":
		return c.Name + "_pct"
	}
	return c.Name + "_" + strings.NewReplacer("/", "_per_", " ", "_").Replace(c.Unit)
}

// unitPart is how a unit is spelled inside a name: ns for ns and ns per
// request or token, pct for %, j for joules (also per token), w for
// watts, the unit itself otherwise.
func unitPart(unit string) string {
	switch unit {
	case NS, NSPerReq, NSPerTok:
		return "ns"
	case "%":
		return "pct"
	case "J", "J/tok", "J/req":
		return "j"
	case "W":
		return "w"
	}
	return unit
}

// nameHasUnit reports whether a column's name already states its unit as
// one of its _-separated parts (ttft_ms_p50 in ms, busy_share as a
// share, busy_per_work_ns_a in ns per token), so that no header repeats
// it.
func nameHasUnit(c Column) bool {
	if c.Unit == "" {
		return false
	}
	for _, part := range strings.Split(c.Name, "_") {
		if part == c.Unit || part == unitPart(c.Unit) || part == "joules" && unitPart(c.Unit) == "j" {
			return true
		}
	}
	return false
}

// displayName is a column's name as Text, Markdown and the workbook
// head it: the name, less the part that spells its unit when the values
// are shown scaled to another (busy_share shown in % is "busy",
// busy_per_work_ns_a shown in ms is "busy_per_work_a"); the shown unit
// follows it (DisplayUnit).
func displayName(c Column) string {
	if !scaled(c.Unit) || !nameHasUnit(c) {
		return c.Name
	}
	parts := strings.Split(c.Name, "_")
	for i, p := range parts {
		if p == unitPart(c.Unit) && len(parts) > 1 {
			return strings.Join(append(parts[:i:i], parts[i+1:]...), "_")
		}
	}
	return c.Name
}

// DisplayUnit is the unit Text, Markdown and the workbook show a
// column's values in: ms for ns, % for shares, ms/req and ms/tok for ns
// per request or token (ms when the name says per what), the unit
// itself otherwise; "" for text and plain counts.
func DisplayUnit(c Column) string {
	perInName := strings.Contains(c.Name, "_per_")
	switch c.Unit {
	case NS:
		return "ms"
	case Share:
		return "%"
	case NSPerReq:
		return map[bool]string{true: "ms", false: "ms/req"}[perInName]
	case NSPerTok:
		return map[bool]string{true: "ms", false: "ms/tok"}[perInName]
	case "", Count:
		return ""
	}
	if nameHasUnit(c) {
		return ""
	}
	return c.Unit
}

// Header is a column's head in Text ("busy ms") and, with parentheses,
// in Markdown and the workbook ("busy (ms)"): its display name and the
// unit its values are shown in.
func Header(c Column, parens bool) string {
	name, unit := displayName(c), DisplayUnit(c)
	switch {
	case unit == "":
		return name
	case parens:
		return name + " (" + unit + ")"
	}
	return name + " " + unit
}

// scaled reports whether Text and Markdown show a unit's values scaled
// (ns as ms, shares as percent), so that their headers name the shown
// unit whatever the column's name says.
func scaled(unit string) bool {
	switch unit {
	case NS, Share, NSPerReq, NSPerTok:
		return true
	}
	return false
}
