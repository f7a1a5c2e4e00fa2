// This file measures one rank: the counters per region, method, name
// and shape, and one sweep over the work in start order for the busy
// (union) times.

package classify

import (
	"cmp"
	"slices"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/interval"
	"github.com/servecmp/servecmp/rules"
)

// span is one piece of device work clipped to the window, packed into 16
// bytes: the start, and the duration (< 2^55 ns, over a year) shifted left
// by 8 above a tag byte holding the region (bits 0-6) and a kernel flag
// (bit 7).
type span struct {
	start int64
	dt    uint64
}

const kernelBit = 0x80

func (s span) end() int64     { return s.start + int64(s.dt>>8) }
func (s span) region() uint8  { return uint8(s.dt) &^ kernelBit }
func (s span) isKernel() bool { return uint8(s.dt)&kernelBit != 0 }
func mkSpan(start, end int64, region uint8, kernel bool) span {
	tag := uint64(region)
	if kernel {
		tag |= kernelBit
	}
	return span{start, uint64(end-start)<<8 | tag}
}

type agg struct{ count, sum int64 }

// counts are one rank's counters (or those of a piece of its work): sums
// of integers, merged exactly in any order.
type counts struct {
	regions  [rules.NumRegions]agg
	methods  [NumMethods]agg
	kernels  agg
	all      agg
	unmapped []agg // by name id
	shapes   []agg // by shape id * NumRegions + region
	nshapes  int
}

// measure accumulates one rank's counters and intervals.
type measure struct {
	counts
	sw sweeper

	busy, kernelBusy, commBusy, nonCommBusy, multi int64
	regionBusy                                     [rules.NumRegions]int64
}

// newCounts returns empty counters for rank's work.
func newCounts(rank *event.Rank) counts {
	var c counts
	if rank.Shapes != nil {
		c.nshapes = rank.Shapes.Len()
		c.shapes = make([]agg, c.nshapes*rules.NumRegions)
	}
	return c
}

// workInStartOrder reports whether work is sorted by start.
func workInStartOrder(work []event.Work) bool {
	return slices.IsSortedFunc(work, func(a, b event.Work) int { return cmp.Compare(a.Start, b.Start) })
}

// run measures the work with its labels in win: the counters in pieces
// of the work, merged, and the busy times in one sweep over the work in
// start order (order, or the work itself when sorted), on the goroutines
// pool lends. When the work is cut into pieces, so is the sweep, by start
// time (see sweepCut).
func (m *measure) run(rank *event.Rank, labels []Label, win interval.Interval, order []uint32, runs []int, sorted bool, pool *Pool) {
	work := rank.Work
	parts := pool.pieces(len(work))
	pc := make([]counts, parts)
	count := func(k int) {
		c := newCounts(rank)
		lo, hi := bounds(k, parts, len(work))
		for i := lo; i < hi; i++ {
			c.add(&work[i], labels[i], win)
		}
		pc[k] = c
	}
	if parts == 1 {
		pool.each(2, func(k int) {
			if k == 0 {
				m.sweep(work, labels, win, order, runs, sorted)
			} else {
				count(0)
			}
		})
	} else {
		m.sweepCut(newSweepCut(work, labels, win, order, runs, sorted, parts), pool, count, parts)
	}
	m.counts = pc[0]
	for k := 1; k < parts; k++ {
		m.merge(&pc[k])
	}
}

// sweepCut sweeps the stretches of cut, beside count(k) for k in [0,
// parts), on the goroutines pool lends.
func (m *measure) sweepCut(cut *sweepCut, pool *Pool, count func(k int), parts int) {
	ns := cut.stretches()
	ends := make([]latestEnds, ns)
	pool.each(ns-1, func(k int) { ends[k] = cut.ends(k) })
	in := make([]latestEnds, ns)
	carried := noEnds()
	for k := range ns {
		in[k] = carried
		carried.merge(&ends[k])
	}
	tot := make([]sweepTotals, ns)
	pool.each(ns+parts, func(k int) {
		if k < ns {
			tot[k] = cut.sweep(k, &in[k])
		} else {
			count(k - ns)
		}
	})
	var t sweepTotals
	for _, o := range tot {
		t.add(o)
	}
	m.setTotals(t)
}

// setTotals keeps the busy times of the sweep.
func (m *measure) setTotals(t sweepTotals) {
	m.busy, m.kernelBusy, m.nonCommBusy, m.multi = t.all, t.kern, t.nonComm, t.multi
	m.regionBusy = t.reg
	m.commBusy = m.regionBusy[rules.Communication]
}

// merge adds o's counters to c's.
func (c *counts) merge(o *counts) {
	for r := range c.regions {
		c.regions[r].addAgg(o.regions[r])
	}
	for k := range c.methods {
		c.methods[k].addAgg(o.methods[k])
	}
	c.kernels.addAgg(o.kernels)
	c.all.addAgg(o.all)
	if len(o.unmapped) > len(c.unmapped) {
		c.unmapped = append(c.unmapped, make([]agg, len(o.unmapped)-len(c.unmapped))...)
	}
	for id, a := range o.unmapped {
		c.unmapped[id].addAgg(a)
	}
	for i, a := range o.shapes {
		c.shapes[i].addAgg(a)
	}
}

func (a *agg) addAgg(o agg) { a.count, a.sum = a.count+o.count, a.sum+o.sum }

func (m *counts) add(w *event.Work, l Label, win interval.Interval) {
	iv, in := interval.ClipWork(w.Start, w.End, win)
	if !in {
		return
	}
	d := iv.Len()
	r := l.Region
	if r >= rules.NumRegions {
		r = rules.Other
	}
	meth := l.Method
	if meth >= NumMethods {
		meth = Unmapped
	}
	m.all.count++
	m.all.sum += d
	m.regions[r].count++
	m.regions[r].sum += d
	m.methods[meth].count++
	m.methods[meth].sum += d
	if w.Kind == event.Kernel {
		m.kernels.count++
		m.kernels.sum += d
	}
	if meth == Unmapped {
		if int(w.Name) >= len(m.unmapped) {
			m.unmapped = slices.Grow(m.unmapped, int(w.Name)+1-len(m.unmapped))
			m.unmapped = m.unmapped[:cap(m.unmapped)]
		}
		m.unmapped[w.Name].count++
		m.unmapped[w.Name].sum += d
	}
	if w.Shape != 0 && int(w.Shape) < m.nshapes {
		a := &m.shapes[int(w.Shape)*rules.NumRegions+int(r)]
		a.count++
		a.sum += d
	}
}

// sweeper measures, in one pass over spans fed in start order, the union
// of all device work, of kernels, of each region, of non-communication
// work, and the time covered by two or more regions at once.
type sweeper struct {
	all, kern, nonComm interval.Merger
	reg                [rules.NumRegions]interval.Merger
	frontier, last     int64
	started            bool
	multi              int64
}

func (w *sweeper) feed(sp span) {
	if !w.started {
		w.frontier, w.started = sp.start, true
	}
	if sp.start > w.frontier {
		// Nothing fed later starts before sp.start: coverage before it is final.
		w.multi += multiCover(w.frontier, sp.start, &w.reg)
		w.frontier = sp.start
	}
	iv := interval.Interval{Start: sp.start, End: sp.end()}
	r := sp.region()
	w.all.Add(iv)
	w.reg[r].Add(iv)
	if sp.isKernel() {
		w.kern.Add(iv)
	}
	if rules.Region(r) != rules.Communication {
		w.nonComm.Add(iv)
	}
	w.last = max(w.last, iv.End)
}

// sweep feeds the sweeper the work in start order (the work itself when
// sorted, else the indices order merged from its runs, see startOrder),
// clipped to win, and reads the sweeper's totals. The order of work that
// starts at the same time does not change the totals.
func (m *measure) sweep(work []event.Work, labels []Label, win interval.Interval, order []uint32, runs []int, sorted bool) {
	if sorted {
		for k := range work {
			if sp, ok := clipSpan(&work[k], labels[k], win); ok {
				m.sw.feed(sp)
			}
		}
	} else {
		rm := newRunMerge(work, order, runs)
		for b := rm.next(); b != nil; b = rm.next() {
			for _, k := range b {
				if sp, ok := clipSpan(&work[k], labels[k], win); ok {
					m.sw.feed(sp)
				}
			}
		}
	}
	m.setTotals(m.sw.totals())
}

// clipSpan is w clipped to win as a span, and whether any time is left.
func clipSpan(w *event.Work, l Label, win interval.Interval) (span, bool) {
	iv, in := interval.ClipWork(w.Start, w.End, win)
	if !in || iv.Empty() {
		return span{}, false
	}
	r := l.Region
	if r >= rules.NumRegions {
		r = rules.Other
	}
	return mkSpan(iv.Start, iv.End, uint8(r), w.Kind == event.Kernel), true
}

// startOrder returns the indices of the work with time inside win and
// the bounds of runs of them, each in start order, to be merged (see
// runMerge) without copying the work. Since a stream runs its work one
// item at a time, each stream's items are in start order in each device
// table: the indices are grouped by stream (4 bytes per item) and each
// stream cut into its ascending runs (or sorted, when it has many; see
// streamRunBounds). Clipping to the window keeps the order, since
// max(start, window start) is monotone.
func startOrder(work []event.Work, win interval.Interval) ([]uint32, []int) {
	idx, off := streamRuns(work, win)
	return idx, streamRunBounds(work, idx, off)
}

// streamRuns groups the indices of the work with time inside win by
// stream: run b is idx[off[b]:off[b+1]], in table order.
func streamRuns(work []event.Work, win interval.Interval) (idx []uint32, off []int) {
	var bk streamBuckets
	bk.init()
	var counts []int
	bucket := func(stream uint32) int32 {
		b := bk.of(stream)
		if int(b) == len(counts) {
			counts = append(counts, 0)
		}
		return b
	}
	inside := func(w *event.Work) bool {
		iv, in := interval.ClipWork(w.Start, w.End, win)
		return in && !iv.Empty()
	}
	n := 0
	for i := range work {
		if inside(&work[i]) {
			counts[bucket(work[i].Stream)]++
			n++
		}
	}
	off = make([]int, len(counts)+1)
	for b, c := range counts {
		off[b+1] = off[b] + c
	}
	idx = make([]uint32, n)
	next := slices.Clone(off[:len(counts)])
	for i := range work {
		if inside(&work[i]) {
			b := bucket(work[i].Stream)
			idx[next[b]] = uint32(i)
			next[b]++
		}
	}
	return idx, off
}

// streamBuckets numbers stream ids 0, 1, ... in the order they are first
// seen: a slice for small ids, a map only for the few distinct large ones
// (looked up per item, never stored per item).
type streamBuckets struct {
	small   [1 << 12]int32
	large   map[uint32]int32
	streams []uint32 // stream id by bucket
}

func (bk *streamBuckets) init() {
	for i := range bk.small {
		bk.small[i] = -1
	}
}

// of returns the bucket of stream, numbering it when it is new.
func (bk *streamBuckets) of(stream uint32) int32 {
	if stream < uint32(len(bk.small)) {
		if b := bk.small[stream]; b >= 0 {
			return b
		}
		bk.small[stream] = int32(len(bk.streams))
	} else {
		if b, ok := bk.large[stream]; ok {
			return b
		}
		if bk.large == nil {
			bk.large = map[uint32]int32{}
		}
		bk.large[stream] = int32(len(bk.streams))
	}
	bk.streams = append(bk.streams, stream)
	return int32(len(bk.streams) - 1)
}

// multiCover returns the length of the instants in [from, to) covered by at
// least two regions, given each region's current merged interval. Every
// earlier merged interval of a region ends before from, so these are the
// only coverage there.
func multiCover(from, to int64, reg *[rules.NumRegions]interval.Merger) int64 {
	var seg [rules.NumRegions]interval.Interval
	n := 0
	for r := range reg {
		cur, ok := reg[r].Current()
		if !ok {
			continue
		}
		if iv, ok := interval.Clip(cur, interval.Interval{Start: from, End: to}); ok {
			seg[n] = iv
			n++
		}
	}
	if n < 2 {
		return 0
	}
	var pts [2 * rules.NumRegions]int64
	k := 0
	for _, iv := range seg[:n] {
		pts[k], pts[k+1] = iv.Start, iv.End
		k += 2
	}
	p := pts[:k]
	slices.Sort(p)
	var out int64
	for i := 0; i+1 < len(p); i++ {
		a, b := p[i], p[i+1]
		if b <= a {
			continue
		}
		c := 0
		for _, iv := range seg[:n] {
			if iv.Start <= a && b <= iv.End {
				c++
			}
		}
		if c >= 2 {
			out += b - a
		}
	}
	return out
}
