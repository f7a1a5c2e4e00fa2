// Package interval measures sets of half-open time intervals.
//
// Units: times are int64 nanoseconds. Every Interval is half-open,
// [Start, End); an interval with End <= Start is empty and covers no time.
// Two intervals that only touch (a.End == b.Start) do not overlap, and their
// union is one interval of the summed length.
//
// The functions are pure; Union sorts its argument in place, everything else
// leaves its inputs unchanged.
package interval

import (
	"cmp"
	"slices"
)

// Interval is the half-open span [Start, End) in ns.
type Interval struct {
	Start, End int64
}

// Len is the length of i in ns; 0 for an empty interval.
func (i Interval) Len() int64 {
	if i.End <= i.Start {
		return 0
	}
	return i.End - i.Start
}

// Empty reports whether i covers no time.
func (i Interval) Empty() bool { return i.End <= i.Start }

// Clip returns the part of i inside w and whether that part is non-empty.
func Clip(i, w Interval) (Interval, bool) {
	out := Interval{max(i.Start, w.Start), min(i.End, w.End)}
	return out, out.End > out.Start
}

// ClipWork is the one rule for counting a piece of work [start, end) in a
// window win: it returns the part inside win and whether the work counts
// there at all. Work counts when some of it lies inside win (the returned
// part has positive length), or when it has no length (end <= start) and
// starts inside win: then it counts with no time, and the part returned
// is [start, start).
func ClipWork(start, end int64, win Interval) (Interval, bool) {
	if end <= start {
		return Interval{start, start}, start >= win.Start && start < win.End
	}
	return Clip(Interval{start, end}, win)
}

// Union sorts ivs by start (in place) and returns the disjoint, sorted
// intervals covering the same instants. Empty intervals are dropped;
// touching intervals are joined. The result reuses ivs' storage.
func Union(ivs []Interval) []Interval {
	slices.SortFunc(ivs, func(a, b Interval) int { return cmp.Compare(a.Start, b.Start) })
	out := ivs[:0]
	for _, iv := range ivs {
		if iv.Empty() {
			continue
		}
		if n := len(out); n > 0 && iv.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, iv.End)
			continue
		}
		out = append(out, iv)
	}
	return out
}

// Len returns the length in ns of the union of ivs without changing ivs.
func Len(ivs []Interval) int64 {
	c := slices.Clone(ivs)
	var n int64
	for _, iv := range Union(c) {
		n += iv.Len()
	}
	return n
}

// Merger measures a union incrementally from intervals fed in
// non-decreasing order of Start. The zero value is ready.
type Merger struct {
	cur  Interval
	open bool
	busy int64
}

// Add feeds the next interval; its Start must not be less than the Start of
// the one before. Empty intervals are ignored.
func (m *Merger) Add(i Interval) {
	if i.Empty() {
		return
	}
	if m.open && i.Start <= m.cur.End {
		m.cur.End = max(m.cur.End, i.End)
		return
	}
	if m.open {
		m.busy += m.cur.Len()
	}
	m.cur, m.open = i, true
}

// Len is the length of the union of everything added so far.
func (m *Merger) Len() int64 {
	if m.open {
		return m.busy + m.cur.Len()
	}
	return m.busy
}

// Current returns the last, still growing, merged interval and whether
// there is one. Every earlier merged interval ends before its Start.
func (m *Merger) Current() (Interval, bool) { return m.cur, m.open }
