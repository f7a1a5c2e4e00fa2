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
//     table, row, key, column, unit, value: one line per cell outside the
//     key columns. row counts from 1 within its table, key joins the
//     row's key columns (Table.Key) with "|", column is the cell's
//     CSVHeader and unit its column's unit (the row's own unit for
//     Column.RowUnit cells; empty for plain numbers). In pandas,
//     df[df.table == "metrics"].pivot(index="key", columns="column",
//     values="value") gives the metrics table back.

// LongHeader is the header line of the long CSV.
var LongHeader = []string{"table", "row", "key", "column", "unit", "value"}

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
				cw.Write([]string{t.Name, strconv.Itoa(r + 1), key, CSVHeader(c), unit, csvField(cell(row, i))})
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

// CSVHeader is a column's name in the CSV outputs: the name with its unit
// appended (busy_ns, busy_per_req_ns_per_req, delta_pct), unless the name
// already carries the unit (ttft_ms_p50), the unit is a rate (a
// throughput's name is its spelling: output_throughput, in tok/s) or
// there is none.
func CSVHeader(c Column) string {
	switch {
	case c.Unit == "" || c.Unit == Count || nameHasUnit(c) || strings.HasSuffix(c.Unit, "/s"):
		return c.Name
	case c.Unit == NSPerReq:
		return c.Name + "_ns_per_req"
	case c.Unit == NSPerTok:
		return c.Name + "_ns_per_token"
	case c.Unit == "%":
		return c.Name + "_pct"
	}
	return c.Name + "_" + strings.NewReplacer("/", "_per_", " ", "_").Replace(c.Unit)
}

// nameHasUnit reports whether a column's name already states its unit as
// one of its _-separated parts (ttft_ms_p50 in ms, busy_share as a
// share), so that no header repeats it.
func nameHasUnit(c Column) bool {
	if c.Unit == "" {
		return false
	}
	for _, part := range strings.Split(c.Name, "_") {
		if part == c.Unit {
			return true
		}
	}
	return false
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
