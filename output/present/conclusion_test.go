package present

import (
	"strings"
	"testing"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/output/table"
)

func f64(v float64) *float64 { return &v }

// metric builds a compared metric with its verdict and evidence.
func metric(name, unit string, verdict compare.Verdict, a, b, delta, lo, hi, p float64) compare.Metric {
	return compare.Metric{Name: name, Unit: unit, Verdict: verdict, A: a, B: b, DeltaPct: f64(delta), CILow: f64(lo), CIHigh: f64(hi), PValue: f64(p), NA: 3, NB: 3}
}

func moreRuns(name, unit string, need int) compare.Metric {
	m := metric(name, unit, compare.NeedsMoreRuns, 10, 12, 20, -5, 9, 0.3)
	m.RunsNeeded = need
	return m
}

var passed = compare.Correctness{Checked: true, Passed: true, Requests: 8, ExactMatch: 8, Quality: "not-run"}

// headline is the headline compare decides, for hand-built reports.
func headline(outcome, winner string, primary, betterA, betterB []string) *compare.Headline {
	return &compare.Headline{Outcome: outcome, Winner: winner, Procedure: "graph", Alpha: 0.05, Primary: primary, BetterA: betterA, BetterB: betterB}
}

// TestConclusion: compare's sentence first, then the numbers behind it,
// the largest differences first.
func TestConclusion(t *testing.T) {
	prim := []string{"ttft_ms_p50", "tpot_ms_p50", "output_throughput"}
	clear := &compare.Report{Comparable: true, Alpha: 0.05, Correctness: passed,
		Differences: []compare.Difference{{Field: "manifest.engine", Intentional: true}},
		Metrics: []compare.Metric{
			metric("ttft_ms_mean", "ms", "b", 180, 40, -77.8, -141, -139, 1e-6),
			metric("ttft_ms_p50", "ms", "b", 176.9, 37.39, -78.86, -140.5, -138.9, 1e-300),
			metric("tpot_ms_p50", "ms", "~", 5.3, 5.4, 1.9, -0.4, 0.6, 0.5),
			metric("output_throughput", "tok/s", "b", 1608.4, 3101.8, 92.85, 1416.3, 1570.6, 2e-5),
			metric("request_throughput", "req/s", "b", 16.1, 31.0, 92.85, 14, 16, 2e-5),
			metric("itl_ms_p99", "ms", "a", 20, 24, 20, 1, 7, 0.01),
		},
		Headline: headline(compare.HeadlineWinner, "b", prim, []string{}, []string{"ttft_ms_p50", "output_throughput"}),
		GPU: &compare.GPUTime{Basis: "output_token", Deltas: []compare.RegionDelta{
			{Region: "attention", DeltaPct: f64(-4.0)}, {Region: "ffn", DeltaPct: f64(42.66)}, {Region: "io", DeltaPct: nil}}},
	}
	clear.Metrics[1].PAdjusted, clear.Metrics[3].PAdjusted = f64(3e-300), f64(6e-5)
	clear.Metrics[4].SameAs = "output_throughput"
	mixed := &compare.Report{Comparable: true, Alpha: 0.1, Correctness: compare.Correctness{Quality: "pass"},
		Metrics: []compare.Metric{
			metric("ttft_ms_p50", "ms", "b", 54.73, 8.333, -84.77, -47.14, -44.79, 1e-5),
			metric("tpot_ms_p50", "ms", "a", 0.4655, 2.141, 359.8, 1.583, 1.757, 0.003),
			moreRuns("output_throughput", "tok/s", 6),
		},
		Headline: headline(compare.HeadlineMixed, "", prim, []string{"tpot_ms_p50"}, []string{"ttft_ms_p50"})}
	mixed.Headline.Alpha = 0.1
	notComparable := &compare.Report{Comparable: false, NotComparable: []string{"manifest.model", "workload.sha256"}, Alpha: 0.05,
		Correctness: compare.Correctness{Quality: "not-run"},
		Metrics:     []compare.Metric{metric("ttft_ms_p50", "ms", "b", 100, 50, -50, -60, -40, 1e-4)},
		Headline:    headline(compare.HeadlineWinner, "b", prim[:1], []string{}, []string{"ttft_ms_p50"})}
	needMore := &compare.Report{Comparable: true, Alpha: 0.05, Correctness: compare.Correctness{Quality: "not-run"},
		Metrics: []compare.Metric{moreRuns("ttft_ms_p50", "ms", 7), moreRuns("ttft_ms_p99", "ms", 16), metric("tpot_ms_p50", "ms", "~", 5, 5, 0, -1, 1, 0.9),
			metric("e2e_ms_mean", "ms", "a", 10, 12, 20, 0.5, 3.5, 0.03)},
		Headline: headline(compare.HeadlineNeedsMoreRuns, "", []string{"ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50"}, []string{}, []string{})}
	confounded := &compare.Report{Comparable: true, Alpha: 0.05, Correctness: compare.Correctness{Quality: "not-run"},
		Metrics:  []compare.Metric{metric("ttft_ms_p50", "ms", "a", 100, 150, 50, 40, 60, 1e-4)},
		Headline: headline(compare.HeadlineConfounded, "", prim[:1], []string{"ttft_ms_p50"}, []string{})}
	confounded.Headline.Drift = []string{"ttft_ms_p50"}
	invalid := &compare.Report{Comparable: true, Alpha: 0.05,
		Correctness: compare.Correctness{Checked: true, Requests: 4, ExactMatch: 3, Failed: 1, Quality: "not-run"},
		Metrics:     []compare.Metric{metric("ttft_ms_p50", "ms", "a", 10, 20, 100, 5, 15, 0.01)},
		Headline:    headline(compare.HeadlineWinner, "a", prim[:1], []string{"ttft_ms_p50"}, []string{})}
	same := &compare.Report{Comparable: true, Alpha: 0.05, Correctness: compare.Correctness{Quality: "not-run"},
		Metrics:  []compare.Metric{metric("ttft_ms_p50", "ms", "~", 10, 10, 0, -1, 1, 0.9)},
		Headline: headline(compare.HeadlineNoDifference, "", prim[:1], []string{}, []string{})}
	tests := []struct {
		name string
		rep  *compare.Report
		want []string
	}{
		{"clear win", clear, []string{
			"B is faster: better on 2 of 3 primary metrics (output_throughput, ttft_ms (p50)), worse on none; a sequentially rejective Bonferroni correction over the 3 primary metrics keeps the chance of a false claim at 5% or less.",
			"B is better on the primary metrics output_throughput, ttft_ms (p50): output_throughput +92.8% (A 1608.4, B 3101.8 tok/s; 95% CI of B−A 1416.3 to 1570.6 tok/s; p < 0.0001, adjusted p < 0.0001); ttft_ms_p50 -78.9% (A 176.9, B 37.39 ms; 95% CI of B−A -140.5 to -138.9 ms; p < 0.0001, adjusted p < 0.0001).",
			"Exploratory (each row tested alone at alpha, not corrected for the number of rows, never deciding the answer; largest first): A better on itl_ms_p99 +20.0%; B better on ttft_ms_mean -77.8%.",
			"Not distinguishable (~): tpot_ms (p50).",
			"Validity: the model, workload, load and resource contract agree (declared intentional: manifest.engine); correctness check PASSED (8/8 exact); quality not-run.",
			"Diagnostic only (layer 2, no causal claim): the largest region shift between the bottleneck ranks is ffn, +42.7% busy time per output token (B vs A).",
		}},
		{"mixed", mixed, []string{
			"MIXED: A is better on 1 primary metric(s) (tpot_ms (p50)), B on 1 (ttft_ms (p50)); neither is faster overall (a sequentially rejective Bonferroni correction over the 3 primary metrics keeps the chance of a false claim at 10% or less).",
			"A is better on the primary metrics tpot_ms (p50): tpot_ms_p50 +359.8% (A 0.4655, B 2.141 ms; 90% CI of B−A 1.583 to 1.757 ms; p = 0.003).",
			"B is better on the primary metrics ttft_ms (p50): ttft_ms_p50 -84.8% (A 54.73, B 8.333 ms; 90% CI of B−A -47.14 to -44.79 ms; p < 0.0001).",
			"Needs more runs (no difference found, but too few runs for their spread): output_throughput; up to 6 runs per side would tell (each row's reason says what they would detect, with what power).",
			"Validity: the model, workload, load and resource contract agree; correctness not checked; quality pass.",
		}},
		{"not comparable", notComparable, []string{
			"NOT COMPARABLE: manifest.model, workload.sha256 differ without being declared intentional; no claim that one system is faster holds across these differences.",
			"B is better on the primary metrics ttft_ms (p50): ttft_ms_p50 -50.0% (A 100, B 50 ms; 95% CI of B−A -60 to -40 ms; p = 0.0001).",
			"Validity: the contract differs (manifest.model, workload.sha256); correctness not checked; quality not-run.",
		}},
		{"needs more runs", needMore, []string{
			"NO VERDICT YET: no primary metric differs after the family-wise correction (a sequentially rejective Bonferroni correction over the 3 primary metrics keeps the chance of a false claim at 5% or less); 2 of 4 metrics need more runs.",
			"Exploratory (each row tested alone at alpha, not corrected for the number of rows, never deciding the answer; largest first): A better on e2e_ms_mean +20.0%.",
			"Not distinguishable (~): tpot_ms (p50).",
			"Needs more runs (no difference found, but too few runs for their spread): ttft_ms (p50, p99); up to 16 runs per side would tell (each row's reason says what they would detect, with what power).",
			"Validity: the model, workload, load and resource contract agree; correctness not checked; quality not-run.",
		}},
		{"confounded", confounded, []string{
			"CONFOUNDED: the runs were not made in counterbalanced pairs, and the per-run values of ttft_ms_p50 drift with the runs' start times; no test can tell that drift from a difference between the systems, so no side is named: interleave the runs (A B, B A, …).",
			"A is better on the primary metrics ttft_ms (p50): ttft_ms_p50 +50.0% (A 100, B 150 ms; 95% CI of B−A 40 to 60 ms; p = 0.0001).",
			"Validity: the model, workload, load and resource contract agree; correctness not checked; quality not-run.",
		}},
		{"no difference", same, []string{
			"NO DIFFERENCE FOUND: A and B are not distinguishable on any primary metric, and the runs could have detected a difference of 10% of A on each.",
			"Not distinguishable (~): ttft_ms (p50).",
			"Validity: the model, workload, load and resource contract agree; correctness not checked; quality not-run.",
		}},
		{"correctness failed", invalid, []string{
			"NOT VALID: the correctness check FAILED (3/4 requests match exactly, 1 failed); the speed verdicts below compare systems that do not produce the same outputs.",
			"A is better on the primary metrics ttft_ms (p50): ttft_ms_p50 +100.0% (A 10, B 20 ms; 95% CI of B−A 5 to 15 ms; p = 0.01).",
			"Validity: the model, workload, load and resource contract agree; correctness check FAILED (3/4 exact); quality not-run.",
		}},
		{"nothing compared", &compare.Report{Comparable: true}, []string{
			"NO VERDICT: no metric could be compared.",
			"Validity: the model, workload, load and resource contract agree; correctness not checked; quality not-run.",
		}},
	}
	for _, tc := range tests {
		tc.rep.Conclusion = compare.Conclude(tc.rep)
		got := Conclusion(tc.rep)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestReportsOpenWithConclusion: text and markdown start with the answer.
func TestReportsOpenWithConclusion(t *testing.T) {
	rep := &compare.Report{Comparable: false, NotComparable: []string{"manifest.model"}}
	rep.Conclusion = compare.Conclude(rep)
	first := Conclusion(rep)[0]
	wrapped := strings.Join(table.Wrap(first, table.WrapWidth, "", "  "), "\n") // text wraps its lines
	for format, prefix := range map[string]string{"text": wrapped + "\n", "markdown": "**" + first + "**\n"} {
		var b strings.Builder
		if err := WriteComparison(&b, rep, format); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), prefix) {
			t.Errorf("%s report opens with %q, want %q", format, strings.SplitN(b.String(), "\n", 2)[0], prefix)
		}
	}
}

// TestConclusionPrintsCompareSentence: the first line is the report's
// own sentence, whatever it says: present never re-derives it.
func TestConclusionPrintsCompareSentence(t *testing.T) {
	rep := &compare.Report{Comparable: true, Conclusion: compare.Conclusion{Outcome: compare.OutcomeWinner, Winner: "a", Sentence: "the sentence compare wrote"}}
	if got := Conclusion(rep)[0]; got != "the sentence compare wrote" {
		t.Errorf("first line %q, want compare's sentence", got)
	}
}
