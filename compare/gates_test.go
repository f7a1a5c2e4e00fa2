package compare

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// allFailed turns a run into one whose every request failed, as a
// benchmark writes it: counts of failures, a completion time (the
// workload did run to its end), no latency samples.
func allFailed(run Run) Run {
	res := *run.Result
	n := res.Summary.RequestsOK
	ct := 3.0
	res.Summary = result.Summary{RequestsFailed: n, FailedByClass: map[string]int{"http_500": n}, DurationS: ct, CompletionTimeS: &ct}
	run.Result = &res
	return run
}

func TestSideWithoutSuccessesGetsNoVerdict(t *testing.T) {
	a, ra := mkSide("a", 1, 2, 50, 10, []float64{1000, 1010})
	b, rb := mkSide("b", 7, 2, 50, 10, []float64{1000, 1010})
	for i := range b {
		b[i] = allFailed(b[i])
	}
	for _, recs := range [][]Records{nil, rb} {
		rep, err := New(Input{A: a, B: b, RecordsA: ra, RecordsB: recs})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Comparable || !slices.Contains(rep.NotComparable, "summary.requests_ok") {
			t.Fatalf("comparable %v, not comparable %v", rep.Comparable, rep.NotComparable)
		}
		for _, m := range rep.Metrics {
			if m.Name == "completion_time_s" || strings.HasPrefix(m.Name, "ttft") || strings.HasPrefix(m.Name, "e2e") || strings.HasPrefix(m.Name, "tpot") {
				t.Errorf("a %s row (verdict %q) for a side with no successful request", m.Name, m.Verdict)
			}
		}
		if !strings.Contains(strings.Join(rep.Warnings, "\n"), "side B has no successful request") {
			t.Errorf("warnings %q", rep.Warnings)
		}
	}
}

func TestResultWithoutSummaryIsRefused(t *testing.T) {
	a, _ := mkSide("a", 1, 2, 50, 10, []float64{1000, 1010})
	b, _ := mkSide("b", 7, 2, 50, 10, []float64{1000, 1010})
	res := *b[1].Result
	res.Summary = result.Summary{}
	b[1].Result = &res
	_, err := New(Input{A: a, B: b})
	if err == nil || !strings.Contains(err.Error(), b[1].Path+": the result has no summary") {
		t.Fatalf("error %v", err)
	}
}

// TestCompareStopsOnCancel: 12 runs a side make the headline use the
// max-T test over random relabellings; with a million of them a
// cancelled context still ends the comparison at once.
func TestCompareStopsOnCancel(t *testing.T) {
	tputs := make([]float64, 12)
	for i := range tputs {
		tputs[i] = 1000 + float64(i)
	}
	a, ra := mkSide("a", 1, 12, 50, 10, tputs)
	b, rb := mkSide("b", 30, 12, 50, 10, tputs)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := NewContext(ctx, Input{A: a, B: b, RecordsA: ra, RecordsB: rb, Resamples: MaxResamples})
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 5*time.Second {
		t.Fatalf("%v after %v", err, time.Since(t0))
	}
	if _, err := New(Input{A: a, B: b, Resamples: MaxResamples + 1}); err == nil {
		t.Fatal("more resamples than MaxResamples accepted")
	}
}

func TestCheckTests(t *testing.T) {
	for _, tc := range []struct {
		alpha     float64
		resamples int
		want      string
	}{
		{0.05, 2000, ""}, {0, 10, "--alpha"}, {1, 10, "--alpha"}, {0.1, 0, "--resamples"}, {0.1, MaxResamples + 1, "--resamples"},
	} {
		err := CheckTests(tc.alpha, tc.resamples)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("CheckTests(%g, %d) = %v; want %q", tc.alpha, tc.resamples, err, tc.want)
		}
	}
}
