package pagescan

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// The tests build databases with SQLite itself and hold every scan to
// what SQLite returns for the same query.

// dbSpec says what testDB writes.
type dbSpec struct {
	pageSize int
	rows     int
	seed     uint64
	alter    bool // add a column after half the rows (older rows lack it)
	deletes  bool // delete a third of the rows
	bigRows  bool // some rows spill to overflow pages
}

// testDB writes table t(a INTEGER, b INTEGER, c TEXT, d BLOB, e (no type),
// f INTEGER[, g INTEGER]) with values of every storage class and size,
// and returns its path and root page.
func testDB(t testing.TB, s dbSpec) (string, uint32) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.sqlite")
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=rwc")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(fmt.Sprintf("PRAGMA page_size = %d", s.pageSize))
	exec("CREATE TABLE filler(x BLOB)") // so that the table is not the first after the schema
	exec("CREATE TABLE t(a INTEGER, b INTEGER NOT NULL, c TEXT, d BLOB, e, f INTEGER)")
	rng := rand.New(rand.NewPCG(s.seed, 1))
	tx, _ := db.Begin()
	for i := range s.rows {
		if s.alter && i == s.rows/2 {
			tx.Commit()
			exec("ALTER TABLE t ADD COLUMN g INTEGER")
			tx, _ = db.Begin()
		}
		cols := "rowid, a, b, c, d, e, f"
		vals := []any{rowidOf(i, rng), anyValue(rng, s.bigRows), intValue(rng), anyValue(rng, s.bigRows), anyValue(rng, false), anyValue(rng, false), anyValue(rng, false)}
		if s.alter && i >= s.rows/2 {
			cols += ", g"
			vals = append(vals, intValue(rng))
		}
		q := "INSERT INTO t(" + cols + ") VALUES (?" + strings.Repeat(", ?", len(vals)-1) + ")"
		if _, err := tx.Exec(q, vals...); err != nil {
			t.Fatalf("insert: %v", err)
		}
		if i%97 == 0 {
			tx.Exec("INSERT INTO filler VALUES (?)", make([]byte, rng.IntN(3000)))
		}
	}
	if s.rows > 0 {
		if _, err := tx.Exec("INSERT INTO t(rowid, b, f) VALUES (?, ?, ?)", int64(math.MaxInt64), 7, -7); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if s.deletes {
		exec("DELETE FROM t WHERE abs(b) % 3 = 0")
	}
	var root uint32
	if err := db.QueryRow("SELECT rootpage FROM sqlite_master WHERE name = 't'").Scan(&root); err != nil {
		t.Fatal(err)
	}
	return path, root
}

// rowidOf spreads rowids over the whole int64 range, negatives and the
// extremes included, in increasing order.
func rowidOf(i int, rng *rand.Rand) int64 {
	switch i {
	case 0:
		return math.MinInt64
	}
	return math.MinInt64/2 + int64(i)*(1<<40) + rng.Int64N(1<<39)
}

// intValue returns an integer of any serial type size.
func intValue(rng *rand.Rand) int64 {
	bits := []int{0, 1, 7, 8, 15, 16, 23, 24, 31, 32, 47, 48, 63}[rng.IntN(13)]
	if bits == 0 {
		return int64(rng.IntN(2))
	}
	v := rng.Int64()
	if bits < 63 {
		v = rng.Int64N(1 << bits)
	}
	if rng.IntN(2) == 0 {
		v = -v - 1
	}
	return v
}

// anyValue returns a value of any storage class; big ones spill.
func anyValue(rng *rand.Rand, big bool) any {
	switch rng.IntN(7) {
	case 0:
		return nil
	case 1:
		return rng.Float64() * 1e6
	case 2:
		n := rng.IntN(30)
		if big && rng.IntN(4) == 0 {
			n = 1000 + rng.IntN(20000)
		}
		return strings.Repeat("x", n)
	case 3:
		n := rng.IntN(30)
		if big && rng.IntN(4) == 0 {
			n = 1000 + rng.IntN(20000)
		}
		return bytes.Repeat([]byte{0xab}, n)
	}
	return intValue(rng)
}

// sqliteInts runs the integer query of cols through SQLite and returns
// every value and NULL mask, row after row.
func sqliteInts(t *testing.T, path, sel string, ncol int, lo, hi int64) ([]int64, []uint32) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT "+sel+" FROM t WHERE rowid BETWEEN ? AND ?", lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var vals []int64
	var nulls []uint32
	dest := make([]any, ncol)
	for i := range dest {
		dest[i] = new(any)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		var m uint32
		for i, d := range dest {
			x, ok := (*d.(*any)).(int64)
			if !ok {
				m |= 1 << i
			}
			vals = append(vals, x)
		}
		nulls = append(nulls, m)
	}
	return vals, nulls
}

// intCols is the integer query the tests hold to SQLite: plain columns
// of every class, a COALESCE and both constants.
var intCols = struct {
	sql  string
	cols []Col
}{"a, b, c, d, e, f, COALESCE(c, a, f), 0, NULL, rowid = rowid",
	[]Col{{Src: []int{0}}, {Src: []int{1}}, {Src: []int{2}}, {Src: []int{3}}, {Src: []int{4}}, {Src: []int{5}},
		{Src: []int{2, 0, 5}}, {}, {Null: true}, {Const: 1}}}

func pageScan(t *testing.T, tb Table, cols []Col, lo, hi int64) ([]int64, []uint32) {
	t.Helper()
	var vals []int64
	var nulls []uint32
	err := Scan(context.Background(), tb, cols, lo, hi, func(v []int64, n []uint32) error {
		if len(n) > BatchRows || len(v) != len(n)*len(cols) {
			t.Fatalf("batch of %d rows, %d values", len(n), len(v))
		}
		vals, nulls = append(vals, v...), append(nulls, n...)
		return nil
	})
	if err != nil {
		t.Fatalf("Scan [%d, %d]: %v", lo, hi, err)
	}
	return vals, nulls
}

func TestScanMatchesSQLite(t *testing.T) {
	for _, s := range []dbSpec{
		{pageSize: 512, rows: 3000, seed: 1},
		{pageSize: 4096, rows: 20000, seed: 2, deletes: true},
		{pageSize: 1024, rows: 2000, seed: 3, bigRows: true},
		{pageSize: 65536, rows: 5000, seed: 4, alter: true},
		{pageSize: 4096, rows: 0, seed: 5},
	} {
		t.Run(fmt.Sprintf("page%d_rows%d", s.pageSize, s.rows), func(t *testing.T) {
			path, root := testDB(t, s)
			tb := Table{Path: path, Root: root}
			rng := rand.New(rand.NewPCG(s.seed, 9))
			ranges := [][2]int64{{math.MinInt64, math.MaxInt64}, {0, -1}, {math.MaxInt64, math.MaxInt64}, {math.MinInt64, math.MinInt64}}
			for range 8 {
				a, b := rng.Int64()-rng.Int64N(math.MaxInt64), rng.Int64()
				ranges = append(ranges, [2]int64{min(a, b), max(a, b)})
			}
			cols, sel := intCols.cols, intCols.sql
			if s.alter {
				cols, sel = append(slices.Clone(cols), Col{Src: []int{6}}), sel+", g"
			}
			for _, r := range ranges {
				wantV, wantN := sqliteInts(t, path, sel, len(cols), r[0], r[1])
				gotV, gotN := pageScan(t, tb, cols, r[0], r[1])
				if !slices.Equal(gotV, wantV) || !slices.Equal(gotN, wantN) {
					t.Fatalf("rowids [%d, %d]: %d rows, SQLite %d; values differ", r[0], r[1], len(gotN), len(wantN))
				}
			}
		})
	}
}

// TestScanValuesMatchesSQLite holds every storage class to what the
// driver returns.
func TestScanValuesMatchesSQLite(t *testing.T) {
	path, root := testDB(t, dbSpec{pageSize: 1024, rows: 3000, seed: 6, bigRows: true})
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT rowid, a, b, c, d, e, f FROM t")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		v := make([]any, 7)
		p := make([]any, 7)
		for i := range v {
			p[i] = &v[i]
		}
		rows.Scan(p...)
		want = append(want, fmt.Sprintf("%#v", v))
	}
	rows.Close()
	var got []string
	err = ScanValues(context.Background(), Table{path, root}, []int{0, 1, 2, 3, 4, 5}, math.MinInt64, math.MaxInt64,
		func(rowid int64, vals []Value) error {
			v := []any{rowid}
			for _, x := range vals {
				switch x.Kind {
				case Null:
					v = append(v, nil)
				case Int:
					v = append(v, x.Int)
				case Float:
					v = append(v, x.Float)
				case Text:
					v = append(v, string(x.Bytes))
				case Blob:
					v = append(v, slices.Clone(x.Bytes))
				}
			}
			got = append(got, fmt.Sprintf("%#v", v))
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, SQLite %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// TestScanStops: fn's error and a cancelled context end the scan.
func TestScanStops(t *testing.T) {
	path, root := testDB(t, dbSpec{pageSize: 4096, rows: 5000, seed: 7})
	stop := errors.New("stop")
	err := Scan(context.Background(), Table{path, root}, intCols.cols, math.MinInt64, math.MaxInt64, func([]int64, []uint32) error { return stop })
	if err != stop {
		t.Errorf("fn's error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = Scan(ctx, Table{path, root}, intCols.cols, math.MinInt64, math.MaxInt64, func([]int64, []uint32) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	for _, cols := range [][]Col{nil, make([]Col, 33), {{Src: []int{-1}}}} {
		if err := Scan(context.Background(), Table{path, root}, cols, 0, 1, nil); err == nil {
			t.Errorf("%d columns: no error", len(cols))
		}
	}
	if err := Scan(context.Background(), Table{filepath.Join(t.TempDir(), "none"), root}, intCols.cols, 0, 1, nil); err == nil {
		t.Error("missing file: no error")
	}
}

// TestMalformed damages a database in ways a well-formed one never is:
// each scan fails with ErrMalformed and never panics.
func TestMalformed(t *testing.T) {
	path, root := testDB(t, dbSpec{pageSize: 1024, rows: 3000, seed: 8})
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps := 1024
	at := func(page uint32) int { return int(page-1) * ps }
	// the first leaf: follow the leftmost children down from the root
	leaf := root
	for orig[at(leaf)] == interiorPage {
		off := int(orig[at(leaf)+12])<<8 | int(orig[at(leaf)+13])
		leaf = uint32(orig[at(leaf)+off])<<24 | uint32(orig[at(leaf)+off+1])<<16 | uint32(orig[at(leaf)+off+2])<<8 | uint32(orig[at(leaf)+off+3])
	}
	for _, tc := range []struct {
		name string
		root uint32
		edit func(b []byte)
	}{
		{"not sqlite", root, func(b []byte) { b[0] = 'X' }},
		{"page size", root, func(b []byte) { b[16], b[17] = 0, 3 }},
		{"utf-16", root, func(b []byte) { b[59] = 2 }},
		{"root out of range", 1 << 20, func([]byte) {}},
		{"root page type", root, func(b []byte) { b[at(root)] = 0x02 }},
		{"leaf page type", root, func(b []byte) { b[at(leaf)] = 0x0a }},
		{"cell count", root, func(b []byte) { b[at(leaf)+3], b[at(leaf)+4] = 0xff, 0xff }},
		{"cell pointer", root, func(b []byte) { b[at(leaf)+8], b[at(leaf)+9] = 0xff, 0xf0 }},
		{"cycle", root, func(b []byte) {
			if b[at(root)] == interiorPage { // the root's right child is the root
				copy(b[at(root)+8:], []byte{byte(root >> 24), byte(root >> 16), byte(root >> 8), byte(root)})
			} else {
				b[at(root)] = 0
			}
		}},
		{"rowid order", root, func(b []byte) { // the second cell points at the first
			b[at(leaf)+10], b[at(leaf)+11] = b[at(leaf)+8], b[at(leaf)+9]
		}},
		{"record header", root, func(b []byte) {
			off := int(b[at(leaf)+8])<<8 | int(b[at(leaf)+9])
			c := b[at(leaf)+off:]
			_, m1 := varint(c)
			_, m2 := varint(c[m1:])
			c[m1+m2] = 0x7f // header larger than the record
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := slices.Clone(orig)
			tc.edit(b)
			p := filepath.Join(t.TempDir(), "bad.sqlite")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			err := Scan(context.Background(), Table{p, tc.root}, intCols.cols, math.MinInt64, math.MaxInt64, func([]int64, []uint32) error { return nil })
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("error %v, want ErrMalformed", err)
			}
		})
	}
}

// FuzzScan damages a small database at the fuzzer's positions: a scan
// never panics, and when both it and SQLite read the damaged table, they
// read the same rows.
func FuzzScan(f *testing.F) {
	f.Add(uint32(1000), byte(0xff), uint32(5000), byte(0))
	f.Add(uint32(2051), byte(0x05), uint32(0), byte(0))
	f.Add(uint32(3080), byte(0x81), uint32(4100), byte(0x7f))
	dir := f.TempDir()
	path, root := testDB(f, dbSpec{pageSize: 1024, rows: 300, seed: 10, bigRows: true})
	orig, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	schema := schemaOf(path)
	f.Fuzz(func(t *testing.T, at1 uint32, v1 byte, at2 uint32, v2 byte) {
		b := slices.Clone(orig)
		b[int(at1)%len(b)], b[int(at2)%len(b)] = v1, v2
		p := filepath.Join(dir, fmt.Sprintf("f%d-%d.sqlite", at1, at2))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		var got []int64
		var gotN []uint32
		err := Scan(context.Background(), Table{p, root}, intCols.cols, math.MinInt64, math.MaxInt64, func(v []int64, n []uint32) error {
			got, gotN = append(got, v...), append(gotN, n...)
			return nil
		})
		if err != nil {
			return
		}
		// a damaged schema declares other columns: the query no longer
		// means the same
		want, wantN, ok := sqliteIntsOK(p, intCols.sql, len(intCols.cols))
		if ok && schemaOf(p) == schema && (!slices.Equal(got, want) || !slices.Equal(gotN, wantN)) {
			t.Fatalf("damage at %d=%#x, %d=%#x: %d rows, SQLite %d; values differ", at1, v1, at2, v2, len(gotN), len(wantN))
		}
	})
}

// schemaOf returns the SQL that created table t in the database at path,
// or "" when SQLite cannot read it.
func schemaOf(path string) string {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		return ""
	}
	defer db.Close()
	var s string
	db.QueryRow("SELECT sql FROM sqlite_master WHERE name = 't'").Scan(&s)
	return s
}

// sqliteIntsOK is sqliteInts for a file SQLite may refuse: ok is false
// when it does.
func sqliteIntsOK(path, sel string, ncol int) ([]int64, []uint32, bool) {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		return nil, nil, false
	}
	defer db.Close()
	rows, err := db.Query("SELECT " + sel + " FROM t WHERE rowid BETWEEN -9223372036854775808 AND 9223372036854775807")
	if err != nil {
		return nil, nil, false
	}
	defer rows.Close()
	var vals []int64
	var nulls []uint32
	dest := make([]any, ncol)
	for i := range dest {
		dest[i] = new(any)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, false
		}
		var m uint32
		for i, d := range dest {
			x, ok := (*d.(*any)).(int64)
			if !ok {
				m |= 1 << i
			}
			vals = append(vals, x)
		}
		nulls = append(nulls, m)
	}
	return vals, nulls, rows.Err() == nil
}

// BenchmarkScanExport scans the kernel table of the export named by
// SERVECMP_BENCH_EXPORT (make bench keeps its exports with
// SERVECMP_BENCH_KEEP=DIR) the way the reader does; it skips without one.
func BenchmarkScanExport(b *testing.B) {
	path := os.Getenv("SERVECMP_BENCH_EXPORT")
	if path == "" {
		b.Skip("SERVECMP_BENCH_EXPORT not set")
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		b.Fatal(err)
	}
	var root uint32
	err = db.QueryRow("SELECT rootpage FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'").Scan(&root)
	db.Close()
	if err != nil {
		b.Fatal(err)
	}
	cols := []Col{{Src: []int{0}}, {Src: []int{1}}, {Src: []int{2}}, {Src: []int{5}}, {Src: []int{7}}, {Src: []int{8, 9, 10}},
		{Src: []int{6}}, {Src: []int{26}}, {Src: []int{14}}, {Src: []int{15}}, {Src: []int{16}}, {Src: []int{17}}, {Src: []int{18}}, {Src: []int{19}}}
	for b.Loop() {
		if err := Scan(context.Background(), Table{path, root}, cols, math.MinInt64, math.MaxInt64, func([]int64, []uint32) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
