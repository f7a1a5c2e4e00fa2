package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// This file decides the answer a comparison gives, from its verdicts,
// its contract, its correctness status and the headline (headline.go:
// the family-wise decision on the primary metrics), in one function
// (Conclude): the typed outcome, the side that wins, the sentence every
// reading of the report opens with, and the metrics behind it. The
// sentence is never stronger than the verdicts: NOT COMPARABLE when the
// contract differs undeclared, NOT VALID when the correctness check or
// the quality status failed, else what the headline decided on the
// primary metrics with a family-wise error rate of at most alpha: MIXED
// when each side wins some, CONFOUNDED when a drift of uncounterbalanced
// runs can stand in for the difference, which side is faster, or that
// nothing was shown. Rows outside the primary set are exploratory: they
// are listed, never deciding the outcome.

// Verdict is one metric's call.
type Verdict string

// Verdicts. NeedsMoreRuns is the verdict of a metric whose runs could
// not have detected a difference of 10% of A; Metric.RunsNeeded says how
// many would.
const (
	VerdictA      Verdict = "a" // A is significantly better
	VerdictB      Verdict = "b" // B is significantly better
	VerdictSame   Verdict = "~" // no difference, and the runs could have detected one of 10% of A
	NeedsMoreRuns Verdict = "needs more runs"
)

// Outcome is the answer of a comparison, in one word.
type Outcome string

// Outcomes, in the order Conclude tries them.
const (
	// OutcomeNotComparable: the model, workload, load or resource
	// contract differs without being declared intentional.
	OutcomeNotComparable Outcome = "not_comparable"
	// OutcomeNotValid: the correctness check or the quality status
	// failed.
	OutcomeNotValid Outcome = "not_valid"
	// OutcomeConfounded: the runs were not counterbalanced and a primary
	// metric drifts with their start times the way the difference goes:
	// no side is named.
	OutcomeConfounded Outcome = "confounded"
	// OutcomeMixed: each side is better on some primary metrics after the
	// family-wise correction.
	OutcomeMixed Outcome = "mixed"
	// OutcomeWinner: one side (Conclusion.Winner) is better on some
	// primary metrics after the family-wise correction and worse on none.
	OutcomeWinner Outcome = "winner"
	// OutcomeNeedsMoreRuns: no primary metric differs after the
	// correction, and some could not have detected a difference of 10%
	// of A (or differ at alpha alone only).
	OutcomeNeedsMoreRuns Outcome = "needs_more_runs"
	// OutcomeNoDifference: no primary metric differs, and every one could
	// have detected a difference of 10% of A.
	OutcomeNoDifference Outcome = "no_difference"
	// OutcomeNoVerdict: no primary metric could be compared.
	OutcomeNoVerdict Outcome = "no_verdict"
)

// Conclusion is a comparison's answer: its outcome, the side that wins,
// the sentence that says it, and the metrics behind it (by name, in
// report order). Rows that repeat another figure (Metric.SameAs) and the
// energy rows (IsEnergyMetric) are in none of the lists: each figure is
// counted once, and the sentence adds the energy finding separately
// (withEnergy).
type Conclusion struct {
	Outcome Outcome `json:"outcome"`
	// Winner is "a" or "b" when Outcome is OutcomeWinner, else "".
	Winner string `json:"winner,omitempty"`
	// Sentence is the answer in one sentence, as every reading of the
	// report (text, markdown, HTML, workbook) prints it first.
	Sentence string `json:"sentence"`
	// Primary names the primary metrics the outcome was decided on.
	Primary []string `json:"primary"`
	// BetterA and BetterB are the primary metrics on which that side is
	// better after the family-wise correction: the ones that decide.
	BetterA []string `json:"better_a"`
	BetterB []string `json:"better_b"`
	// ExploratoryA and ExploratoryB are the other rows on which that side
	// is significantly better, each tested alone at alpha: reported,
	// never deciding the outcome.
	ExploratoryA []string `json:"exploratory_a"`
	ExploratoryB []string `json:"exploratory_b"`
	// Same are the rows found not distinguishable (~); NeedMoreRuns those
	// whose runs were too few.
	Same         []string `json:"same"`
	NeedMoreRuns []string `json:"needs_more_runs"`
	// Largest are the significant rows (BetterA, BetterB and the
	// exploratory ones), largest relative difference first: the biggest
	// wins and losses by effect size.
	Largest []string `json:"largest"`
	// Drift names the primary metrics whose runs drift with time when the
	// outcome is OutcomeConfounded.
	Drift []string `json:"drift,omitempty"`
	// Invalid says why the comparison is not valid ("" when it is).
	Invalid string `json:"invalid,omitempty"`
}

// Conclude decides rep's conclusion from its verdicts, headline, contract
// and correctness status. New sets Report.Conclusion with it.
func Conclude(rep *Report) Conclusion {
	h := rep.Headline
	if h == nil {
		h = &Headline{Outcome: HeadlineNone}
	}
	speed := speedRows(rep.Metrics)
	g := groupVerdicts(speed, h)
	c := Conclusion{Primary: nonNil(h.Primary), BetterA: names(g.wins[VerdictA]), BetterB: names(g.wins[VerdictB]),
		ExploratoryA: names(g.alone[VerdictA]), ExploratoryB: names(g.alone[VerdictB]), Same: names(g.same),
		NeedMoreRuns: names(g.more), Largest: names(g.largest()), Drift: h.Drift, Invalid: invalidity(rep.Correctness)}
	switch {
	case !rep.Comparable:
		verb := " differs"
		if len(rep.NotComparable) > 1 {
			verb = " differ"
		}
		c.Outcome = OutcomeNotComparable
		c.Sentence = "NOT COMPARABLE: " + strings.Join(rep.NotComparable, ", ") + verb + " without being declared intentional; " +
			"no claim that one system is faster holds across these differences."
	case c.Invalid != "":
		c.Outcome = OutcomeNotValid
		c.Sentence = "NOT VALID: " + c.Invalid + "; the speed verdicts below compare systems that do not produce the same outputs."
	case len(speed) == 0:
		c.Outcome, c.Sentence = OutcomeNoVerdict, "NO VERDICT: no metric could be compared."
	default:
		c.Outcome, c.Winner, c.Sentence = headlineAnswer(h, g)
	}
	c.Sentence = withEnergy(c.Sentence, c.Outcome, c.Winner, rep.Metrics)
	return c
}

// headlineAnswer turns the headline's decision into an outcome, a winner
// and a sentence that states the family-wise error rate.
func headlineAnswer(h *Headline, g verdictGroups) (Outcome, string, string) {
	n := len(h.Primary)
	family := fmt.Sprintf("%s over the %d primary metrics keeps the chance of a false claim at %g%% or less", procedureName(h.Procedure), n, 100*h.Alpha)
	switch h.Outcome {
	case HeadlineWinner:
		side := strings.ToUpper(h.Winner)
		v := Verdict(h.Winner)
		return OutcomeWinner, h.Winner, fmt.Sprintf("%s is faster: better on %d of %d primary metrics (%s), worse on none; %s.",
			side, len(g.wins[v]), n, KindList(bySize(g.wins[v])), family)
	case HeadlineMixed:
		return OutcomeMixed, "", fmt.Sprintf("MIXED: A is better on %d primary metric(s) (%s), B on %d (%s); neither is faster overall (%s).",
			len(g.wins[VerdictA]), KindList(bySize(g.wins[VerdictA])), len(g.wins[VerdictB]), KindList(bySize(g.wins[VerdictB])), family)
	case HeadlineConfounded:
		return OutcomeConfounded, "", fmt.Sprintf("CONFOUNDED: the runs were not made in counterbalanced pairs, and the per-run values of %s drift with "+
			"the runs' start times; no test can tell that drift from a difference between the systems, so no side is named: interleave the runs (A B, B A, …).",
			strings.Join(h.Drift, ", "))
	case HeadlineNoDifference:
		return OutcomeNoDifference, "", "NO DIFFERENCE FOUND: A and B are not distinguishable on any primary metric, and the runs could have detected a difference of 10% of A on each."
	case HeadlineNeedsMoreRuns:
		return OutcomeNeedsMoreRuns, "", fmt.Sprintf("NO VERDICT YET: no primary metric differs after the family-wise correction (%s); %d of %d metrics need more runs.",
			family, len(g.more), len(g.same)+len(g.more)+len(g.alone[VerdictA])+len(g.alone[VerdictB]))
	}
	return OutcomeNoVerdict, "", "NO VERDICT: no primary metric could be compared."
}

// procedureName names a family-wise procedure for people.
func procedureName(p string) string {
	if p == "max-t" {
		return "the max-T permutation correction"
	}
	return "a sequentially rejective Bonferroni correction"
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// speedRows leaves out the energy rows: they are compared, but a system
// is not faster for using less energy.
func speedRows(ms []Metric) []Metric {
	var out []Metric
	for _, m := range ms {
		if !IsEnergyMetric(m.Name) {
			out = append(out, m)
		}
	}
	return out
}

// withEnergy adds what the energy-per-token row shows to a conclusion's
// sentence, only when that row's own verdict is significant: "B is faster
// and uses 28% less energy per output token", "B is faster but uses 12%
// more ...", or, for an outcome without a winner, a sentence after it. A
// comparison that is not comparable or not valid says nothing more.
func withEnergy(sentence string, o Outcome, winner string, ms []Metric) string {
	i := slices.IndexFunc(ms, func(m Metric) bool { return m.Name == MetricEnergyPerToken })
	if i < 0 || o == OutcomeNotComparable || o == OutcomeNotValid {
		return sentence
	}
	m := ms[i]
	if (m.Verdict != VerdictA && m.Verdict != VerdictB) || !(m.A > 0) || !(m.B > 0) {
		return sentence
	}
	less, lessBy := "A", 100*(m.B-m.A)/m.B // the side that uses less, by % of the other
	if m.Verdict == VerdictB {
		less, lessBy = "B", 100*(m.A-m.B)/m.A
	}
	if o == OutcomeWinner {
		side := strings.ToUpper(winner)
		clause := fmt.Sprintf(" and uses %.0f%% less energy per output token", lessBy)
		if side != less {
			more := 100 * (m.A - m.B) / m.B // A over B
			if side == "B" {
				more = 100 * (m.B - m.A) / m.A
			}
			clause = fmt.Sprintf(" but uses %.0f%% more energy per output token", more)
		}
		return strings.Replace(sentence, side+" is faster", side+" is faster"+clause, 1)
	}
	return sentence + fmt.Sprintf(" %s uses %.0f%% less energy per output token.", less, lessBy)
}

// verdictGroups sorts the compared metrics by verdict, in report order:
// wins are the primary metrics a side wins after the family-wise
// correction (Headline.BetterA, BetterB), alone the other rows
// significant at alpha on their own. Rows that repeat another figure
// (SameAs) are left out.
type verdictGroups struct {
	wins, alone map[Verdict][]Metric // VerdictA, VerdictB
	same, more  []Metric
}

func groupVerdicts(ms []Metric, h *Headline) verdictGroups {
	g := verdictGroups{wins: map[Verdict][]Metric{}, alone: map[Verdict][]Metric{}}
	for _, m := range ms {
		if m.SameAs != "" {
			continue
		}
		switch {
		case m.Verdict == VerdictA && slices.Contains(h.BetterA, m.Name), m.Verdict == VerdictB && slices.Contains(h.BetterB, m.Name):
			g.wins[m.Verdict] = append(g.wins[m.Verdict], m)
		case m.Verdict == VerdictA || m.Verdict == VerdictB:
			g.alone[m.Verdict] = append(g.alone[m.Verdict], m)
		case m.Verdict == NeedsMoreRuns:
			g.more = append(g.more, m)
		default:
			g.same = append(g.same, m)
		}
	}
	return g
}

// largest returns the significant rows, primary and exploratory, by the
// size of their relative difference, largest first (rows without one
// last, in report order).
func (g verdictGroups) largest() []Metric {
	var out []Metric
	for _, v := range []Verdict{VerdictA, VerdictB} {
		out = append(append(out, g.wins[v]...), g.alone[v]...)
	}
	return bySize(out)
}

// bySize sorts ms by the size of their relative difference, largest
// first (rows without one last, in their order).
func bySize(ms []Metric) []Metric {
	out := slices.Clone(ms)
	size := func(m Metric) float64 {
		if m.DeltaPct == nil || math.IsNaN(*m.DeltaPct) {
			return -1
		}
		return math.Abs(*m.DeltaPct)
	}
	slices.SortStableFunc(out, func(x, y Metric) int { return cmp.Compare(size(y), size(x)) })
	return out
}

func names(ms []Metric) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

// invalidity says why the correctness check or the quality status makes
// the comparison invalid, or "".
func invalidity(c Correctness) string {
	var why []string
	if c.Checked && !c.Passed {
		why = append(why, fmt.Sprintf("the correctness check FAILED (%d/%d requests match exactly, %d failed)", c.ExactMatch, c.Requests, c.Failed))
	}
	if c.Quality == "fail" {
		why = append(why, "the quality check failed")
	}
	return strings.Join(why, " and ")
}

// KindList names metrics compactly, by kind with their statistics:
// "ttft_ms (mean, p50), output_throughput".
func KindList(ms []Metric) string {
	var kinds []string
	stats := map[string][]string{}
	for _, m := range ms {
		k, s := SplitMetric(m.Name)
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
