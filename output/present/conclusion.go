package present

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/compare"
)

// This file writes the answer every comparison report opens with: the
// conclusion compare decided (compare.Conclusion: its sentence first,
// never re-derived here, with the family-wise error rate of its
// headline), then, per winning side, the primary metrics it wins with
// the delta, the interval of B−A at the report's confidence and the
// p-values, largest difference first; the exploratory rows significant
// on their own, per side (wins and losses), largest first; the
// metrics found indistinguishable and those that need more runs; the
// validity of the comparison; and layer 2's largest region shift, marked
// as diagnostic.

// maxExamples is how many metrics a side's sentence quotes with numbers.
const maxExamples = 3

// Conclusion returns the comparison's answer in a few plain sentences,
// compare's sentence first.
func Conclusion(rep *compare.Report) []string {
	c := rep.Conclusion
	out := []string{c.Sentence}
	for _, side := range []struct {
		name    string
		metrics []string
	}{{"a", c.BetterA}, {"b", c.BetterB}} {
		if len(side.metrics) > 0 {
			out = append(out, winLine(rep, side.name, metricsNamed(rep, inOrderOf(c.Largest, side.metrics))))
		}
	}
	if l := exploratoryLine(rep, c); l != "" {
		out = append(out, l)
	}
	if len(c.Same) > 0 {
		out = append(out, "Not distinguishable (~): "+compare.KindList(metricsNamed(rep, c.Same))+".")
	}
	if len(c.NeedMoreRuns) > 0 {
		out = append(out, moreRunsLine(metricsNamed(rep, c.NeedMoreRuns)))
	}
	out = append(out, validityLine(rep))
	if l := regionShiftLine(rep.GPU); l != "" {
		out = append(out, l)
	}
	return out
}

// inOrderOf returns the names of set in the order of order (the
// conclusion's Largest: largest difference first), then any others.
func inOrderOf(order, set []string) []string {
	var out []string
	for _, n := range order {
		if slices.Contains(set, n) {
			out = append(out, n)
		}
	}
	for _, n := range set {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// metricsNamed returns rep's metrics called names, in that order.
func metricsNamed(rep *compare.Report, names []string) []compare.Metric {
	by := map[string]compare.Metric{}
	for _, m := range rep.Metrics {
		by[m.Name] = m
	}
	out := make([]compare.Metric, 0, len(names))
	for _, n := range names {
		if m, ok := by[n]; ok {
			out = append(out, m)
		}
	}
	return out
}

// winLine says on which metrics side is better, quoting the first few
// with their numbers.
func winLine(rep *compare.Report, side string, ms []compare.Metric) string {
	var ex []string
	for _, m := range representatives(ms) {
		ex = append(ex, metricEvidence(rep.Alpha, m))
	}
	s := fmt.Sprintf("%s is better on the primary metrics %s: %s", strings.ToUpper(side), compare.KindList(ms), strings.Join(ex, "; "))
	return s + "."
}

// maxExploratory is how many exploratory rows a side's list names.
const maxExploratory = 4

// exploratoryLine lists the rows significant at alpha on their own that
// do not decide the answer, per side, largest difference first (the
// conclusion's Largest order), or "".
func exploratoryLine(rep *compare.Report, c compare.Conclusion) string {
	var parts []string
	for _, side := range []struct {
		name    string
		metrics []string
	}{{"A", c.ExploratoryA}, {"B", c.ExploratoryB}} {
		var named []string
		for _, m := range metricsNamed(rep, c.Largest) {
			if !slices.Contains(side.metrics, m.Name) {
				continue
			}
			if len(named) == maxExploratory {
				named = append(named, fmt.Sprintf("%d more", len(side.metrics)-maxExploratory))
				break
			}
			named = append(named, m.Name+deltaText(m))
		}
		if len(named) > 0 {
			parts = append(parts, side.name+" better on "+strings.Join(named, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Exploratory (each row tested alone at alpha, not corrected for the number of rows, never deciding the answer; largest first): " +
		strings.Join(parts, "; ") + "."
}

// deltaText is " +12.3%" for a row's relative difference, "" without one.
func deltaText(m compare.Metric) string {
	if m.DeltaPct == nil || math.IsNaN(*m.DeltaPct) {
		return ""
	}
	return fmt.Sprintf(" %+.1f%%", *m.DeltaPct)
}

// representatives picks, per metric kind, one metric to quote (its p50
// when it has one), at most maxExamples of them, the kinds with the
// largest difference first.
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
	size := func(k string) float64 {
		if d := pick[k].DeltaPct; d != nil && !math.IsNaN(*d) {
			return math.Abs(*d)
		}
		return -1
	}
	slices.SortStableFunc(kinds, func(x, y string) int { return cmp.Compare(size(y), size(x)) })
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
	if m.PAdjusted != nil {
		s += ", adjusted p " + pText(*m.PAdjusted)
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
	s := "Needs more runs (no difference found, but too few runs for their spread): " + compare.KindList(ms)
	if most > 0 {
		s += fmt.Sprintf("; up to %d runs per side would tell (each row's reason says what they would detect, with what power)", most)
	} else if slices.ContainsFunc(ms, func(m compare.Metric) bool { return m.NA < 2 || m.NB < 2 }) {
		s += "; one run a side has no spread to size them: repeat the runs (3 or more a side)"
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
