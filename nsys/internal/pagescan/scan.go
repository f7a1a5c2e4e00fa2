package pagescan

import (
	"context"
	"encoding/binary"
	"fmt"
)

// Col is one column of an integer scan's result.
type Col struct {
	// Src are record positions (the table's column numbers, as
	// table_info's cid counts them) whose first non-NULL value is the
	// column's, as COALESCE gives it; none: the column is a constant.
	Src []int
	// Const is the constant of a column without Src; Null makes it NULL.
	Const int64
	Null  bool
}

// Table names a table b-tree of a database file.
type Table struct {
	Path string // the database file
	Root uint32 // the table's root page (sqlite_master.rootpage)
}

// Scan reads the rows of t whose rowid lies in [lo, hi], in rowid order,
// and calls fn with batches of them: vals holds len(nulls) rows of
// len(cols) values each, row-major; bit i of nulls[r] is set when column
// i of row r is NULL or not an integer (its value then reads 0), as in
// package fastscan. At most 32 columns. vals and nulls are reused after
// fn returns; ctx is checked between batches.
func Scan(ctx context.Context, t Table, cols []Col, lo, hi int64, fn func(vals []int64, nulls []uint32) error) error {
	if len(cols) > 32 || len(cols) < 1 {
		return fmt.Errorf("pagescan: %d columns", len(cols))
	}
	need := 0
	for _, c := range cols {
		for _, s := range c.Src {
			if s < 0 {
				return fmt.Errorf("pagescan: column position %d", s)
			}
			need = max(need, s+1)
		}
	}
	k := &intSink{rec: newRecord(need), cols: cols, one: make([]int, len(cols)), ctx: ctx, fn: fn,
		vals: make([]int64, 0, BatchRows*len(cols)), nulls: make([]uint32, 0, BatchRows)}
	for i, c := range cols {
		k.one[i] = -1
		if len(c.Src) == 1 {
			k.one[i] = c.Src[0]
		}
	}
	if err := walk(t, lo, hi, k.row); err != nil {
		return err
	}
	return k.flush()
}

// intSink gathers the rows of an integer scan into batches.
type intSink struct {
	rec   *record
	cols  []Col
	one   []int // the one record position of each column, -1 for others
	ctx   context.Context
	fn    func(vals []int64, nulls []uint32) error
	vals  []int64
	nulls []uint32
}

// row adds the row of record payload p to the batch.
func (k *intSink) row(_ int64, p []byte) error {
	r := k.rec
	if err := r.parse(p); err != nil {
		return err
	}
	var mask uint32
	for i, src := range k.one {
		var v int64
		ok := true
		if src >= 0 {
			off, d := r.off[src], r.data
			switch r.typ[src] {
			case 1:
				v = int64(int8(d[off]))
			case 2:
				v = int64(int16(binary.BigEndian.Uint16(d[off:])))
			case 3:
				v = int64(int32(uint32(d[off])<<24|uint32(d[off+1])<<16|uint32(d[off+2])<<8) >> 8)
			case 4:
				v = int64(int32(binary.BigEndian.Uint32(d[off:])))
			case 5:
				v = int64(uint64(binary.BigEndian.Uint16(d[off:]))<<48|uint64(binary.BigEndian.Uint32(d[off+2:]))<<16) >> 16
			case 6:
				v = int64(binary.BigEndian.Uint64(d[off:]))
			case 8:
			case 9:
				v = 1
			default:
				ok = false
			}
		} else {
			v, ok = r.coalesce(&k.cols[i])
		}
		if !ok {
			mask |= 1 << i
		}
		k.vals = append(k.vals, v)
	}
	k.nulls = append(k.nulls, mask)
	if len(k.nulls) == BatchRows {
		return k.flush()
	}
	return nil
}

// flush hands the batch to fn.
func (k *intSink) flush() error {
	if len(k.nulls) == 0 {
		return nil
	}
	if err := k.ctx.Err(); err != nil {
		return err
	}
	err := k.fn(k.vals, k.nulls)
	k.vals, k.nulls = k.vals[:0], k.nulls[:0]
	return err
}

// coalesce returns column c of the record; ok is false for NULL and for
// a value that is not an integer.
func (r *record) coalesce(c *Col) (int64, bool) {
	if len(c.Src) == 0 {
		return c.Const, !c.Null
	}
	for _, s := range c.Src {
		if t := r.typ[s]; !isNull(t) {
			return intAt(r.data, t, r.off[s])
		}
	}
	return 0, false
}

// ScanValues reads the rows of t whose rowid lies in [lo, hi], in rowid
// order, and calls fn with the values at record positions pos of each
// row (a negative position reads NULL). vals is reused after fn returns; ctx is checked every BatchRows
// rows.
func ScanValues(ctx context.Context, t Table, pos []int, lo, hi int64, fn func(rowid int64, vals []Value) error) error {
	need := 0
	for _, p := range pos {
		need = max(need, p+1)
	}
	rec := newRecord(need)
	vals := make([]Value, len(pos))
	n := 0
	return walk(t, lo, hi, func(rowid int64, payload []byte) error {
		if n++; n%BatchRows == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := rec.parse(payload); err != nil {
			return err
		}
		for i, p := range pos {
			vals[i] = Value{}
			if p >= 0 {
				vals[i] = rec.value(p)
			}
		}
		return fn(rowid, vals)
	})
}

// walk opens t's file and visits the rows of t in [lo, hi].
func walk(t Table, lo, hi int64, row func(int64, []byte) error) error {
	f, err := open(t.Path)
	if err != nil {
		return err
	}
	defer f.close()
	if t.Root < 1 || t.Root > f.nPage {
		return malformed("root page %d outside the database's %d pages", t.Root, f.nPage)
	}
	return newWalker(f, lo, hi, row).walk(t.Root)
}
