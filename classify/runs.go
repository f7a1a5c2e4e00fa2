package classify

import (
	"cmp"
	"slices"

	"github.com/servecmp/servecmp/event"
)

// maxRunShare bounds the use of naturalSort: with more than one ascending
// run per maxRunShare items, the input is not "nearly sorted" and a
// general sort is cheaper than merging many short runs.
const maxRunShare = 16

// serialMerges is the most runs after the first that naturalSort merges
// one at a time into the sorted front, with a buffer the size of the
// smaller side; more runs are merged pairwise through a buffer of len(s).
const serialMerges = 4

// naturalSort sorts s stably by compare when s is a few ascending runs
// (device tables come in start order per kind, so a stream's work is its
// kernels, then its copies, then its memsets): it finds the runs in one
// pass and merges them. It does nothing and returns false when s has more
// than len(s)/maxRunShare+1 runs; an input already in order costs one
// comparison per item and no allocation.
func naturalSort[T any](s []T, compare func(a, b T) int) bool {
	var bounds []int
	for i := 1; i < len(s); i++ {
		if compare(s[i], s[i-1]) < 0 {
			if len(bounds) >= len(s)/maxRunShare {
				return false
			}
			bounds = append(bounds, i)
		}
	}
	if len(bounds) == 0 {
		return true
	}
	if len(bounds) > serialMerges {
		mergePairs(s, append(append([]int{0}, bounds...), len(s)), compare)
		return true
	}
	var buf []T
	for k, mid := range bounds {
		hi := len(s)
		if k+1 < len(bounds) {
			hi = bounds[k+1]
		}
		buf = mergeInPlace(s[:hi], mid, buf, compare)
	}
	return true
}

// mergeInPlace merges the sorted s[:mid] and s[mid:] in place, stably,
// copying the smaller side to buf (grown as needed and returned).
func mergeInPlace[T any](s []T, mid int, buf []T, compare func(a, b T) int) []T {
	if mid <= len(s)-mid {
		buf = append(buf[:0], s[:mid]...)
		a, b, k := 0, mid, 0
		for a < len(buf) {
			if b < len(s) && compare(s[b], buf[a]) < 0 {
				s[k] = s[b]
				b++
			} else {
				s[k] = buf[a]
				a++
			}
			k++
		}
		return buf
	}
	buf = append(buf[:0], s[mid:]...)
	a, b := mid-1, len(buf)-1
	for k := len(s) - 1; b >= 0; k-- {
		if a >= 0 && compare(buf[b], s[a]) < 0 {
			s[k] = s[a]
			a--
		} else {
			s[k] = buf[b]
			b--
		}
	}
	return buf
}

// mergePairs sorts s, whose ascending runs start at bounds (0 first,
// len(s) last), by merging neighbouring runs bottom-up, stably.
func mergePairs[T any](s []T, bounds []int, compare func(a, b T) int) {
	src, dst := s, make([]T, len(s))
	for len(bounds) > 2 {
		next := bounds[:0]
		for k := 0; k+1 < len(bounds); k += 2 {
			lo, mid := bounds[k], bounds[k+1]
			next = append(next, lo)
			if k+2 < len(bounds) {
				mergeRuns(dst[lo:bounds[k+2]], src[lo:mid], src[mid:bounds[k+2]], compare)
			} else {
				copy(dst[lo:mid], src[lo:mid])
			}
		}
		bounds = append(next, len(s))
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

// mergeRuns merges the sorted runs a and b into dst (len(a)+len(b)),
// taking from a on ties (stable).
func mergeRuns[T any](dst, a, b []T, compare func(a, b T) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if compare(b[j], a[i]) < 0 {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// sortByStart orders s, indices into work in ascending order, by (start,
// index): by merging its ascending runs when it has few, else by a
// general sort.
func sortByStart[I int32 | uint32](work []event.Work, s []I) {
	if naturalSort(s, func(x, y I) int { return cmp.Compare(work[x].Start, work[y].Start) }) {
		return
	}
	slices.SortFunc(s, func(x, y I) int {
		if c := cmp.Compare(work[x].Start, work[y].Start); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
}

// ascRuns returns the bounds of the ascending runs of start in s,
// indices into work (0 first, len(s) last). A stream's work is a few such
// runs, one per device table it came from.
func ascRuns[I int32 | uint32](work []event.Work, s []I) []int {
	bounds := []int{0}
	for i := 1; i < len(s); i++ {
		if work[s[i]].Start < work[s[i-1]].Start {
			bounds = append(bounds, i)
		}
	}
	return append(bounds, len(s))
}

// streamRunBounds returns the bounds of the ascending runs of each
// stream's part of s (streams: their bounds in s, 0 first, len(s) last),
// all in one list. A stream of more than one run per maxRunShare items is
// sorted by (start, index) first, into one run.
func streamRunBounds[I int32 | uint32](work []event.Work, s []I, streams []int) []int {
	bounds := []int{0}
	for b := 0; b+1 < len(streams); b++ {
		lo, hi := streams[b], streams[b+1]
		if lo == hi {
			continue
		}
		r := ascRuns(work, s[lo:hi])
		if len(r)-2 > (hi-lo)/maxRunShare {
			sortByStart(work, s[lo:hi])
			r = []int{0, hi - lo}
		}
		for _, x := range r[1:] {
			bounds = append(bounds, lo+x)
		}
	}
	return bounds
}

// runMerge hands out the indices of runs of s (each ascending in start;
// bounds as ascRuns gives them) in (start, run) order: for runs of one
// stream, which hold its work in table order one after the other, that is
// (start, index) order. Each batch is a stretch of one run, a sub-slice of
// s: nothing is copied.
type runMerge[I int32 | uint32] struct {
	work []event.Work
	s    []I
	h    []mergeCursor // a heap by (key, run)
}

// mergeCursor is the unread part [pos, end) of run run; key is the start
// of the item at pos.
type mergeCursor struct {
	key           int64
	pos, end, run int
}

func (c *mergeCursor) before(d *mergeCursor) bool {
	return c.key < d.key || c.key == d.key && c.run < d.run
}

func newRunMerge[I int32 | uint32](work []event.Work, s []I, bounds []int) *runMerge[I] {
	if len(bounds) == 0 {
		return &runMerge[I]{work: work, s: s}
	}
	return newRunMergeOf(work, s, bounds[:len(bounds)-1], bounds[1:])
}

// newRunMergeOf merges the runs s[lo[r]:hi[r]] (parts of the runs of s,
// each ascending in start), as newRunMerge merges whole ones.
func newRunMergeOf[I int32 | uint32](work []event.Work, s []I, lo, hi []int) *runMerge[I] {
	m := &runMerge[I]{work: work, s: s}
	for r := range lo {
		if lo[r] < hi[r] {
			m.h = append(m.h, mergeCursor{key: work[s[lo[r]]].Start, pos: lo[r], end: hi[r], run: r})
		}
	}
	for i := len(m.h)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m
}

// next returns the next batch, nil after the last.
func (m *runMerge[I]) next() []I {
	if len(m.h) == 0 {
		return nil
	}
	top := &m.h[0]
	var bound *mergeCursor // the first of the other runs
	for _, c := range []int{1, 2} {
		if c < len(m.h) && (bound == nil || m.h[c].before(bound)) {
			bound = &m.h[c]
		}
	}
	from, p := top.pos, top.pos+1
	for p < top.end {
		k := m.work[m.s[p]].Start
		if bound != nil && (k > bound.key || k == bound.key && top.run > bound.run) {
			break
		}
		p++
	}
	if p == top.end {
		last := len(m.h) - 1
		m.h[0] = m.h[last]
		m.h = m.h[:last]
	} else {
		top.pos, top.key = p, m.work[m.s[p]].Start
	}
	m.down(0)
	return m.s[from:p]
}

// down restores the heap below i.
func (m *runMerge[I]) down(i int) {
	h := m.h
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].before(&h[c]) {
			c++
		}
		if !h[c].before(&h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
