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
	worstName, worst := "", -1.0
	for _, n := range t.RowNames() {
		if r := t.Rows[n]; unchanged(n) {
			if v := Rate(r.CalledA+r.CalledB, r.N); v > worst {
				worstName, worst = n, v
			}
		}
	}
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
