package present

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/compare"
)

// This file writes the answer every comparison report opens with: a few
// plain sentences built from the verdicts and never stronger than them.
//
// The first sentence is the answer: NOT COMPARABLE when the contract
// differs undeclared, NOT VALID when the correctness check or the
// quality status failed, MIXED when each side wins some metrics, else
// which side is faster or that nothing was shown. Then, per winning side,
// its metrics with the delta, the interval of B−A at the report's
// confidence and the p-value; the metrics found indistinguishable and
// those that need more runs; the validity of the comparison; and layer 2's
// largest region shift, marked as diagnostic.

// maxExamples is how many metrics a side's sentence quotes with numbers.
const maxExamples = 3

// Conclusion returns the comparison's answer in a few plain sentences,
// the answer first.
func Conclusion(rep *compare.Report) []string {
	g := groupVerdicts(rep.Metrics)
	out := []string{firstLine(rep, g)}
	for _, side := range []string{"a", "b"} {
		if len(g.wins[side]) > 0 {
			out = append(out, winLine(rep, side, g.wins[side]))
		}
	}
	if len(g.same) > 0 {
		out = append(out, "Not distinguishable (~): "+kindList(g.same)+".")
	}
	if len(g.more) > 0 {
		out = append(out, moreRunsLine(g.more))
	}
	out = append(out, validityLine(rep))
	if l := regionShiftLine(rep.GPU); l != "" {
		out = append(out, l)
	}
	return out
}

// verdictGroups sorts the compared metrics by verdict, in report order.
type verdictGroups struct {
	wins       map[string][]compare.Metric // "a", "b"
	same, more []compare.Metric
}

func groupVerdicts(ms []compare.Metric) verdictGroups {
	g := verdictGroups{wins: map[string][]compare.Metric{}}
	for _, m := range ms {
		switch m.Verdict {
		case "a", "b":
			g.wins[m.Verdict] = append(g.wins[m.Verdict], m)
		case compare.NeedsMoreRuns:
			g.more = append(g.more, m)
		default:
			g.same = append(g.same, m)
		}
	}
	return g
}

// firstLine is the answer in one sentence.
func firstLine(rep *compare.Report, g verdictGroups) string {
	if !rep.Comparable {
		verb := " differs"
		if len(rep.NotComparable) > 1 {
			verb = " differ"
		}
		return "NOT COMPARABLE: " + strings.Join(rep.NotComparable, ", ") + verb + " without being declared intentional; " +
			"no claim that one system is faster holds across these differences."
	}
	if bad := invalidity(rep.Correctness); bad != "" {
		return "NOT VALID: " + bad + "; the speed verdicts below compare systems that do not produce the same outputs."
	}
	na, nb := len(g.wins["a"]), len(g.wins["b"])
	switch {
	case na > 0 && nb > 0:
		return fmt.Sprintf("MIXED: A is better on %d metric(s) (%s), B on %d (%s); neither is faster overall.",
			na, kindList(g.wins["a"]), nb, kindList(g.wins["b"]))
	case na > 0 || nb > 0:
		side, n := "A", na
		if nb > 0 {
			side, n = "B", nb
		}
		return fmt.Sprintf("%s is faster: better on %d of %d metrics, worse on none.", side, n, na+nb+len(g.same)+len(g.more))
	case len(g.more) > 0:
		return fmt.Sprintf("NO VERDICT YET: no metric differs significantly and %d of %d need more runs.", len(g.more), len(g.same)+len(g.more))
	case len(g.same) > 0:
		return "NO DIFFERENCE FOUND: A and B are not distinguishable on any metric, and the runs could have detected a difference of 10% of A."
	}
	return "NO VERDICT: no metric could be compared."
}

// invalidity says why the correctness check or the quality status makes
// the comparison invalid, or "".
func invalidity(c compare.Correctness) string {
	var why []string
	if c.Checked && !c.Passed {
		why = append(why, fmt.Sprintf("the correctness check FAILED (%d/%d requests match exactly, %d failed)", c.ExactMatch, c.Requests, c.Failed))
	}
	if c.Quality == "fail" {
		why = append(why, "the quality check failed")
	}
	return strings.Join(why, " and ")
}

// winLine says on which metrics side is better, quoting the first few
// with their numbers.
func winLine(rep *compare.Report, side string, ms []compare.Metric) string {
	var ex []string
	for _, m := range representatives(ms) {
		ex = append(ex, metricEvidence(rep.Alpha, m))
	}
	s := fmt.Sprintf("%s is better on %s: %s", strings.ToUpper(side), kindList(ms), strings.Join(ex, "; "))
	return s + "."
}

// representatives picks, per metric kind, one metric to quote (its p50
// when it has one), at most maxExamples of them, in report order.
func representatives(ms []compare.Metric) []compare.Metric {
	var kinds []string
	pick := map[string]compare.Metric{}
	for _, m := range ms {
		k, stat := compare.SplitMetric(m.Name)
		cur, seen := pick[k]
		if !seen {
			kinds = append(kinds, k)
		}
		if !seen || stat == "p50" && !strings.HasSuffix(cur.Name, "_p50") {
			pick[k] = m
		}
	}
	var out []compare.Metric
	for _, k := range kinds[:min(len(kinds), maxExamples)] {
		out = append(out, pick[k])
	}
	return out
}

// metricEvidence is one metric's numbers: delta, means, interval of B−A
// and p-value.
func metricEvidence(alpha float64, m compare.Metric) string {
	s := m.Name
	if m.DeltaPct != nil {
		s += fmt.Sprintf(" %+.1f%%", *m.DeltaPct)
	}
	s += fmt.Sprintf(" (A %s, B %s %s", num4(m.A), num4(m.B), m.Unit)
	if m.CILow != nil && m.CIHigh != nil {
		s += fmt.Sprintf("; %s%% CI of B−A %s to %s %s", confidence(alpha), num4(*m.CILow), num4(*m.CIHigh), m.Unit)
	}
	if m.PValue != nil {
		s += "; p " + pText(*m.PValue)
	}
	return s + ")"
}

// moreRunsLine lists the metrics that need more runs and the most runs
// per side any of them asks for.
func moreRunsLine(ms []compare.Metric) string {
	most := 0
	for _, m := range ms {
		most = max(most, m.RunsNeeded)
	}
	s := "Needs more runs (no difference found, but too few runs for their spread): " + kindList(ms)
	if most > 0 {
		s += fmt.Sprintf("; up to %d runs per side would tell", most)
	}
	return s + "."
}

// validityLine states the contract, correctness and quality status.
func validityLine(rep *compare.Report) string {
	contract := "the model, workload, load and resource contract agree"
	if !rep.Comparable {
		contract = "the contract differs (" + strings.Join(rep.NotComparable, ", ") + ")"
	}
	var intent []string
	for _, d := range rep.Differences {
		if d.Intentional {
			intent = append(intent, d.Field)
		}
	}
	if len(intent) > 0 {
		contract += " (declared intentional: " + strings.Join(intent, ", ") + ")"
	}
	c := rep.Correctness
	corr := "correctness not checked"
	if c.Checked {
		corr = fmt.Sprintf("correctness check PASSED (%d/%d exact)", c.ExactMatch, c.Requests)
		if !c.Passed {
			corr = fmt.Sprintf("correctness check FAILED (%d/%d exact)", c.ExactMatch, c.Requests)
		}
	}
	return "Validity: " + contract + "; " + corr + "; quality " + cmpOr(c.Quality, "not-run") + "."
}

// regionShiftLine names layer 2's largest region delta between the
// bottleneck ranks, or "" without one.
func regionShiftLine(g *compare.GPUTime) string {
	if g == nil {
		return ""
	}
	var best *compare.RegionDelta
	for i := range g.Deltas {
		d := &g.Deltas[i]
		if d.DeltaPct == nil || math.IsNaN(*d.DeltaPct) {
			continue
		}
		if best == nil || math.Abs(*d.DeltaPct) > math.Abs(*best.DeltaPct) {
			best = d
		}
	}
	if best == nil {
		return ""
	}
	basis := "busy time"
	if g.Basis != "none" && g.Basis != "" {
		basis = "busy time per " + strings.ReplaceAll(g.Basis, "_", " ")
	}
	return fmt.Sprintf("Diagnostic only (layer 2, no causal claim): the largest region shift between the bottleneck ranks is %s, %+.1f%% %s (B vs A).",
		best.Region, *best.DeltaPct, basis)
}

// kindList names metrics compactly: "ttft_ms (mean, p50), output_throughput".
func kindList(ms []compare.Metric) string {
	var kinds []string
	stats := map[string][]string{}
	for _, m := range ms {
		k, s := compare.SplitMetric(m.Name)
		if _, seen := stats[k]; !seen {
			kinds = append(kinds, k)
		}
		if s != "" {
			stats[k] = append(stats[k], s)
		} else if stats[k] == nil {
			stats[k] = []string{}
		}
	}
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k
		if len(stats[k]) > 0 {
			out[i] += " (" + strings.Join(stats[k], ", ") + ")"
		}
	}
	return strings.Join(out, ", ")
}

// confidence is the interval's level in percent for alpha (0 means 0.05).
func confidence(alpha float64) string {
	if alpha <= 0 || alpha >= 1 {
		alpha = 0.05
	}
	return strconv.FormatFloat(100*(1-alpha), 'f', -1, 64)
}

// pText writes a p-value as the tables show it: "< 0.0001" below 0.0001.
func pText(p float64) string {
	if p < 1e-4 {
		return "< 0.0001"
	}
	return "= " + strconv.FormatFloat(p, 'g', 2, 64)
}

// num4 writes a value with four significant digits, as the tables do.
func num4(v float64) string {
	c := num("", "")
	if f, ok := c.Display(v).(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
