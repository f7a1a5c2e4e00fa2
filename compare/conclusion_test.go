package compare

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestConclude: every outcome, the side that wins and the metrics behind
// it, from the verdicts, the contract and the correctness status.
func TestConclude(t *testing.T) {
	m := func(name string, v Verdict) Metric { return Metric{Name: name, Verdict: v} }
	ok := Correctness{Checked: true, Passed: true, Requests: 4, ExactMatch: 4, Quality: "not-run"}
	wins := []Metric{m("ttft_ms_p50", VerdictB), m("tpot_ms_p50", VerdictSame), m("output_throughput", VerdictB)}
	for _, tc := range []struct {
		name    string
		rep     Report
		outcome Outcome
		winner  string
		prefix  string
	}{
		{"winner", Report{Comparable: true, Correctness: ok, Metrics: wins}, OutcomeWinner, "b", "B is faster: better on 2 of 3 metrics"},
		{"winner a", Report{Comparable: true, Metrics: []Metric{m("e2e_ms_p50", VerdictA), m("tpot_ms_p50", NeedsMoreRuns)}}, OutcomeWinner, "a", "A is faster: better on 1 of 2"},
		{"mixed", Report{Comparable: true, Metrics: []Metric{m("ttft_ms_p50", VerdictB), m("tpot_ms_p50", VerdictA)}}, OutcomeMixed, "", "MIXED: A is better on 1 metric(s) (tpot_ms (p50)), B on 1 (ttft_ms (p50))"},
		{"needs more runs", Report{Comparable: true, Metrics: []Metric{m("ttft_ms_p50", NeedsMoreRuns), m("tpot_ms_p50", VerdictSame)}}, OutcomeNeedsMoreRuns, "", "NO VERDICT YET: no metric differs significantly and 1 of 2"},
		{"no difference", Report{Comparable: true, Metrics: []Metric{m("ttft_ms_p50", VerdictSame)}}, OutcomeNoDifference, "", "NO DIFFERENCE FOUND"},
		{"no verdict", Report{Comparable: true}, OutcomeNoVerdict, "", "NO VERDICT: no metric could be compared."},
		{"not comparable beats a win", Report{Comparable: false, NotComparable: []string{"manifest.model"}, Metrics: wins}, OutcomeNotComparable, "", "NOT COMPARABLE: manifest.model differs without"},
		{"not valid beats a win", Report{Comparable: true, Correctness: Correctness{Quality: "fail"}, Metrics: wins}, OutcomeNotValid, "", "NOT VALID: the quality check failed;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Conclude(&tc.rep)
			if c.Outcome != tc.outcome || c.Winner != tc.winner || !strings.HasPrefix(c.Sentence, tc.prefix) {
				t.Errorf("Conclude = %+v; want outcome %s, winner %q, sentence starting %q", c, tc.outcome, tc.winner, tc.prefix)
			}
			var n int
			for _, g := range [][]string{c.BetterA, c.BetterB, c.Same, c.NeedMoreRuns} {
				n += len(g)
			}
			if n != len(tc.rep.Metrics) {
				t.Errorf("the groups hold %d metrics, the report %d", n, len(tc.rep.Metrics))
			}
		})
	}
	c := Conclude(&Report{Comparable: true, Correctness: ok, Metrics: wins})
	if !slices.Equal(c.BetterB, []string{"ttft_ms_p50", "output_throughput"}) || !slices.Equal(c.Same, []string{"tpot_ms_p50"}) ||
		len(c.BetterA) != 0 || c.BetterA == nil {
		t.Errorf("groups %+v", c)
	}
}

// TestConclusionInJSON: report.json carries the conclusion as an object,
// and a verdict keeps its spelling.
func TestConclusionInJSON(t *testing.T) {
	rep := &Report{Comparable: true, Metrics: []Metric{{Name: "ttft_ms_p50", Verdict: VerdictB}, {Name: "tpot_ms_p50", Verdict: NeedsMoreRuns}}}
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
