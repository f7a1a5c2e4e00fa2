package calibrate

import (
	"fmt"
	"io"
	"math"

	"github.com/servecmp/servecmp/compare"
)

// pct writes a rate in percent with one decimal, "-" for none.
func pct(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.1f", 100*v)
}

// AAHeader writes the header of the A/A table as markdown: per scenario,
// how often the headline claims a difference, the row that claims one
// most often, and how often the rows' 95% intervals hold the true
// difference, 0.
func AAHeader(w io.Writer) {
	fmt.Fprintln(w, "| scenario | n | headline claims % | confounded % | worst row % (row) | mean row % | interval covers 0 % (lowest row) | rows without interval % | needs more runs % |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
}

// AARow writes one scenario's line of the A/A table.
func AARow(w io.Writer, t *Tally) {
	name, worst := t.WorstRow()
	var called, rows, noCI, more int
	for _, r := range t.Rows {
		called += r.CalledA + r.CalledB
		rows += r.N
		noCI += r.NoInterval
		more += r.NeedsMore
	}
	all, low, lowRow := t.Coverage()
	fmt.Fprintf(w, "| %s | %d | %s | %s | %s (%s) | %s | %s (%s %s) | %s | %s |\n", t.Scenario.Name, t.N, pct(Rate(t.Claimed(), t.N)),
		pct(Rate(t.Headline["confounded"], t.N)), pct(worst), name, pct(Rate(called, rows)), pct(all), pct(low), lowRow, pct(Rate(noCI, rows)), pct(Rate(more, rows)))
}

// unchanged reports whether a row measures what an A/B scenario leaves
// unchanged: decode speed (TPOT, ITL).
func unchanged(name string) bool {
	k, _ := compare.SplitMetric(name)
	return k == "tpot_ms" || k == "itl_ms" || k == "itl_per_token_ms"
}

// ABHeader writes the header of the A/B table (B's TTFT longer) as
// markdown: how often the headline names A, the right answer, and how
// often it names B or says mixed; how often the ttft_ms_p50 and p99 rows
// find the difference, and how often a decode-speed row (unchanged)
// claims one.
func ABHeader(w io.Writer) {
	fmt.Fprintln(w, "| scenario | n | headline A faster % | headline B faster or mixed % | ttft_ms_p50 row % | ttft_ms_p99 row % | worst unchanged row % (row) | known-truth intervals cover % |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
}

// ABRow writes one scenario's line of the A/B table.
func ABRow(w io.Writer, t *Tally) {
	row := func(n string) string {
		r := t.Rows[n]
		if r == nil {
			return "-"
		}
		return pct(Rate(r.CalledA, r.N))
	}
	worstName, worst := worstUnchanged(t)
	all, _, _ := t.Coverage()
	fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s (%s) | %s |\n", t.Scenario.Name, t.N, pct(Rate(t.Headline["a"], t.N)),
		pct(Rate(t.Headline["b"]+t.Headline["mixed"], t.N)), row("ttft_ms_p50"), row("ttft_ms_p99"), pct(worst), worstName, pct(all))
}

// WriteRows writes, for one scenario, every row's verdict counts.
func WriteRows(w io.Writer, t *Tally) {
	fmt.Fprintf(w, "%s (%d comparisons)\n\n", t.Scenario.Name, t.N)
	fmt.Fprintln(w, "| row | a % | b % | ~ % | needs more runs % | interval covers truth % |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, n := range t.RowNames() {
		r := t.Rows[n]
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", n, pct(Rate(r.CalledA, r.N)), pct(Rate(r.CalledB, r.N)), pct(Rate(r.Same, r.N)),
			pct(Rate(r.NeedsMore, r.N)), pct(Rate(r.Covered, r.WithTruth-r.NoInterval)))
	}
	fmt.Fprintln(w)
}

// Check is one "done when" condition of the calibration: what is
// measured, the worst figure over the scenarios it covers, the bound it
// must keep (within three binomial standard errors of the scenario's
// comparisons) and whether it does.
type Check struct {
	What         string
	Worst, Bound float64
	Pass         bool
	Scenario     string
}

// Checks evaluates the conditions on the tallies: the headline's and
// every row's A/A false-claim rate at most alpha (5%) with 3, 5 and 10
// runs, interleaved and blocked, without drift or heavy tails; 95%
// intervals holding the truth in at least 93% with 3 runs at 2% and 20%
// spread; and a +20% TTFT difference at 2% spread and 3 interleaved runs
// found by the headline in at least 80%, with the unchanged rows at most
// 5%. A condition without its scenarios is left out.
func Checks(aa, ab []*Tally) []Check {
	var out []Check
	add := func(what string, ts []*Tally, lower bool, limit float64, val func(*Tally) float64) {
		c := Check{What: what, Pass: true, Worst: math.NaN()}
		for _, t := range ts {
			v := val(t)
			se := 3 * math.Sqrt(limit*(1-limit)/float64(max(t.N, 1)))
			bad := v > limit+se
			if lower {
				bad = v < limit-se
			}
			if math.IsNaN(c.Worst) || (lower && v < c.Worst) || (!lower && v > c.Worst) {
				c.Worst, c.Scenario, c.Bound = v, t.Scenario.Name, limit+se
				if lower {
					c.Bound = limit - se
				}
			}
			c.Pass = c.Pass && !bad
		}
		if len(ts) > 0 {
			out = append(out, c)
		}
	}
	plain := filter(aa, func(w World) bool { return w.Drift == 0 && !w.HeavyTails && w.Runs >= 3 })
	add("A/A headline claims a difference (3, 5, 10 runs; interleaved and blocked; 2% and 20%)", plain, false, 0.05,
		func(t *Tally) float64 { return Rate(t.Claimed(), t.N) })
	add("A/A worst row calls a difference", plain, false, 0.05, func(t *Tally) float64 { _, v := t.WorstRow(); return v })
	three := filter(plain, func(w World) bool { return w.Runs == 3 })
	add("95% intervals hold the truth, lowest row (3 runs, 2% and 20%)", three, true, 0.93, func(t *Tally) float64 { _, v, _ := t.Coverage(); return v })
	power := filter(ab, func(w World) bool {
		return w.Runs == 3 && w.Spread == 0.02 && w.TTFTEffect == 0.20 && w.Order[1] == "b"
	})
	add("A/B +20% TTFT, 2% spread, 3 interleaved runs: headline names A", power, true, 0.80, func(t *Tally) float64 { return Rate(t.Headline["a"], t.N) })
	add("same: worst unchanged row (TPOT, ITL) calls a difference", power, false, 0.05, func(t *Tally) float64 { _, v := worstUnchanged(t); return v })
	return out
}

func filter(ts []*Tally, keep func(World) bool) []*Tally {
	var out []*Tally
	for _, t := range ts {
		if keep(t.Scenario.World) {
			out = append(out, t)
		}
	}
	return out
}

// worstUnchanged is the unchanged row (decode speed) that calls a
// difference most often, and its rate.
func worstUnchanged(t *Tally) (string, float64) {
	name, worst := "", -1.0
	for _, n := range t.RowNames() {
		if r := t.Rows[n]; unchanged(n) {
			if v := Rate(r.CalledA+r.CalledB, r.N); v > worst {
				name, worst = n, v
			}
		}
	}
	return name, worst
}

// WriteChecks writes the checks as a markdown table.
func WriteChecks(w io.Writer, cs []Check) {
	fmt.Fprintln(w, "| condition | worst % | bound % | scenario | holds |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, c := range cs {
		ok := "yes"
		if !c.Pass {
			ok = "NO"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", c.What, pct(c.Worst), pct(c.Bound), c.Scenario, ok)
	}
}
