package compare

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/servecmp/servecmp/internal/stats"
)

// This file decides the headline: the one answer to "which system is
// faster" that a report opens with. Each metric row is a test at alpha on
// its own; a report has some 30 rows, correlated (mean, p50 and p90 of one
// latency move together), and a headline that named a winner whenever any
// row was significant did so for two identical systems in about one
// comparison in four (issue 20). So the headline is decided on a small,
// pre-declared set of primary metrics, with a family-wise error rate of at
// most alpha over that set:
//
//   - the primary metrics are PrimaryMetrics, those of them the report
//     has: TTFT, TPOT and E2E at p50 and p99, output throughput and, with
//     an SLO, goodput. Every other row is exploratory: reported, tested
//     at alpha alone, never deciding the headline;
//   - the family-wise procedure is the Westfall–Young step-down max-T
//     permutation procedure over the runs when the runs allow at least
//     MaxTFrom relabellings (7 runs a side, or 10 pairs), which keeps the
//     correlation of the metrics. With fewer runs a permutation test is too
//     coarse, and a sequentially rejective Bonferroni procedure (a
//     graphical, weighted Holm procedure; stats.Graph), valid under any
//     correlation, is used: the medians of TTFT, TPOT and E2E, output
//     throughput and goodput share alpha equally, and each p99 is tested
//     with its median's share once the median is rejected. With 3 runs a
//     side Welch's test has some 3 degrees of freedom, and the extreme t
//     quantile a split over 8 metrics asks for (t(0.9969, 3) = 6.9)
//     lets a 20% TTFT difference at 2% run spread pass in about half the
//     comparisons; split over 5 (t(0.995, 3) = 5.8), in most;
//   - a primary metric counts for a side when its row is significant on
//     that side and its adjusted p-value is below alpha. The headline
//     names a winner when the primary metrics counted favour one side
//     only, says mixed when they favour both, no difference when every
//     primary row is "~", and needs more runs otherwise;
//   - runs that are not counterbalanced pairs (blocked runs above all)
//     confound a drift over time with the difference. When their per-run
//     values of a primary metric trend with their start times in the
//     direction that would produce the difference seen (stats.Trend,
//     one-sided, Holm over the primary metrics at alpha), the headline
//     says the comparison is confounded instead of naming a winner.

// Headline outcomes.
const (
	HeadlineWinner        = "winner"
	HeadlineMixed         = "mixed"
	HeadlineConfounded    = "confounded"
	HeadlineNoDifference  = "no difference"
	HeadlineNeedsMoreRuns = "needs more runs"
	HeadlineNone          = "no verdict"
)

// PrimaryMetrics are the rows the headline is decided on, in this order,
// where the report has them.
var PrimaryMetrics = []string{"ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99", "e2e_ms_p50", "e2e_ms_p99", "output_throughput", MetricGoodput}

// MaxTFrom is the fewest relabellings of the runs with which the headline
// uses the max-T permutation procedure rather than Holm's: 3432 for 7
// runs a side, 1024 for 10 pairs (924 for 6 runs a side, 512 for 9 pairs).
const MaxTFrom = 1000

// Headline is the family-wise decision on the primary metrics, from
// which Conclude draws the answer to "which system is faster?".
type Headline struct {
	// Outcome is HeadlineWinner, HeadlineMixed, HeadlineConfounded,
	// HeadlineNoDifference, HeadlineNeedsMoreRuns or HeadlineNone; Winner
	// is "a" or "b" when Outcome is HeadlineWinner, else "". Conclude
	// turns them into the report's conclusion (its outcome and winner),
	// which alone carries them in JSON.
	Outcome string `json:"-"`
	Winner  string `json:"-"`
	// Procedure is the family-wise procedure over the primary metrics:
	// "graph" (sequentially rejective Bonferroni, medians first) or
	// "max-t" (Westfall–Young, over the runs' relabellings).
	Procedure string  `json:"procedure"`
	Alpha     float64 `json:"alpha"`
	// Primary names the primary metrics the report has.
	Primary []string `json:"primary"`
	// BetterA and BetterB are the primary metrics on which that side is
	// better after the family-wise correction.
	BetterA []string `json:"better_a"`
	BetterB []string `json:"better_b"`
	// Drift names the primary metrics whose per-run values trend with the
	// runs' start times in a design that does not cancel drift.
	Drift  []string `json:"drift,omitempty"`
	Reason string   `json:"reason"`
}

// decideHeadline marks the primary metrics and the repeated figures,
// adjusts the primary metrics' p-values for their number and sets
// r.Headline. It fails only when ctx is cancelled.
func (r *Report) decideHeadline(ctx context.Context, in Input, fixed bool) error {
	markRepeats(r.Metrics, fixed)
	h := &Headline{Alpha: in.Alpha, Primary: []string{}, BetterA: []string{}, BetterB: []string{}}
	r.Headline = h
	var prim []*Metric
	for _, name := range PrimaryMetrics {
		if i := slices.IndexFunc(r.Metrics, func(m Metric) bool { return m.Name == name }); i >= 0 {
			prim = append(prim, &r.Metrics[i])
		}
	}
	if len(prim) == 0 {
		h.Outcome, h.Reason = HeadlineNone, "no primary metric could be compared"
		return nil
	}
	adj, err := h.adjust(ctx, prim, in, r.Design.Paired)
	if err != nil {
		return fmt.Errorf("compare: interrupted: %w", err)
	}
	for i, m := range prim {
		m.Primary, m.PAdjusted = true, pValue(adj[i])
		h.Primary = append(h.Primary, m.Name)
		if adj[i] < in.Alpha {
			switch m.Verdict {
			case VerdictA:
				h.BetterA = append(h.BetterA, m.Name)
			case VerdictB:
				h.BetterB = append(h.BetterB, m.Name)
			}
		}
	}
	h.Outcome, h.Winner = h.outcome(prim)
	if !r.Design.Paired && !r.Design.Counterbalanced {
		h.Drift = driftRows(prim, in.Alpha)
	}
	if len(h.Drift) > 0 && (h.Outcome == HeadlineWinner || h.Outcome == HeadlineMixed) {
		h.Outcome, h.Winner = HeadlineConfounded, ""
	}
	h.Reason = h.reason(len(prim))
	r.Notes = append(r.Notes, "headline: "+h.Reason)
	return nil
}

// adjust returns the primary metrics' p-values adjusted for the family,
// by max-T over the runs when they allow MaxTFrom relabellings and every
// primary metric has a value in the same runs, else by the graph of
// primaryGraph, and sets h.Procedure.
func (h *Headline) adjust(ctx context.Context, prim []*Metric, in Input, paired bool) ([]float64, error) {
	if a, b, ok := aligned(prim); ok && stats.Relabellings(len(a[0]), len(b[0]), paired) >= MaxTFrom {
		h.Procedure = "max-t"
		return stats.MaxT(ctx, a, b, paired, in.Resamples, in.Seed)
	}
	h.Procedure = "graph"
	p := make([]float64, len(prim))
	names := make([]string, len(prim))
	for i, m := range prim {
		p[i], names[i] = math.NaN(), m.Name
		if m.PValue != nil && m.Method != "none" {
			p[i] = *m.PValue
		}
	}
	return primaryGraph(names).Adjusted(p), nil
}

// primaryGraph is the graph of the primary metrics names: the leads (every
// metric but a p99 whose median is present) share alpha equally; a
// median passes its share to its p99, a p99 passes it to the other leads,
// and a lead without a p99 to the other leads.
func primaryGraph(names []string) stats.Graph {
	m := len(names)
	parent := make([]int, m) // index of a p99's median, or −1
	var leads []int
	for i, n := range names {
		parent[i] = -1
		if k, ok := strings.CutSuffix(n, "_p99"); ok {
			parent[i] = slices.Index(names, k+"_p50")
		}
		if parent[i] < 0 {
			leads = append(leads, i)
		}
	}
	g := stats.Graph{Weights: make([]float64, m), Edges: make([][]float64, m)}
	for i := range g.Edges {
		g.Edges[i] = make([]float64, m)
	}
	share := func(from int, to []int) {
		to = slices.DeleteFunc(slices.Clone(to), func(k int) bool { return k == from || k == parent[from] })
		for _, k := range to {
			g.Edges[from][k] = 1 / float64(len(to))
		}
	}
	for _, i := range leads {
		g.Weights[i] = 1 / float64(len(leads))
	}
	for i := range names {
		if c := slices.Index(parent, i); c >= 0 {
			g.Edges[i][c] = 1
		} else {
			share(i, leads)
		}
	}
	return g
}

// aligned returns the primary metrics' per-run values when every one has
// a value in the same runs (two or more a side), metric by metric.
func aligned(prim []*Metric) (a, b [][]float64, ok bool) {
	first := prim[0]
	for _, m := range prim {
		if len(m.runsA.vals) < 2 || len(m.runsB.vals) < 2 ||
			!slices.EqualFunc(m.runsA.starts, first.runsA.starts, time.Time.Equal) ||
			!slices.EqualFunc(m.runsB.starts, first.runsB.starts, time.Time.Equal) {
			return nil, nil, false
		}
		a, b = append(a, m.runsA.vals), append(b, m.runsB.vals)
	}
	return a, b, true
}

// outcome is the headline's outcome and winner before the drift check.
func (h *Headline) outcome(prim []*Metric) (string, string) {
	switch na, nb := len(h.BetterA), len(h.BetterB); {
	case na > 0 && nb > 0:
		return HeadlineMixed, ""
	case na > 0:
		return HeadlineWinner, "a"
	case nb > 0:
		return HeadlineWinner, "b"
	}
	for _, m := range prim {
		if m.Verdict != VerdictSame {
			return HeadlineNeedsMoreRuns, ""
		}
	}
	return HeadlineNoDifference, ""
}

// driftRows names the primary metrics whose per-run values trend with the
// runs' start times within each side (stats.Trend) in the direction that
// would make the later side look as the difference says, Holm-adjusted
// over the metrics tested at alpha. Only such a drift can stand in for
// the difference, so the test is one-sided: p/2 when the trend points
// that way, 1 − p/2 when it points the other.
func driftRows(prim []*Metric, alpha float64) []string {
	var names []string
	var ps []float64
	for _, m := range prim {
		t0 := earliest(m.runsA.starts, m.runsB.starts)
		if t0.IsZero() {
			continue
		}
		ta, tb := seconds(m.runsA.starts, t0), seconds(m.runsB.starts, t0)
		tr, ok := stats.Trend(ta, m.runsA.vals, tb, m.runsB.vals)
		if !ok {
			continue
		}
		ma, _ := stats.MeanSD(ta)
		mb, _ := stats.MeanSD(tb)
		p := 1 - tr.P/2
		if tr.Slope*(mb-ma)*(m.B-m.A) > 0 {
			p = tr.P / 2
		}
		names, ps = append(names, m.Name), append(ps, p)
	}
	var out []string
	for i, p := range stats.Holm(ps) {
		if p < alpha {
			out = append(out, names[i])
		}
	}
	return out
}

// earliest is the first of the start times, or the zero time when one is
// missing.
func earliest(a, b []time.Time) time.Time {
	var t0 time.Time
	for _, t := range append(slices.Clone(a), b...) {
		if t.IsZero() {
			return time.Time{}
		}
		if t0.IsZero() || t.Before(t0) {
			t0 = t
		}
	}
	return t0
}

func seconds(ts []time.Time, t0 time.Time) []float64 {
	out := make([]float64, len(ts))
	for i, t := range ts {
		out[i] = t.Sub(t0).Seconds()
	}
	return out
}

// reason says the headline in one line, with its procedure and error rate.
func (h *Headline) reason(n int) string {
	proc := fmt.Sprintf("a sequentially rejective Bonferroni correction over the %d primary metrics (medians first, each p99 after its median)", n)
	if h.Procedure == "max-t" {
		proc = fmt.Sprintf("the max-T permutation correction over the %d primary metrics", n)
	}
	rate := fmt.Sprintf("%s (family-wise error rate at most %g%%)", proc, 100*h.Alpha)
	better := func(ms []string) string { return strings.Join(ms, ", ") }
	switch h.Outcome {
	case HeadlineWinner:
		side, ms := "A", h.BetterA
		if h.Winner == "b" {
			side, ms = "B", h.BetterB
		}
		return fmt.Sprintf("%s is faster: better on %s after %s, worse on none", side, better(ms), rate)
	case HeadlineMixed:
		return fmt.Sprintf("mixed: A is better on %s and B on %s after %s", better(h.BetterA), better(h.BetterB), rate)
	case HeadlineConfounded:
		return fmt.Sprintf("confounded: the runs are not interleaved in counterbalanced pairs and the per-run values of %s trend with their start times: "+
			"a drift over time cannot be told apart from a difference between the systems; interleave the runs (A B, B A, …)", better(h.Drift))
	case HeadlineNoDifference:
		return "no difference: no primary metric differs, and the runs could have detected 10% of A on each"
	}
	return fmt.Sprintf("no verdict yet: no primary metric differs after %s; more runs may tell", rate)
}

// markRepeats sets SameAs on the rows that repeat another figure: for a
// fixed workload the input and request throughputs and the completion
// time are the output throughput in another form (the same work over the
// same time), and the steady window's request throughput its output
// throughput; ITL per token is ITL when every chunk held one token (the
// same values in every run).
func markRepeats(ms []Metric, fixed bool) {
	idx := map[string]int{}
	for i, m := range ms {
		idx[m.Name] = i
	}
	for i := range ms {
		m := &ms[i]
		if _, has := idx["output_throughput"]; has && fixed &&
			(m.Name == "input_throughput" || m.Name == "request_throughput" || m.Name == "completion_time_s") {
			m.SameAs = "output_throughput"
		}
		if _, has := idx["steady_output_throughput"]; has && fixed && m.Name == "steady_request_throughput" {
			m.SameAs = "steady_output_throughput"
		}
		if rest, ok := strings.CutPrefix(m.Name, "itl_per_token_ms_"); ok {
			if j, has := idx["itl_ms_"+rest]; has && slices.Equal(ms[j].runsA.vals, m.runsA.vals) && slices.Equal(ms[j].runsB.vals, m.runsB.vals) {
				m.SameAs = ms[j].Name
			}
		}
	}
}
