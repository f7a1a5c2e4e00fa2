package nsys

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// rawScan runs query on its own pool connection through the driver's raw
// interface and calls fn with each row's values. database/sql's Scan would
// cost several times the SQLite read itself on million-row tables.
//
// The statement runs under a context without a deadline (the driver then
// steps rows on its fast path); ctx is checked every 16384 rows instead.
func rawScan(ctx context.Context, db *sql.DB, query string, args []driver.NamedValue, ncol int, fn func([]driver.Value) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		st, rows, err := driverQuery(dc, query, args)
		if err != nil {
			return err
		}
		defer st.Close()
		defer rows.Close()
		vals := make([]driver.Value, ncol)
		for i := 1; ; i++ {
			if i&0x3FFF == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			err := rows.Next(vals)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := fn(vals); err != nil {
				return err
			}
		}
	})
}

// driverQuery prepares query on the raw driver connection dc and runs it
// with args, both under a context without a deadline. The caller closes
// rows, then st.
func driverQuery(dc any, query string, args []driver.NamedValue) (st driver.Stmt, rows driver.Rows, err error) {
	cp, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, nil, errors.New("sqlite driver lacks PrepareContext")
	}
	st, err = cp.PrepareContext(context.Background(), query)
	if err != nil {
		return nil, nil, err
	}
	sq, ok := st.(driver.StmtQueryContext)
	if !ok {
		st.Close()
		return nil, nil, errors.New("sqlite driver lacks QueryContext")
	}
	rows, err = sq.QueryContext(context.Background(), args)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, rows, nil
}

// intArgs binds xs to ?1, ?2...
func intArgs(xs []int64) []driver.NamedValue {
	out := make([]driver.NamedValue, len(xs))
	for i, x := range xs {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: x}
	}
	return out
}

// rowidRange returns the smallest and largest rowid of table t; ok is
// false for an empty table.
func rowidRange(ctx context.Context, db *sql.DB, t string) (lo, hi int64, ok bool, err error) {
	var a, b sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT min(rowid) FROM "+t).Scan(&a); err != nil {
		return 0, 0, false, err
	}
	if err := db.QueryRowContext(ctx, "SELECT max(rowid) FROM "+t).Scan(&b); err != nil {
		return 0, 0, false, err
	}
	if !a.Valid || !b.Valid {
		return 0, 0, false, nil
	}
	return a.Int64, b.Int64, true, nil
}

// maxRowSpan bounds the rowid span of one table: the reader sizes its
// buffers by rowid span (exports number rows 1..n), and a file claiming
// more rows than this is refused rather than trusted.
const maxRowSpan = 1 << 28

// runAll runs fns concurrently and returns their errors joined; a panic
// in one becomes its error.
func runAll(fns []func() error) error {
	if len(fns) == 1 {
		return guard(fns[0])
	}
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, f := range fns {
		wg.Go(func() { errs[i] = guard(f) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// text reads a text column; ok is false for NULL.
func text(v driver.Value) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	case int64:
		return fmt.Sprint(x), true
	}
	return "", false
}

// partition reorders items (and keys with them) in place so that items
// with equal keys are contiguous, in key order 0..nkeys-1, and returns the
// sub-slice of each key (capacity clipped so that appends never overwrite
// a neighbour). It is stable: each key's items keep their order, so work
// read in start order per table stays so per rank. It runs in
// O(len(items)) time: it gives each item its destination (4 bytes per
// item) and then follows the permutation's cycles, placing one item for
// good with each swap.
func partition[T any](items []T, keys []uint16, nkeys int) [][]T {
	starts := make([]int, nkeys+1)
	grouped := true
	for i, k := range keys {
		starts[k+1]++
		if i > 0 && k < keys[i-1] {
			grouped = false
		}
	}
	for k := range nkeys {
		starts[k+1] += starts[k]
	}
	out := make([][]T, nkeys)
	for k := range nkeys {
		out[k] = items[starts[k]:starts[k+1]:starts[k+1]]
	}
	if grouped {
		return out
	}
	next := slices.Clone(starts[:nkeys])
	dest := make([]uint32, len(items))
	for i, k := range keys {
		dest[i] = uint32(next[k])
		next[k]++
	}
	for i := range items {
		for int(dest[i]) != i {
			// Send the item at i home; the one from there waits at i.
			j := dest[i]
			items[i], items[j] = items[j], items[i]
			keys[i], keys[j] = keys[j], keys[i]
			dest[i], dest[j] = dest[j], dest[i]
		}
	}
	return out
}
