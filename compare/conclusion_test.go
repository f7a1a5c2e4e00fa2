package compare

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// hl is a headline as decideHeadline makes it, for hand-built reports.
func hl(outcome, winner string, primary, betterA, betterB []string) *Headline {
	return &Headline{Outcome: outcome, Winner: winner, Procedure: "graph", Alpha: 0.05, Primary: primary, BetterA: betterA, BetterB: betterB}
}

// TestConclude: every outcome, the side that wins and the metrics behind
// it, from the headline's decision on the primary metrics, the verdicts,
// the contract and the correctness status.
func TestConclude(t *testing.T) {
	m := func(name string, v Verdict, d float64) Metric { return Metric{Name: name, Verdict: v, DeltaPct: &d} }
	ok := Correctness{Checked: true, Passed: true, Requests: 4, ExactMatch: 4, Quality: "not-run"}
	prim := []string{"ttft_ms_p50", "tpot_ms_p50", "output_throughput"}
	wins := []Metric{m("ttft_ms_p50", VerdictB, -20), m("tpot_ms_p50", VerdictSame, 1), m("output_throughput", VerdictB, 100)}
	bWins := hl(HeadlineWinner, "b", prim, nil, []string{"ttft_ms_p50", "output_throughput"})
	for _, tc := range []struct {
		name    string
		rep     Report
		outcome Outcome
		winner  string
		prefix  string
	}{
		{"winner", Report{Comparable: true, Correctness: ok, Metrics: wins, Headline: bWins}, OutcomeWinner, "b",
			"B is faster: better on 2 of 3 primary metrics (output_throughput, ttft_ms (p50)), worse on none; a sequentially rejective Bonferroni"},
		{"winner a", Report{Comparable: true, Metrics: []Metric{m("e2e_ms_p50", VerdictA, 30), m("tpot_ms_p50", NeedsMoreRuns, 5)},
			Headline: hl(HeadlineWinner, "a", []string{"e2e_ms_p50", "tpot_ms_p50"}, []string{"e2e_ms_p50"}, nil)}, OutcomeWinner, "a", "A is faster: better on 1 of 2"},
		{"mixed", Report{Comparable: true, Metrics: []Metric{m("ttft_ms_p50", VerdictB, -9), m("tpot_ms_p50", VerdictA, 9)},
			Headline: hl(HeadlineMixed, "", prim[:2], []string{"tpot_ms_p50"}, []string{"ttft_ms_p50"})}, OutcomeMixed, "",
			"MIXED: A is better on 1 primary metric(s) (tpot_ms (p50)), B on 1 (ttft_ms (p50))"},
		{"confounded", Report{Comparable: true, Metrics: wins, Headline: &Headline{Outcome: HeadlineConfounded, Primary: prim, BetterB: bWins.BetterB, Drift: []string{"ttft_ms_p50"}}},
			OutcomeConfounded, "", "CONFOUNDED: the runs were not made in counterbalanced pairs, and the per-run values of ttft_ms_p50 drift"},
		{"significant alone decides nothing", Report{Comparable: true, Metrics: wins, Headline: hl(HeadlineNeedsMoreRuns, "", prim, nil, nil)},
			OutcomeNeedsMoreRuns, "", "NO VERDICT YET: no primary metric differs after the family-wise correction"},
		{"needs more runs", Report{Comparable: true, Metrics: []Metric{m("ttft_ms_p50", NeedsMoreRuns, 3), m("tpot_ms_p50", VerdictSame, 0)},
			Headline: hl(HeadlineNeedsMoreRuns, "", prim[:2], nil, nil)}, OutcomeNeedsMoreRuns, "", "NO VERDICT YET: no primary metric differs"},
		{"no difference", Report{Comparable: true, Metrics: []Metric{m("ttft_ms_p50", VerdictSame, 0)}, Headline: hl(HeadlineNoDifference, "", prim[:1], nil, nil)},
			OutcomeNoDifference, "", "NO DIFFERENCE FOUND"},
		{"no headline", Report{Comparable: true, Metrics: wins}, OutcomeNoVerdict, "", "NO VERDICT: no primary metric could be compared."},
		{"no verdict", Report{Comparable: true}, OutcomeNoVerdict, "", "NO VERDICT: no metric could be compared."},
		{"not comparable beats a win", Report{Comparable: false, NotComparable: []string{"manifest.model"}, Metrics: wins, Headline: bWins},
			OutcomeNotComparable, "", "NOT COMPARABLE: manifest.model differs without"},
		{"not valid beats a win", Report{Comparable: true, Correctness: Correctness{Quality: "fail"}, Metrics: wins, Headline: bWins},
			OutcomeNotValid, "", "NOT VALID: the quality check failed;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Conclude(&tc.rep)
			if c.Outcome != tc.outcome || c.Winner != tc.winner || !strings.HasPrefix(c.Sentence, tc.prefix) {
				t.Errorf("Conclude = %+v; want outcome %s, winner %q, sentence starting %q", c, tc.outcome, tc.winner, tc.prefix)
			}
			var n int
			for _, g := range [][]string{c.BetterA, c.BetterB, c.ExploratoryA, c.ExploratoryB, c.Same, c.NeedMoreRuns} {
				n += len(g)
			}
			if n != len(tc.rep.Metrics) {
				t.Errorf("the groups hold %d metrics, the report %d", n, len(tc.rep.Metrics))
			}
		})
	}
	c := Conclude(&Report{Comparable: true, Correctness: ok, Metrics: wins, Headline: bWins})
	if !slices.Equal(c.BetterB, []string{"ttft_ms_p50", "output_throughput"}) || !slices.Equal(c.Same, []string{"tpot_ms_p50"}) ||
		len(c.BetterA) != 0 || c.BetterA == nil || !slices.Equal(c.Largest, []string{"output_throughput", "ttft_ms_p50"}) {
		t.Errorf("groups %+v", c)
	}
	// A row that repeats another figure is counted once; a row
	// significant alone is exploratory, and a loss of the winner is named.
	rep := Report{Comparable: true, Headline: bWins, Metrics: append(slices.Clone(wins),
		Metric{Name: "request_throughput", Verdict: VerdictB, SameAs: "output_throughput"}, m("itl_ms_p99", VerdictA, 40))}
	c = Conclude(&rep)
	if !slices.Equal(c.ExploratoryA, []string{"itl_ms_p99"}) || len(c.ExploratoryB) != 0 || !slices.Equal(c.Largest, []string{"output_throughput", "itl_ms_p99", "ttft_ms_p50"}) ||
		!strings.Contains(c.Sentence, "better on 2 of 3 primary metrics") {
		t.Errorf("repeats and exploratory rows: %+v", c)
	}
}

// TestConclusionInJSON: report.json carries the conclusion as an object,
// and a verdict keeps its spelling.
func TestConclusionInJSON(t *testing.T) {
	rep := &Report{Comparable: true, Metrics: []Metric{{Name: "ttft_ms_p50", Verdict: VerdictB}, {Name: "tpot_ms_p50", Verdict: NeedsMoreRuns}},
		Headline: hl(HeadlineWinner, "b", []string{"ttft_ms_p50", "tpot_ms_p50"}, nil, []string{"ttft_ms_p50"})}
	rep.Conclusion = Conclude(rep)
	var b strings.Builder
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Conclusion map[string]any `json:"conclusion"`
		Metrics    []struct {
			Verdict string `json:"verdict"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	if back.Conclusion["outcome"] != "winner" || back.Conclusion["winner"] != "b" || !strings.HasPrefix(back.Conclusion["sentence"].(string), "B is faster") {
		t.Errorf("conclusion %v", back.Conclusion)
	}
	if back.Metrics[0].Verdict != "b" || back.Metrics[1].Verdict != "needs more runs" {
		t.Errorf("verdicts %+v", back.Metrics)
	}
}
