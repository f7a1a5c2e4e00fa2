package nsys

import (
	"context"
	"database/sql"
	"strings"
	"sync/atomic"

	"github.com/servecmp/servecmp/nsys/internal/pagescan"
)

// sel is one column of a scan: the first non-NULL of cols (a column, or
// the COALESCE of several), or, without cols, the SQL literal lit ("0",
// "NULL").
type sel struct {
	cols []string
	lit  string
}

// sel returns column c of table t when present, else the literal def.
func (s *schema) sel(t, c, def string) sel {
	if s.cols[t][c] {
		return sel{cols: []string{c}}
	}
	return sel{lit: def}
}

// rowQuery selects sels from table over a rowid range (bound to ?1 and
// ?2), rows in rowid order.
type rowQuery struct {
	table string
	sels  []sel
}

// sql returns the query's SQL.
func (q *rowQuery) sql() string {
	parts := make([]string, len(q.sels))
	for i, c := range q.sels {
		switch {
		case len(c.cols) == 0:
			parts[i] = c.lit
		case len(c.cols) == 1:
			parts[i] = c.cols[0]
		default:
			parts[i] = "COALESCE(" + strings.Join(c.cols, ", ") + ")"
		}
	}
	return "SELECT " + strings.Join(parts, ", ") + " FROM " + q.table + " WHERE rowid BETWEEN ? AND ?"
}

// pageCol is what the page scanner needs of one table column.
type pageCol struct {
	pos         int  // position in the record
	ok          bool // values read from the pages equal SQLite's through the driver
	intAffinity bool // declared with INTEGER affinity
}

// pageTable is what the page scanner needs of one table; nil when the
// table cannot be read from its pages.
type pageTable struct {
	root uint32
	cols map[string]pageCol
}

// usePages turns the page scanner on; tests turn it off to hold it to
// SQLite's reading.
var usePages = true

// pageReads and pageFallbacks count the rowid ranges read from the pages
// and those read through SQLite after a page scan failed (for tests).
var pageReads, pageFallbacks atomic.Int64

// pageTables are the tables read from their pages when the reader has
// the file: the large ones.
var pageTables = []string{tKernel, tMemcpy, tMemset, tRuntime, tNVTX}

// probePages finds the root page and the record position of every
// column of the large tables. A table some of whose columns are
// generated (they shift the positions), or that is not an ordinary
// table, is left out; so is every table when the SQLite in use lacks
// table_xinfo.
func probePages(ctx context.Context, db *sql.DB, s *schema) {
	s.pages = map[string]*pageTable{}
	for _, t := range pageTables {
		if !s.tables[t] {
			continue
		}
		var root sql.NullInt64
		if err := db.QueryRowContext(ctx, "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?", t).Scan(&root); err != nil ||
			!root.Valid || root.Int64 < 1 || root.Int64 > 1<<31 {
			continue
		}
		pt := &pageTable{root: uint32(root.Int64), cols: map[string]pageCol{}}
		if pageColumns(ctx, db, t, pt) {
			s.pages[t] = pt
		}
	}
}

// pageColumns fills pt.cols from table_xinfo; false when the table's
// records cannot be read by position.
func pageColumns(ctx context.Context, db *sql.DB, t string, pt *pageTable) bool {
	rows, err := db.QueryContext(ctx, "SELECT cid, name, type, pk, hidden, dflt_value IS NOT NULL FROM pragma_table_xinfo(?)", t)
	if err != nil {
		return false
	}
	defer rows.Close()
	for rows.Next() {
		var cid, pk, hidden int64
		var name, typ string
		var dflt bool
		if err := rows.Scan(&cid, &name, &typ, &pk, &hidden, &dflt); err != nil || hidden != 0 {
			return false
		}
		pt.cols[name] = pageCol{pos: int(cid), ok: pk == 0 && !dflt && plainType(typ),
			intAffinity: strings.Contains(strings.ToUpper(typ), "INT")}
	}
	return rows.Err() == nil
}

// plainType reports whether values of a column declared typ come out of
// SQLite, and of the Go driver, exactly as stored: not with REAL
// affinity (SQLite turns stored integers into reals), and none of the
// declared types the driver converts (dates and times, booleans).
func plainType(typ string) bool {
	u := strings.ToUpper(typ)
	switch strings.ToLower(typ) {
	case "timestamp", "datetime", "date", "boolean":
		return false
	}
	has := func(subs ...string) bool {
		for _, x := range subs {
			if strings.Contains(u, x) {
				return true
			}
		}
		return false
	}
	real := !has("INT", "CHAR", "CLOB", "TEXT", "BLOB") && u != "" && has("REAL", "FLOA", "DOUB")
	return !real
}

// pagePlan returns the page scanner's table and columns for q; ok is
// false when q cannot be read from the pages.
func (s *schema) pagePlan(q *rowQuery) (pagescan.Table, []pagescan.Col, bool) {
	pt := s.pages[q.table]
	if pt == nil || !usePages {
		return pagescan.Table{}, nil, false
	}
	cols := make([]pagescan.Col, len(q.sels))
	for i, c := range q.sels {
		if len(c.cols) == 0 {
			switch c.lit {
			case "0":
			case "NULL":
				cols[i].Null = true
			default:
				return pagescan.Table{}, nil, false
			}
			continue
		}
		for _, name := range c.cols {
			pc, ok := pt.cols[name]
			if !ok || !pc.ok {
				return pagescan.Table{}, nil, false
			}
			cols[i].Src = append(cols[i].Src, pc.pos)
		}
	}
	return pagescan.Table{Root: pt.root}, cols, true
}
