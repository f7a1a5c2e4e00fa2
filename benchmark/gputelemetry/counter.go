package gputelemetry

import "sort"

// How one interval between counter change-points got its energy.
const (
	kindCounter = iota // the counter's increase
	kindPower          // reset or implausible jump: the power integral
	kindGuess          // reset or jump without power: a lower bound
)

// cumulative turns counter change-points (mJ since the driver loaded)
// into joules since the first one. A decrease is a reset (a 64-bit mJ
// counter does not wrap in practice) and an increase implying more than
// maxPowerW is a glitch: either interval takes the power integral over
// it, else (no power) the counter's new value for a reset, capped at
// maxPowerW, and nothing for a glitch. kind[i] says how interval
// (i-1, i) was filled.
func cumulative(cp, power []pt) (cum []pt, kind []int) {
	cum, kind = make([]pt, len(cp)), make([]int, len(cp))
	cum[0] = pt{cp[0].t, 0}
	for i := 1; i < len(cp); i++ {
		dt := max(cp[i].t-cp[i-1].t, 1e-3)
		d := (cp[i].v - cp[i-1].v) / 1000
		switch {
		case plausible(cp[i-1], cp[i]):
		case len(power) > 0:
			d, _ = integrate(power, cp[i-1].t, cp[i].t)
			kind[i] = kindPower
		case d < 0:
			d = min(cp[i].v/1000, maxPowerW*dt)
			kind[i] = kindGuess
		default:
			d = 0
			kind[i] = kindGuess
		}
		cum[i] = pt{cp[i].t, cum[i-1].v + d}
	}
	return cum, kind
}

// plausible reports whether the counter may go from p to q: not down,
// and not faster than maxPowerW.
func plausible(p, q pt) bool {
	d := (q.v - p.v) / 1000
	return d >= 0 && d/max(q.t-p.t, 1e-3) <= maxPowerW
}

// dropBlips removes single readings that break an otherwise plausible
// run: the counter steps back or leaps at one sample and is back on its
// course at the next. A reset stays down, so it is no blip.
func dropBlips(cp []pt, age []float64) ([]pt, []float64) {
	outP, outA := cp[:0:0], age[:0:0]
	for i := range cp {
		if k := len(outP); k > 0 && i+1 < len(cp) {
			prev := outP[k-1]
			if !(plausible(prev, cp[i]) && plausible(cp[i], cp[i+1])) && plausible(prev, cp[i+1]) {
				continue
			}
		}
		outP, outA = append(outP, cp[i]), append(outA, age[i])
	}
	return outP, outA
}

// slope is the mean power of interval (i-1, i) of cum; 0 when it has no
// length.
func slope(cum []pt, i int) float64 {
	if dt := cum[i].t - cum[i-1].t; dt > 0 {
		return (cum[i].v - cum[i-1].v) / dt
	}
	return 0
}

// counterAt is cum interpolated linearly at t and extrapolated at the
// first or last interval's mean power beyond its ends (len(cum) >= 2).
func counterAt(cum []pt, t float64) float64 {
	n := len(cum)
	switch {
	case t <= cum[0].t:
		return cum[0].v - slope(cum, 1)*(cum[0].t-t)
	case t >= cum[n-1].t:
		return cum[n-1].v + slope(cum, n-1)*(t-cum[n-1].t)
	}
	i := sort.Search(n, func(i int) bool { return cum[i].t >= t })
	return cum[i-1].v + slope(cum, i)*(t-cum[i-1].t)
}

// counterEnergy is the energy over [a, b] from the counter samples cnt
// (mJ), with power (W) for reset intervals and the power bound; false
// when the counter has fewer than two distinct values. Its uncertainty
// adds, at each edge, the split of the interval the edge cuts (partError
// or extrapError) and how far the counter could have moved while its
// readings aged (age, at the highest power seen; at most fresh when that
// is known, see freshness).
func counterEnergy(cnt, power []pt, a, b, fresh float64) (estimate, bool) {
	cp, age := dropBlips(changePoints(cnt))
	clipAges(age, fresh)
	if len(cp) < 2 || b < a {
		return estimate{}, false
	}
	cum, kind := cumulative(cp, power)
	pRef := peakPower(power, cum)
	n := len(cum)
	e := estimate{refresh: medianGap(cp), joules: counterAt(cum, b) - counterAt(cum, a)}
	for i := 1; i < n; i++ {
		t0, t1 := cum[i-1].t, cum[i].t
		x0, x1 := max(t0, a), min(t1, b)
		extrap := (i == 1 && a < t0) || (i == n-1 && b > t1)
		if x1 <= x0 && !extrap {
			continue
		}
		switch kind[i] {
		case kindPower:
			e.resets++
			e.mixed = true
		case kindGuess:
			e.resets++
			e.lowerBound = true
		}
		if x1 > x0 && (x0 > t0 || x1 < t1) {
			all := cum[i].v - cum[i-1].v
			e.uncertainty += partError(all, counterAt(cum, x1)-counterAt(cum, x0), t0, t1, x0, x1, pRef)
			e.uncertainty += pRef * max(age[i-1], age[i])
		}
	}
	if u := max(0, min(b, cum[0].t)-a); u > 0 {
		e.uncovered += u
		e.uncertainty += extrapError(slope(cum, 1)*u, u, pRef) + pRef*age[0]
	}
	if u := max(0, b-max(a, cum[n-1].t)); u > 0 {
		e.uncovered += u
		e.uncertainty += extrapError(slope(cum, n-1)*u, u, pRef) + pRef*age[n-1]
	}
	return e, true
}
