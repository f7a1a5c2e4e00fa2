package gputelemetry

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
)

// Thresholds of the result's warnings.
const (
	maxUncoveredFrac   = 0.01 // of the window, per GPU, before Complete is cleared
	maxUncertaintyFrac = 0.05 // of the energy, before a warning
	maxDisagreeFrac    = 0.25 // counter vs power integral, before a warning
	// minCrossCheck is the fewest samples inside the window with which
	// the power integral is a fair check of the counter: with fewer, the
	// gauge misses the load between them and the two disagree by
	// construction.
	minCrossCheck = 10
)

// nodeWarnings reports each exporter's failures and dropped input.
// Caller holds s.mu.
func (s *Scraper) nodeWarnings() []string {
	var w []string
	for _, n := range s.nodes {
		p := "gpu telemetry: " + n.url + ": "
		switch {
		case n.stopped != "":
			w = append(w, p+"exporter missing ("+n.stopped+"); no GPU data from it")
		case n.scrapes == 0 && n.errors > 0:
			w = append(w, fmt.Sprintf("%sall %d scrapes failed; first error: %s", p, n.errors, n.firstErr))
		case n.errors > 0:
			w = append(w, fmt.Sprintf("%s%d of %d scrapes failed; first error: %s", p, n.errors, n.errors+n.scrapes, n.firstErr))
		}
		if missing := n.missing(s.uuidsHit()); n.scrapes > 0 && len(missing) > 0 {
			w = append(w, fmt.Sprintf("%sselected GPU(s) %s not found; it reports %s", p, strings.Join(missing, ", "), orNone(n.reported())))
		} else if n.scrapes > 0 && len(n.gpus) == 0 {
			w = append(w, p+"no GPU series (DCGM_FI_DEV_*) on its page")
		}
		counts := []struct {
			n    int
			what string
		}{
			{n.unlabeled, "series without a gpu or UUID label ignored"},
			{n.dups, "duplicate series (same GPU and field, e.g. MIG instances) ignored; the first kept"},
			{n.overCap, fmt.Sprintf("series of GPUs beyond %d per exporter or %d in all ignored", maxGPUsPerNode, maxGPUsTotal)},
		}
		for _, c := range counts {
			if c.n > 0 {
				w = append(w, fmt.Sprintf("%s%d %s", p, c.n, c.what))
			}
		}
		for f, k := range n.invalid {
			if k > 0 {
				sp := fields[f]
				w = append(w, fmt.Sprintf("%s%d %s values dropped: not finite, negative or above %g %s", p, k, sp.names[0], sp.max, sp.unit))
			}
		}
	}
	return w
}

// missing lists the selection tokens that matched no GPU: an index
// that none of n's GPUs has, or a UUID that no exporter reported (one
// selection serves every node, and a UUID lives on one of them).
func (n *node) missing(uuids map[string]bool) []string {
	var out []string
	for _, tok := range n.ep.GPUs {
		if !n.hit[tok] && !uuids[tok] {
			out = append(out, tok)
		}
	}
	return out
}

// uuidsHit is the set of selected UUIDs some exporter reported. Caller
// holds s.mu.
func (s *Scraper) uuidsHit() map[string]bool {
	hit := map[string]bool{}
	for _, n := range s.nodes {
		for tok := range n.hit {
			if !isIndex(tok) {
				hit[tok] = true
			}
		}
	}
	return hit
}

// reported lists the GPUs the exporter reports, selected or not.
func (n *node) reported() []string {
	out := slices.Clone(n.others)
	for _, k := range n.order {
		out = append(out, keyOf(n.gpus[k].id))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// nodesComplete reports whether every exporter answered and every
// selected GPU was found. Caller holds s.mu.
func (s *Scraper) nodesComplete() bool {
	for _, n := range s.nodes {
		if n.stopped != "" || n.scrapes == 0 || len(n.missing(s.uuidsHit())) > 0 {
			return false
		}
	}
	return true
}

// gpuWarnings reports GPUs whose energy is missing, partial, uncertain,
// inconsistent or taken under clock-limiting events, and whether every
// GPU's energy is complete.
func gpuWarnings(res *result.GPUTelemetry) ([]string, bool) {
	win := res.WindowEndS - res.WindowStartS
	var noEnergy, noCounter, partial, lower, reset, disagree, throttled []string
	total, unc := 0.0, 0.0
	for _, g := range res.GPUs {
		name := g.Node + "/" + labelOf(g.GPUID)
		switch {
		case g.EnergyJ == nil:
			noEnergy = append(noEnergy, name)
			continue
		case g.Source == result.EnergyFromPower:
			noCounter = append(noCounter, name)
		}
		total, unc = total+*g.EnergyJ, unc+g.UncertaintyJ
		if g.UncoveredS > maxUncoveredFrac*win {
			partial = append(partial, fmt.Sprintf("%s (%.3g s)", name, g.UncoveredS))
		}
		if g.LowerBound {
			lower = append(lower, name)
		} else if g.CounterResets > 0 {
			reset = append(reset, name)
		}
		if c, p := g.CounterJ, g.PowerIntegralJ; c != nil && p != nil && g.WindowSamples >= minCrossCheck && math.Abs(*c-*p) > maxDisagreeFrac*max(*c, *p) {
			disagree = append(disagree, fmt.Sprintf("%s (%.4g J vs %.4g J)", name, *c, *p))
		}
		if Throttling(g.ClockEventMask) {
			throttled = append(throttled, fmt.Sprintf("%s (%s; %.0f%% of samples)", name, strings.Join(g.ClockEvents, ", "), 100*deref(g.ThrottledFrac)))
		}
	}
	var w []string
	add := func(list []string, msg string) {
		if len(list) > 0 {
			w = append(w, "gpu telemetry: "+msg+": "+strings.Join(list, ", "))
		}
	}
	add(noEnergy, "no energy (neither the energy counter nor power reported)")
	add(noCounter, "no energy counter; energy integrates the power samples")
	add(partial, "samples cover only part of the window; the rest is extrapolated")
	add(lower, "energy counter reset without power to bridge it; energy is a lower bound")
	add(reset, "energy counter reset inside the window; that interval integrates power")
	add(disagree, "energy counter and power integral disagree")
	add(throttled, "clock-limiting events (clocks lowered below what the load asked for: a confound, like a warm cache)")
	if total > 0 && unc > maxUncertaintyFrac*total {
		w = append(w, fmt.Sprintf("gpu telemetry: energy uncertain by up to ±%.1f%%: the window's edges fall between exporter refreshes%s", 100*unc/total, refreshHint(res.GPUs)))
	}
	return w, len(noEnergy)+len(partial)+len(lower) == 0
}

// refreshHint names the slowest refresh period seen, when known.
func refreshHint(gpus []result.GPUStats) string {
	r := 0.0
	for _, g := range gpus {
		r = max(r, deref(g.RefreshS))
	}
	if r == 0 {
		return ""
	}
	return fmt.Sprintf(" (every ~%.3g s; dcgm-exporter's --collect-interval, 30 s by default, sets it)", r)
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
