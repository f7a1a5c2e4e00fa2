// This file cuts the sweep of one rank into pieces by start time, so that
// the goroutines a pool lends share it. Every busy time is the length of
// a union of intervals (or of the instants two regions cover), which adds
// up over disjoint stretches of time: piece k measures the stretch
// [cut k, cut k+1) alone. What earlier pieces leave running into it is,
// for each region, one interval from the cut to the latest end among
// them (intervals that all start before the cut and reach past it cover
// everything from the cut to the latest of their ends), so a first pass
// finds each piece's latest ends and the second measures each piece with
// its carried intervals fed first. The totals are sums of integers: they
// equal those of one sweep, whatever the cuts.

package classify

import (
	"math"
	"sort"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/interval"
	"github.com/servecmp/servecmp/rules"
)

// sweepTotals are the busy times one sweep (or one stretch of it) reads.
type sweepTotals struct {
	all, kern, nonComm, multi int64
	reg                       [rules.NumRegions]int64
}

func (t *sweepTotals) add(o sweepTotals) {
	t.all, t.kern, t.nonComm, t.multi = t.all+o.all, t.kern+o.kern, t.nonComm+o.nonComm, t.multi+o.multi
	for r := range t.reg {
		t.reg[r] += o.reg[r]
	}
}

// totals finishes the sweep and reads its busy times.
func (w *sweeper) totals() sweepTotals {
	if w.started && w.last > w.frontier {
		w.multi += multiCover(w.frontier, w.last, &w.reg)
	}
	t := sweepTotals{all: w.all.Len(), kern: w.kern.Len(), nonComm: w.nonComm.Len(), multi: w.multi}
	for r := range w.reg {
		t.reg[r] = w.reg[r].Len()
	}
	return t
}

// latestEnds are the latest ends of a stretch's spans by region, and of
// its kernels; math.MinInt64 where there is none.
type latestEnds struct {
	reg  [rules.NumRegions]int64
	kern int64
}

func noEnds() latestEnds {
	e := latestEnds{kern: math.MinInt64}
	for r := range e.reg {
		e.reg[r] = math.MinInt64
	}
	return e
}

func (e *latestEnds) take(sp span) {
	r := sp.region()
	e.reg[r] = max(e.reg[r], sp.end())
	if sp.isKernel() {
		e.kern = max(e.kern, sp.end())
	}
}

func (e *latestEnds) merge(o *latestEnds) {
	for r := range e.reg {
		e.reg[r] = max(e.reg[r], o.reg[r])
	}
	e.kern = max(e.kern, o.kern)
}

// carryIn feeds w, before any span of the stretch [from, to), what the
// earlier stretches leave running into it: [from, min(end, to)) per
// region, for all work, for kernels and for work other than
// communication.
func (w *sweeper) carryIn(e *latestEnds, from, to int64) {
	iv := func(end int64) interval.Interval {
		return interval.Interval{Start: from, End: min(end, to)}
	}
	all, nonComm := int64(math.MinInt64), int64(math.MinInt64)
	for r, end := range e.reg {
		all = max(all, end)
		if rules.Region(r) != rules.Communication {
			nonComm = max(nonComm, end)
		}
		w.reg[r].Add(iv(end))
	}
	w.all.Add(iv(all))
	w.kern.Add(iv(e.kern))
	w.nonComm.Add(iv(nonComm))
	w.frontier, w.started = from, true
	if all > from {
		w.last = min(all, to)
	}
}

// sweepCut is the work of one rank cut into stretches by start time.
type sweepCut struct {
	work   []event.Work
	labels []Label
	win    interval.Interval
	order  []uint32 // nil: the work is in start order
	runs   []int    // bounds of order's ascending runs
	cuts   []int64  // stretch k starts at cuts[k-1] (the first at -inf) and ends at cuts[k] (the last at +inf)
	from   [][]int  // from[k][r]: where stretch k begins in run r (or in the work, r 0, when sorted)
}

// newSweepCut cuts the work into at most parts stretches, at the starts
// found at even steps of the longest run (of the work, when sorted), kept
// after the window's start and increasing.
func newSweepCut(work []event.Work, labels []Label, win interval.Interval, order []uint32, runs []int, sorted bool, parts int) *sweepCut {
	c := &sweepCut{work: work, labels: labels, win: win}
	start := func(i int) int64 { return work[i].Start }
	nruns, lo, hi := 1, 0, len(work)
	if !sorted {
		c.order, c.runs = order, runs
		nruns = len(runs) - 1
		start = func(i int) int64 { return work[order[i]].Start }
		lo, hi = 0, 0
		best := 0
		for r := range nruns {
			if runs[r+1]-runs[r] > runs[best+1]-runs[best] {
				best = r
			}
		}
		if nruns > 0 {
			lo, hi = runs[best], runs[best+1]
		}
	}
	for k := 1; k < parts && hi > lo; k++ {
		t := start(lo + k*(hi-lo)/parts)
		if t > win.Start && (len(c.cuts) == 0 || t > c.cuts[len(c.cuts)-1]) {
			c.cuts = append(c.cuts, t)
		}
	}
	c.from = make([][]int, len(c.cuts)+2)
	for k := range c.from {
		c.from[k] = make([]int, nruns)
		for r := range nruns {
			rlo, rhi := 0, len(work)
			if !sorted {
				rlo, rhi = runs[r], runs[r+1]
			}
			switch {
			case k == 0:
				c.from[k][r] = rlo
			case k > len(c.cuts):
				c.from[k][r] = rhi
			default:
				t := c.cuts[k-1]
				c.from[k][r] = rlo + sort.Search(rhi-rlo, func(i int) bool { return start(rlo+i) >= t })
			}
		}
	}
	return c
}

// stretches is how many stretches the work is cut into.
func (c *sweepCut) stretches() int { return len(c.cuts) + 1 }

// bounds returns the time stretch k covers.
func (c *sweepCut) bounds(k int) (from, to int64) {
	from, to = math.MinInt64, math.MaxInt64
	if k > 0 {
		from = c.cuts[k-1]
	}
	if k < len(c.cuts) {
		to = c.cuts[k]
	}
	return from, to
}

// span returns work item i clipped to the window and to the end of its
// stretch, and whether any time is left.
func (c *sweepCut) span(i int, to int64) (span, bool) {
	sp, ok := clipSpan(&c.work[i], c.labels[i], c.win)
	if !ok || sp.end() <= to {
		return sp, ok
	}
	if sp.start >= to {
		return span{}, false
	}
	return mkSpan(sp.start, to, sp.region(), sp.isKernel()), true
}

// ends returns the latest ends of stretch k's spans, clipped to the
// window only: what it leaves running into the stretches after it.
func (c *sweepCut) ends(k int) latestEnds {
	e := noEnds()
	for r := range c.from[k] {
		for p := c.from[k][r]; p < c.from[k+1][r]; p++ {
			i := p
			if c.order != nil {
				i = int(c.order[p])
			}
			if sp, ok := clipSpan(&c.work[i], c.labels[i], c.win); ok {
				e.take(sp)
			}
		}
	}
	return e
}

// sweep measures stretch k, after the carried intervals of in.
func (c *sweepCut) sweep(k int, in *latestEnds) sweepTotals {
	var w sweeper
	from, to := c.bounds(k)
	if k > 0 {
		w.carryIn(in, from, to)
	}
	if c.order == nil {
		for i := c.from[k][0]; i < c.from[k+1][0]; i++ {
			if sp, ok := c.span(i, to); ok {
				w.feed(sp)
			}
		}
		return w.totals()
	}
	rm := newRunMergeOf(c.work, c.order, c.from[k], c.from[k+1])
	for b := rm.next(); b != nil; b = rm.next() {
		for _, i := range b {
			if sp, ok := c.span(int(i), to); ok {
				w.feed(sp)
			}
		}
	}
	return w.totals()
}
