package pagescan

import (
	"encoding/binary"
	"errors"
	"math"
)

// Page types of a table b-tree.
const (
	interiorPage = 0x05
	leafPage     = 0x0d
)

// maxDepth is SQLite's limit on the depth of a b-tree.
const maxDepth = 20

// maxRun is the most pages read in one go, and maxGap the most pages
// from one leaf to the next read with it.
const (
	maxRun = 32
	maxGap = 4
)

// maxPayload bounds one row's payload (bytes): larger rows are read
// through SQLite.
const maxPayload = 64 << 20

// errDone ends a walk once rows beyond the range's end are met.
var errDone = errors.New("done")

// walker visits the rows of one table b-tree whose rowid lies in
// [lo, hi], in rowid order, checking the tree as it goes.
type walker struct {
	f         *file
	lo, hi    int64
	row       func(rowid int64, payload []byte) error
	visits    uint32
	leafDepth int      // depth of the leaves, -1 until one is met
	levels    [][]byte // one page buffer per interior level
	run       []byte   // maxRun pages of leaves
	ovf       []byte   // a row's payload gathered from overflow pages
	opg       []byte   // one overflow page
	last      int64    // rowid of the last row met
	any       bool     // a row was met
}

// span is a child page and the rowids [min, max] it may hold.
type span struct {
	page     uint32
	min, max int64
}

func newWalker(f *file, lo, hi int64, row func(int64, []byte) error) *walker {
	return &walker{f: f, lo: lo, hi: hi, row: row, leafDepth: -1}
}

// walk visits the rows of the tree rooted at page root.
func (w *walker) walk(root uint32) error {
	if w.lo > w.hi {
		return nil
	}
	err := w.visit(span{root, math.MinInt64, math.MaxInt64}, 0)
	if err == errDone {
		return nil
	}
	return err
}

// count records one more page read; a scan reads each page at most once
// in a well-formed tree.
func (w *walker) count(n int) error {
	w.visits += uint32(n)
	if w.visits > w.f.nPage {
		return malformed("the tree visits more pages than the file holds (a cycle)")
	}
	return nil
}

// visit reads page s.page at depth d and visits its rows.
func (w *walker) visit(s span, d int) error {
	if d >= maxDepth {
		return malformed("tree deeper than %d", maxDepth)
	}
	for len(w.levels) <= d {
		w.levels = append(w.levels, make([]byte, w.f.pageSize))
	}
	p := w.levels[d]
	if err := w.count(1); err != nil {
		return err
	}
	if err := w.f.readPages(s.page, 1, p); err != nil {
		return err
	}
	if typeOf(p, s.page) == leafPage {
		if w.leafDepth >= 0 && w.leafDepth != d {
			return malformed("leaves at depths %d and %d", w.leafDepth, d)
		}
		w.leafDepth = d
		return w.leaf(p, s)
	}
	kids, err := w.children(p, s)
	if err != nil {
		return err
	}
	for i := 0; i < len(kids); {
		if w.leafDepth != d+1 {
			if err := w.visit(kids[i], d+1); err != nil {
				return err
			}
			i++
			continue
		}
		n, err := w.leafRun(kids[i:])
		if err != nil {
			return err
		}
		i += n
	}
	return nil
}

// typeOf returns the b-tree page type of page p (number n).
func typeOf(p []byte, n uint32) byte { return p[hdrOffset(n)] }

// hdrOffset is where page n's b-tree header starts (page 1 holds the
// database header first).
func hdrOffset(n uint32) int {
	if n == 1 {
		return 100
	}
	return 0
}

// children returns the children of interior page p whose rowid spans
// meet [w.lo, w.hi], in order.
func (w *walker) children(p []byte, s span) ([]span, error) {
	h := hdrOffset(s.page)
	if p[h] != interiorPage {
		return nil, malformed("page %d has type %d", s.page, p[h])
	}
	n := int(binary.BigEndian.Uint16(p[h+3:]))
	ptrs := h + 12
	if ptrs+2*n > w.f.usable {
		return nil, malformed("page %d: %d cells do not fit", s.page, n)
	}
	var out []span
	min := s.min
	for i := 0; i <= n; i++ {
		var child uint32
		max := s.max
		if i < n {
			off := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
			if off < ptrs+2*n || off+4 >= w.f.usable {
				return nil, malformed("page %d: cell %d at offset %d", s.page, i, off)
			}
			child = binary.BigEndian.Uint32(p[off:])
			key, m := varint(p[off+4 : w.f.usable])
			if m == 0 {
				return nil, malformed("page %d: cell %d truncated", s.page, i)
			}
			max = int64(key)
		} else {
			child = binary.BigEndian.Uint32(p[h+8:])
		}
		if max < min || max > s.max {
			return nil, malformed("page %d: child %d holds rowids [%d, %d] within [%d, %d]", s.page, i, min, max, s.min, s.max)
		}
		if max >= w.lo && min <= w.hi {
			out = append(out, span{child, min, max})
		}
		if max >= w.hi {
			break // later children hold only rowids above hi
		}
		min = max + 1
	}
	return out, nil
}

// leafRun reads the leaves at the front of kids that lie close together
// in the file (each at most maxGap pages after the one before, all within
// maxRun pages) in one read, visits their rows, and returns how many it
// took. Pages of other tables between them are read and left alone.
func (w *walker) leafRun(kids []span) (int, error) {
	first := kids[0].page
	n := 1
	for n < len(kids) && kids[n].page > kids[n-1].page && kids[n].page-kids[n-1].page <= maxGap &&
		kids[n].page-first < maxRun {
		n++
	}
	pages := int(kids[n-1].page-first) + 1
	if w.run == nil {
		w.run = make([]byte, maxRun*w.f.pageSize)
	}
	if err := w.count(n); err != nil {
		return 0, err
	}
	if err := w.f.readPages(first, pages, w.run); err != nil {
		return 0, err
	}
	for _, k := range kids[:n] {
		at := int(k.page-first) * w.f.pageSize
		p := w.run[at : at+w.f.pageSize]
		if typeOf(p, k.page) != leafPage {
			return 0, malformed("page %d: type %d where a leaf was expected", k.page, typeOf(p, k.page))
		}
		if err := w.leaf(p, k); err != nil {
			return 0, err
		}
	}
	return n, nil
}
