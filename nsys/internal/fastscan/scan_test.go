package fastscan

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// writeDB writes a table t(a, b) of n rows, b NULL on every third row,
// under a directory name that needs URI escaping.
func writeDB(t *testing.T, n int) string {
	t.Helper()
	tmp := t.TempDir()
	plain := filepath.Join(tmp, "t.sqlite")
	db, err := sql.Open("sqlite3", plain)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, _ := db.Begin()
	if _, err := tx.Exec("CREATE TABLE t(a INTEGER, b INTEGER)"); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		var b any = int64(i) * -3
		if i%3 == 0 {
			b = nil
		}
		if _, err := tx.Exec("INSERT INTO t VALUES (?, ?)", i, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "odd %20 ?x #y")
	path := filepath.Join(dir, "t.sqlite")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(plain, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestScan(t *testing.T) {
	if !Available {
		if err := Scan(context.Background(), "x", "SELECT 1", nil, 1, nil); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Scan without the scanner: %v", err)
		}
		t.Skip("scanner not built in")
	}
	const n = 5000 // more than two batches
	path := writeDB(t, n)
	var as, bs []int64
	batches := 0
	err := Scan(context.Background(), path, "SELECT a, b FROM t WHERE rowid BETWEEN ?1 AND ?2 ORDER BY rowid", []int64{2, n - 1}, 2,
		func(vals []int64, nulls []uint32) error {
			batches++
			for r, m := range nulls {
				a, b := vals[2*r], vals[2*r+1]
				if (m&2 != 0) != (a%3 == 0) || m&1 != 0 {
					t.Fatalf("row a=%d: NULL mask %b", a, m)
				}
				as, bs = append(as, a), append(bs, b)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != n-2 || as[0] != 1 || as[len(as)-1] != n-2 || batches != 3 {
		t.Fatalf("%d rows from %d to %d in %d batches", len(as), as[0], as[len(as)-1], batches)
	}
	if bs[0] != -3 || bs[2] != 0 || !slices.IsSorted(as) {
		t.Errorf("values %v...", bs[:3])
	}
}

func TestScanErrors(t *testing.T) {
	if !Available {
		t.Skip("scanner not built in")
	}
	path := writeDB(t, 3)
	stop := errors.New("stop")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name, file, query string
		ncol              int
		want              string
	}{
		{"missing file", filepath.Join(t.TempDir(), "none.sqlite"), "SELECT a FROM t", 1, "opening"},
		{"bad query", path, "SELECT nope FROM t", 1, "no such column"},
		{"too many columns", path, "SELECT a FROM t", 33, "33 columns"},
	} {
		err := Scan(context.Background(), tc.file, tc.query, nil, tc.ncol, func([]int64, []uint32) error { return nil })
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := Scan(context.Background(), path, "SELECT a FROM t", nil, 1, func([]int64, []uint32) error { return stop }); err != stop {
		t.Errorf("fn error not returned: %v", err)
	}
	if err := Scan(ctx, path, "SELECT a FROM t", nil, 1, func([]int64, []uint32) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
