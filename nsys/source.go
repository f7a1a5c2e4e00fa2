package nsys

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/servecmp/servecmp/nsys/internal/fastscan"
)

// Config says how ReadWith reads an export; the zero value reads through
// the caller's pool alone, with the default chunk size.
type Config struct {
	// File is the export's file on disk. When set, and this build has the
	// fast scanner (cgo on Linux or macOS), the large all-integer tables
	// (device work, CUDA API calls) are read through read-only, immutable
	// SQLite handles of the reader's own on File, several at once, at
	// close to SQLite's own scan speed. Everything else, and every table
	// in other builds, is read through the pool.
	File string
	// MinChunk is the smallest rowid range worth its own connection;
	// 0 means 1<<17 rows.
	MinChunk int64
}

// defaultMinChunk is the default Config.MinChunk.
const defaultMinChunk = 1 << 17

// source is where a reader reads: the caller's pool and, when the fast
// scanner is built in and the caller named the file, that file.
type source struct {
	pool     *sql.DB
	file     string // "" = the pool alone
	minChunk int64
}

func newSource(pool *sql.DB, cfg Config) *source {
	s := &source{pool: pool, minChunk: cfg.MinChunk}
	if fastscan.Available {
		s.file = cfg.File
	}
	if s.minChunk <= 0 {
		s.minChunk = defaultMinChunk
	}
	return s
}

// intScan runs query, whose ncol columns (at most 32) are all integers,
// and calls fn with batches of rows: vals holds len(nulls) rows of ncol
// values each, row-major; bit i of nulls[r] is set when column i of row r
// is NULL or not an integer (its value then reads 0). args bind to ?1, ?2... Both paths give
// the same rows in the same batches of at most fastscan.BatchRows.
func (s *source) intScan(ctx context.Context, query string, args []int64, ncol int, fn func(vals []int64, nulls []uint32) error) error {
	if ncol > 32 || ncol < 1 {
		return fmt.Errorf("intScan: %d columns", ncol)
	}
	if s.file != "" {
		return fastscan.Scan(ctx, s.file, query, args, ncol, fn)
	}
	conn, err := s.pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		return driverScan(ctx, dc, query, args, ncol, fn)
	})
}

// driverScan is intScan over the database/sql driver interfaces.
func driverScan(ctx context.Context, dc any, query string, args []int64, ncol int, fn func([]int64, []uint32) error) error {
	st, rows, err := driverQuery(dc, query, intArgs(args))
	if err != nil {
		return err
	}
	defer st.Close()
	defer rows.Close()
	const batch = fastscan.BatchRows
	row := make([]driver.Value, ncol)
	vals := make([]int64, 0, batch*ncol)
	nulls := make([]uint32, 0, batch)
	for {
		err := rows.Next(row)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if err == nil {
			var m uint32
			for i, v := range row {
				x, ok := strictInt(v)
				if !ok {
					m |= 1 << i
				}
				vals = append(vals, x)
			}
			nulls = append(nulls, m)
		}
		if len(nulls) == batch || (err != nil && len(nulls) > 0) {
			if e := ctx.Err(); e != nil {
				return e
			}
			if e := fn(vals, nulls); e != nil {
				return e
			}
			vals, nulls = vals[:0], nulls[:0]
		}
		if err != nil {
			return nil
		}
	}
}

// chunks splits the rowid range [lo, hi] into at most n ranges of at
// least s.minChunk rows.
func (s *source) chunks(lo, hi int64, n int) [][2]int64 {
	span := hi - lo + 1
	if k := int(span / s.minChunk); k < n {
		n = max(k, 1)
	}
	out := make([][2]int64, 0, n)
	for i := range n {
		a := lo + span*int64(i)/int64(n)
		b := lo + span*int64(i+1)/int64(n) - 1
		out = append(out, [2]int64{a, b})
	}
	return out
}
