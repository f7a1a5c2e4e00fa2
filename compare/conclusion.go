package compare

import (
	"fmt"
	"slices"
	"strings"
)

// This file decides the answer a comparison gives, from its verdicts,
// its contract and its correctness status, in one function (Conclude):
// the typed outcome, the side that wins, the sentence every reading of the
// report opens with, and the metrics behind it. The sentence is never
// stronger than the verdicts: NOT COMPARABLE when the contract differs
// undeclared, NOT VALID when the correctness check or the quality status
// failed, MIXED when each side wins some metrics, else which side is
// faster or that nothing was shown.

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
	// OutcomeMixed: each side is significantly better on some metrics.
	OutcomeMixed Outcome = "mixed"
	// OutcomeWinner: one side (Conclusion.Winner) is significantly
	// better on some metrics and worse on none.
	OutcomeWinner Outcome = "winner"
	// OutcomeNeedsMoreRuns: no metric differs significantly and some
	// could not have detected a difference of 10% of A.
	OutcomeNeedsMoreRuns Outcome = "needs_more_runs"
	// OutcomeNoDifference: no metric differs significantly, and every
	// one could have detected a difference of 10% of A.
	OutcomeNoDifference Outcome = "no_difference"
	// OutcomeNoVerdict: no metric could be compared.
	OutcomeNoVerdict Outcome = "no_verdict"
)

// Conclusion is a comparison's answer: its outcome, the side that wins,
// the sentence that says it, and the metrics behind it (by name, in
// report order).
type Conclusion struct {
	Outcome Outcome `json:"outcome"`
	// Winner is "a" or "b" when Outcome is OutcomeWinner, else "".
	Winner string `json:"winner,omitempty"`
	// Sentence is the answer in one sentence, as every reading of the
	// report (text, markdown, HTML, workbook) prints it first.
	Sentence string `json:"sentence"`
	// BetterA and BetterB are the speed metrics on which that side is
	// significantly better (verdict a, b); Same those found not
	// distinguishable (~); NeedMoreRuns those whose runs were too few.
	// The energy rows (IsEnergyMetric) are in none of them: the sentence
	// adds their finding separately (withEnergy).
	BetterA      []string `json:"better_a"`
	BetterB      []string `json:"better_b"`
	Same         []string `json:"same"`
	NeedMoreRuns []string `json:"needs_more_runs"`
	// Invalid says why the comparison is not valid ("" when it is).
	Invalid string `json:"invalid,omitempty"`
}

// Conclude decides rep's conclusion from its verdicts, contract and
// correctness status. New sets Report.Conclusion with it.
func Conclude(rep *Report) Conclusion {
	g := groupVerdicts(speedRows(rep.Metrics))
	c := Conclusion{BetterA: names(g.wins[VerdictA]), BetterB: names(g.wins[VerdictB]), Same: names(g.same),
		NeedMoreRuns: names(g.more), Invalid: invalidity(rep.Correctness)}
	na, nb := len(g.wins[VerdictA]), len(g.wins[VerdictB])
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
	case na > 0 && nb > 0:
		c.Outcome = OutcomeMixed
		c.Sentence = fmt.Sprintf("MIXED: A is better on %d metric(s) (%s), B on %d (%s); neither is faster overall.",
			na, KindList(g.wins[VerdictA]), nb, KindList(g.wins[VerdictB]))
	case na > 0 || nb > 0:
		side, n := "A", na
		if nb > 0 {
			side, n = "B", nb
		}
		c.Outcome, c.Winner = OutcomeWinner, strings.ToLower(side)
		c.Sentence = fmt.Sprintf("%s is faster: better on %d of %d metrics, worse on none.", side, n, na+nb+len(g.same)+len(g.more))
	case len(g.more) > 0:
		c.Outcome = OutcomeNeedsMoreRuns
		c.Sentence = fmt.Sprintf("NO VERDICT YET: no metric differs significantly and %d of %d need more runs.", len(g.more), len(g.same)+len(g.more))
	case len(g.same) > 0:
		c.Outcome = OutcomeNoDifference
		c.Sentence = "NO DIFFERENCE FOUND: A and B are not distinguishable on any metric, and the runs could have detected a difference of 10% of A."
	default:
		c.Outcome = OutcomeNoVerdict
		c.Sentence = "NO VERDICT: no metric could be compared."
	}
	c.Sentence = withEnergy(c.Sentence, c.Outcome, c.Winner, rep.Metrics)
	return c
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

// verdictGroups sorts the compared metrics by verdict, in report order.
type verdictGroups struct {
	wins       map[Verdict][]Metric // VerdictA, VerdictB
	same, more []Metric
}

func groupVerdicts(ms []Metric) verdictGroups {
	g := verdictGroups{wins: map[Verdict][]Metric{}}
	for _, m := range ms {
		switch m.Verdict {
		case VerdictA, VerdictB:
			g.wins[m.Verdict] = append(g.wins[m.Verdict], m)
		case NeedsMoreRuns:
			g.more = append(g.more, m)
		default:
			g.same = append(g.same, m)
		}
	}
	return g
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
