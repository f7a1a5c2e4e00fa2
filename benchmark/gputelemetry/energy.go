package gputelemetry

import (
	"math"
	"slices"
	"sort"
)

// pt is one point of a series: seconds, value.
type pt struct{ t, v float64 }

// interp is the piecewise-linear function through pts (time order) at t,
// held at its first and last values beyond them.
func interp(pts []pt, t float64) float64 {
	n := len(pts)
	switch {
	case t <= pts[0].t:
		return pts[0].v
	case t >= pts[n-1].t:
		return pts[n-1].v
	}
	i := sort.Search(n, func(i int) bool { return pts[i].t >= t })
	p, q := pts[i-1], pts[i]
	if q.t <= p.t {
		return q.v
	}
	return p.v + (q.v-p.v)*(t-p.t)/(q.t-p.t)
}

// integrate returns the integral over [a, b] of interp(pts, ·)
// (trapezoids between the points, the end values held beyond them) and
// how many seconds of [a, b] lie outside [first point, last point].
func integrate(pts []pt, a, b float64) (area, uncovered float64) {
	if len(pts) == 0 || b <= a {
		return 0, 0
	}
	uncovered = max(0, min(b, pts[0].t)-a) + max(0, b-max(a, pts[len(pts)-1].t))
	prevT, prevV := a, interp(pts, a)
	for _, p := range pts {
		if p.t <= a || p.t >= b {
			continue
		}
		area += (p.v + prevV) / 2 * (p.t - prevT)
		prevT, prevV = p.t, p.v
	}
	area += (interp(pts, b) + prevV) / 2 * (b - prevT)
	return area, uncovered
}

// partError bounds the error of est, the estimate of the energy in
// [x0, x1] within an interval [t0, t1] that used e in all, if the power
// stayed within [0, pRef]: the true value lies in [lo, hi].
func partError(e, est, t0, t1, x0, x1, pRef float64) float64 {
	lo := max(0, e-pRef*((t1-t0)-(x1-x0)))
	hi := min(e, pRef*(x1-x0))
	switch {
	case hi >= lo:
	case lo-hi <= 1e-9*(e+1): // rounding: the bound is tight
		hi = lo
	default: // pRef below what the interval used: bound by [0, e]
		lo, hi = 0, e
	}
	return max(est-lo, hi-est, 0)
}

// extrapError bounds the error of est, the energy assumed over u seconds
// no sample covers, if the power stayed within [0, pRef].
func extrapError(est, u, pRef float64) float64 {
	if u <= 0 {
		return 0
	}
	return max(est, pRef*u-est, 0)
}

// estimate is one GPU's energy over a window from one source.
type estimate struct {
	joules      float64
	uncertainty float64 // J, see partError and extrapError
	uncovered   float64 // s of the window outside the samples
	refresh     float64 // median s between changes of the reading; 0 unknown
	resets      int     // counter resets inside the window
	mixed       bool    // a reset interval took the power integral
	lowerBound  bool    // a reset interval had no power: its energy is a lower bound
}

// powerEnergy integrates the power samples over [a, b]. Its uncertainty
// adds, at each edge, the split of the interval the edge cuts and how far
// the integral could move while the readings aged (see changePoints).
func powerEnergy(power []pt, a, b, pRef, fresh float64) (estimate, bool) {
	if len(power) == 0 || b < a {
		return estimate{}, false
	}
	var e estimate
	e.joules, e.uncovered = integrate(power, a, b)
	age := ages(power)
	clipAges(age, fresh)
	for i := 1; i < len(power); i++ {
		t0, t1 := power[i-1].t, power[i].t
		x0, x1 := max(t0, a), min(t1, b)
		if x1 <= x0 || (x0 == t0 && x1 == t1) {
			continue // outside the window, or wholly inside it
		}
		seg := power[i-1 : i+1]
		all, _ := integrate(seg, t0, t1)
		part, _ := integrate(seg, x0, x1)
		e.uncertainty += partError(all, part, t0, t1, x0, x1, pRef) + pRef*max(age[i-1], age[i])
	}
	first, last := power[0], power[len(power)-1]
	if u := max(0, min(b, first.t)-a); u > 0 {
		e.uncertainty += extrapError(first.v*u, u, pRef) + pRef*age[0]
	}
	if u := max(0, b-max(a, last.t)); u > 0 {
		e.uncertainty += extrapError(last.v*u, u, pRef) + pRef*age[len(age)-1]
	}
	e.refresh = medianGap(power)
	return e, true
}

// ages says how old each reading may be: the gap since the sample
// before it (for the first, unknown, the median gap between changes).
func ages(pts []pt) []float64 {
	age := make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		age[i] = pts[i].t - pts[i-1].t
	}
	if len(pts) > 0 {
		age[0] = medianGap(pts)
	}
	return age
}

// medianGap is the median time between the points where the value
// changes: how often the exporter refreshes it (or, for a steady value,
// nothing); 0 with fewer than two gaps.
func medianGap(pts []pt) float64 {
	var at []float64
	for i, p := range pts {
		if i == 0 || p.v != pts[i-1].v {
			at = append(at, p.t)
		}
	}
	if len(at) < 3 {
		return 0
	}
	gaps := make([]float64, 0, len(at)-1)
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, at[i]-at[i-1])
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

// minFreshPairs is how many edge pairs must all show the energy counter
// moving before a GPU's readings count as fresh.
const minFreshPairs = 2

// freshness bounds the age of a GPU's readings from ScrapeNow's pairs:
// when the energy counter moved across every pair, and there are at least
// minFreshPairs, the exporter refreshes at least as often as the widest
// pair's gap, which then bounds every reading's age; 0 (no bound, the age
// is the gap since the sample before) otherwise. An exporter that
// refreshes every R seconds moves across a pair δ apart with chance
// about δ/R, so one refreshing every second passes two pairs 20 ms apart
// about once in 2,500 runs.
func freshness(rows []row) float64 {
	pairs, widest := 0, 0.0
	for i := 1; i < len(rows); i++ {
		if !rows[i].pair {
			continue
		}
		p, q := rows[i-1].v[fEnergy], rows[i].v[fEnergy]
		if math.IsNaN(p) || math.IsNaN(q) || p == q {
			return 0
		}
		pairs++
		widest = max(widest, rows[i].t-rows[i-1].t)
	}
	if pairs < minFreshPairs {
		return 0
	}
	return widest
}

// clipAges bounds every age by fresh when it is known (> 0).
func clipAges(age []float64, fresh float64) {
	if fresh <= 0 {
		return
	}
	for i := range age {
		age[i] = min(age[i], fresh)
	}
}

// changePoints keeps the first sample of each run of equal counter values:
// an exporter serves a cached value until its next refresh, so a repeat
// carries no new reading. A kept value was read somewhere between the
// sample before it and its own: age[k] is that gap (for the very first
// sample, unknown, the median gap between changes).
func changePoints(cnt []pt) (cp []pt, age []float64) {
	all := ages(cnt)
	for i, p := range cnt {
		if i == 0 || p.v != cnt[i-1].v {
			cp, age = append(cp, p), append(age, all[i])
		}
	}
	if len(age) > 0 {
		age[0] = medianGap(cp)
	}
	return cp, age
}

// peakPower is the highest power seen: the larger of the gauge's peak
// and the highest mean power of a counter interval at least half the
// median interval long (shorter ones magnify the jitter of sample times).
// Both count: a gauge sampled only between bursts of load understates the
// power the counter shows was drawn.
func peakPower(power, cum []pt) float64 {
	p := 0.0
	for _, q := range power {
		p = max(p, q.v)
	}
	minDT := medianGap(cum) / 2
	for i := 1; i < len(cum); i++ {
		if dt := cum[i].t - cum[i-1].t; dt > 0 && dt >= minDT {
			p = max(p, (cum[i].v-cum[i-1].v)/dt)
		}
	}
	return math.Min(p, maxPowerW)
}
