package nsys

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/servecmp/servecmp/nsys/internal/fastscan"
	"github.com/servecmp/servecmp/nsys/internal/pagescan"
)

// Config says how ReadWith reads an export; the zero value reads through
// the caller's pool alone, with the default chunk size and workers.
type Config struct {
	// File is the export's file on disk. When set, the large tables
	// (device work, CUDA API calls, NVTX ranges) are read straight from
	// the file's pages (package nsys/internal/pagescan) through read-only
	// handles of the reader's own, several at once, faster than SQLite
	// reads them; a table whose pages or columns that scanner cannot read
	// exactly as SQLite would is read through SQLite instead: through
	// handles of the reader's own in builds with the C scanner (cgo on
	// Linux or macOS, package nsys/internal/fastscan), through the pool
	// otherwise. Everything else is read through the pool.
	File string
	// MinChunk is the smallest rowid range worth its own worker; 0 means
	// 1<<17 rows.
	MinChunk int64
	// Workers is how many rowid ranges of one table are read at once;
	// 0 means GOMAXPROCS, at most maxWorkers. Results do not depend on it.
	Workers int
}

// defaultMinChunk is the default Config.MinChunk.
const defaultMinChunk = 1 << 17

// maxWorkers caps the default Config.Workers: past it the reading is
// bound by memory bandwidth and the merge, not by cores.
const maxWorkers = 8

// source is where a reader reads: the caller's pool and, when the caller
// named the file, that file.
type source struct {
	pool     *sql.DB
	file     string // "" = the pool alone
	minChunk int64
	workers  int
	sem      chan struct{} // one slot per worker: scans running at once
	s        *schema       // set once probed
}

func newSource(pool *sql.DB, cfg Config) *source {
	s := &source{pool: pool, file: cfg.File, minChunk: cfg.MinChunk, workers: cfg.Workers}
	if s.minChunk <= 0 {
		s.minChunk = defaultMinChunk
	}
	if s.workers <= 0 {
		s.workers = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	s.sem = make(chan struct{}, s.workers)
	return s
}

// parts is how many rowid ranges a large table is cut into: one per
// worker with one worker, else two per worker, so that workers that
// finish early take the ranges left (the tables are read concurrently).
func (s *source) parts() int {
	if s.workers == 1 {
		return 1
	}
	return 2 * s.workers
}

// run runs the scans fns concurrently, at most s.workers at once (across
// all the tables being read), and returns their errors joined.
func (s *source) run(ctx context.Context, fns []func() error) error {
	slotted := make([]func() error, len(fns))
	for i, f := range fns {
		slotted[i] = func() error {
			select {
			case s.sem <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			defer func() { <-s.sem }()
			return f()
		}
	}
	return runAll(slotted)
}

// scanFn receives batches of rows: vals holds len(nulls) rows of ncol
// values each, row-major; bit i of nulls[r] is set when column i of row r
// is NULL or not an integer (its value then reads 0).
type scanFn func(vals []int64, nulls []uint32) error

// intScan reads q, whose columns (at most 32) are all integers, over the
// rowids [lo, hi] in rowid order, and passes the rows in batches of at
// most fastscan.BatchRows to a function made by mk. Every path gives the
// same rows. The pages are read first where the file is known and the
// query allows; when they cannot be read (a page or record a well-formed
// file does not hold, an unreadable file), the rows given so far are
// dropped (mk makes a fresh function) and SQLite reads the range.
func (s *source) intScan(ctx context.Context, q *rowQuery, lo, hi int64, mk func() scanFn) error {
	ncol := len(q.sels)
	if ncol > 32 || ncol < 1 {
		return fmt.Errorf("intScan: %d columns", ncol)
	}
	if s.file != "" {
		if t, cols, ok := s.s.pagePlan(q); ok {
			fn := mk()
			var fnErr error
			t.Path = s.file
			err := pagescan.Scan(ctx, t, cols, lo, hi, func(vals []int64, nulls []uint32) error {
				fnErr = fn(vals, nulls)
				return fnErr
			})
			if err == nil || fnErr != nil || ctx.Err() != nil {
				pageReads.Add(1)
				return err
			}
			pageFallbacks.Add(1)
		}
	}
	args := []int64{lo, hi}
	if s.file != "" && fastscan.Available {
		return fastscan.Scan(ctx, s.file, q.sql(), args, ncol, mk())
	}
	conn, err := s.pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	fn := mk()
	return conn.Raw(func(dc any) error {
		return driverScan(ctx, dc, q.sql(), args, ncol, fn)
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
