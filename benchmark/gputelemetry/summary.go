package gputelemetry

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
)

// Result summarises the samples recorded so far over the window
// [windowStart, windowEnd] (seconds from the run start; math.Inf(1) as
// the end means "to the last sample").
func (s *Scraper) Result(windowStart, windowEnd float64) *result.GPUTelemetry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if math.IsInf(windowEnd, 1) {
		windowEnd = windowStart
		for _, n := range s.nodes {
			for _, g := range n.gpus {
				windowEnd = max(windowEnd, g.rows[len(g.rows)-1].t)
			}
		}
	}
	res := &result.GPUTelemetry{IntervalS: s.every.Seconds(), WindowStartS: windowStart, WindowEndS: windowEnd,
		Exporters: []result.GPUExporter{}, GPUs: []result.GPUStats{}, Power: []result.PowerSample{}}
	var w []string
	owner := map[string]string{} // UUID -> exporter that reported it first
	var kept []*gpuSeries
	for _, n := range s.nodes {
		ex := result.GPUExporter{URL: n.url, Scrapes: n.scrapes, ScrapeErrors: n.errors}
		for _, key := range n.sortedKeys() {
			g := n.gpus[key]
			if u := g.id.UUID; u != "" {
				if first, dup := owner[u]; dup {
					w = append(w, "gpu telemetry: GPU "+u+" is reported by "+first+" and "+n.url+"; counted once")
					continue
				}
				owner[u] = n.url
			}
			node := n.url
			if g.id.Host != "" {
				node, ex.Node = g.id.Host, g.id.Host
			}
			res.GPUs = append(res.GPUs, summariseGPU(g, node, windowStart, windowEnd))
			kept = append(kept, g)
			ex.GPUs++
		}
		res.Exporters = append(res.Exporters, ex)
	}
	res.Contract = contractOf(res.GPUs)
	res.Power = powerSeries(kept, s.every.Seconds())
	var limiting uint64
	for _, g := range res.GPUs {
		limiting |= g.ClockEventMask & limitingMask
	}
	res.Throttled, res.ThrottleReasons = limiting != 0, DecodeEvents(limiting)
	res.Warnings = append(s.nodeWarnings(), w...)
	gw, complete := gpuWarnings(res)
	res.Warnings = append(res.Warnings, gw...)
	res.Contract.Partial = !s.nodesComplete()
	res.Complete = complete && !res.Contract.Partial && len(res.GPUs) > 0
	return res
}

// sortedKeys orders a node's GPUs by index, then UUID.
func (n *node) sortedKeys() []string {
	keys := slices.Clone(n.order)
	slices.SortStableFunc(keys, func(a, b string) int {
		ia, ib := n.gpus[a].id, n.gpus[b].id
		na, ea := strconv.Atoi(ia.Index)
		nb, eb := strconv.Atoi(ib.Index)
		switch {
		case ea == nil && eb == nil && na != nb:
			return na - nb
		case (ea == nil) != (eb == nil):
			if ea == nil {
				return -1
			}
			return 1
		}
		return strings.Compare(ia.UUID, ib.UUID)
	})
	return keys
}

// column is one field of a GPU's rows as points, absent readings skipped.
func column(rows []row, f field) []pt {
	var out []pt
	for _, r := range rows {
		if !math.IsNaN(r.v[f]) {
			out = append(out, pt{r.t, r.v[f]})
		}
	}
	return out
}

// summariseGPU computes one GPU's figures over [a, b].
func summariseGPU(g *gpuSeries, node string, a, b float64) result.GPUStats {
	out := result.GPUStats{GPUID: g.id, Node: node}
	for _, r := range g.rows {
		if r.t >= a && r.t <= b {
			out.WindowSamples++
		}
	}
	power := column(g.rows, fPower)
	fresh := freshness(g.rows)
	ce, okC := counterEnergy(column(g.rows, fEnergy), power, a, b, fresh)
	pe, okP := powerEnergy(power, a, b, peakPower(power, nil), fresh)
	if okC {
		out.CounterJ = ptr(ce.joules)
	}
	if okP {
		out.PowerIntegralJ = ptr(pe.joules)
	}
	est := pe
	switch {
	case okC:
		est, out.Source = ce, result.EnergyFromCounter
		if ce.mixed {
			out.Source = result.EnergyFromMixed
		}
	case okP:
		out.Source = result.EnergyFromPower
	}
	if okC || okP {
		out.EnergyJ = ptr(est.joules)
		out.UncertaintyJ, out.UncoveredS = est.uncertainty, est.uncovered
		out.CounterResets, out.LowerBound = est.resets, est.lowerBound
		if est.refresh > 0 {
			out.RefreshS = ptr(est.refresh)
		}
	}
	gauges(&out, g.rows, a, b)
	events(&out, g.rows, a, b)
	return out
}

// gauges fills the means and peaks of the gauge fields.
func gauges(out *result.GPUStats, rows []row, a, b float64) {
	out.MeanPowerW, out.PeakPowerW = meanOver(column(rows, fPower), a, b), peakIn(column(rows, fPower), a, b)
	out.MeanUtilPct = meanOver(column(rows, fUtil), a, b)
	out.MeanSMActive = meanOver(column(rows, fSMActive), a, b)
	used := column(rows, fFBUsed)
	out.MeanFBUsedMiB, out.PeakFBUsedMiB = meanOver(used, a, b), peakIn(used, a, b)
	out.MeanSMClockMHz = meanOver(column(rows, fSMClock), a, b)
	out.MeanMemClockMHz = meanOver(column(rows, fMemClock), a, b)
	temp := column(rows, fTemp)
	out.MeanTempC, out.PeakTempC = meanOver(temp, a, b), peakIn(temp, a, b)
	for i := len(rows) - 1; i >= 0; i-- {
		if u, f := rows[i].v[fFBUsed], rows[i].v[fFBFree]; !math.IsNaN(u) && !math.IsNaN(f) {
			out.FBTotalMiB = ptr(u + f)
			break
		}
	}
}

// meanOver is the time-weighted mean of pts over [a, b] (the value at a
// when the window has no length); nil without points.
func meanOver(pts []pt, a, b float64) *float64 {
	if len(pts) == 0 {
		return nil
	}
	if b <= a {
		return ptr(interp(pts, a))
	}
	area, _ := integrate(pts, a, b)
	return ptr(area / (b - a))
}

// peakIn is the largest point inside [a, b]; nil when none is.
func peakIn(pts []pt, a, b float64) *float64 {
	var p *float64
	for _, q := range pts {
		if q.t >= a && q.t <= b && (p == nil || q.v > *p) {
			p = ptr(q.v)
		}
	}
	return p
}

// events ORs the clock event masks of the samples in [a, b] and of the
// last one before and the first one after it: an event seen at an edge
// sample likely reached into the window.
func events(out *result.GPUStats, rows []row, a, b float64) {
	ev := column(rows, fEvents)
	lo := sortSearch(ev, func(p pt) bool { return p.t >= a }) - 1
	hi := sortSearch(ev, func(p pt) bool { return p.t > b })
	lo, hi = max(lo, 0), min(hi+1, len(ev))
	if lo >= hi {
		return
	}
	limited := 0
	for _, p := range ev[lo:hi] {
		m := uint64(p.v)
		out.ClockEventMask |= m
		if Throttling(m) {
			limited++
		}
	}
	out.ClockEvents = DecodeEvents(out.ClockEventMask)
	out.ThrottledFrac = ptr(float64(limited) / float64(hi-lo))
}

// sortSearch is the first index of pts where ok holds (ok monotone).
func sortSearch(pts []pt, ok func(pt) bool) int {
	i, _ := slices.BinarySearchFunc(pts, true, func(p pt, _ bool) int {
		if ok(p) {
			return 1
		}
		return -1
	})
	return i
}
func ptr(v float64) *float64 { return &v }
