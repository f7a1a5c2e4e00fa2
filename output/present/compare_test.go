package present

import (
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/output/table"
)

func TestHeadlineNotComparable(t *testing.T) {
	rep := &compare.Report{NotComparable: []string{"manifest.model"}, Phase: "steady state",
		Workload:    compare.WorkloadInfo{SHA256A: strings.Repeat("a", 64), SHA256B: "", CountA: 10, LoadA: "concurrency 2", LoadB: "concurrency 4"},
		Correctness: compare.Correctness{Checked: true, Requests: 4, ExactMatch: 3, Failed: 1, Evidence: "token_ids", Quality: "not-run"},
		RunsA:       []string{"a.json"}}
	want := []string{
		"NOT COMPARABLE: manifest.model differs",
		"metrics are shown but no claim that one system is faster holds across these differences",
		"workload: sha256 aaaaaaaaaaaaaaaa… (A) vs - (B), 10 requests",
		"load: A concurrency 2; B concurrency 4",
		"phase: steady state",
		"runs: A 1, B 0, order unknown",
		"intentional differences: none declared",
		"correctness: FAILED, 3/4 requests match exactly (evidence: token_ids; 1 failed)",
		"quality: not-run",
	}
	if got := Headline(rep); !slices.Equal(got, want) {
		t.Errorf("Headline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLayers: the text layout splits the tables where layer 1 ends, with
// and without server metrics and sweeps.
func TestLayers(t *testing.T) {
	rep := &compare.Report{Server: []compare.ServerMetric{{Name: "kv"}}, Sweeps: []compare.SweepCurve{{Side: "a"}, {Side: "b"}},
		GPU: &compare.GPUTime{A: &compare.SideGPU{}, Note: compare.CausalNote}}
	ts := Comparison(rep)
	n := layer1Count(rep)
	var names []string
	for _, tb := range ts {
		names = append(names, tb.Name)
	}
	if n != 7 || names[n-1] != "sweep_b" || names[n] != "regions_a" {
		t.Errorf("layer 1 has %d tables of %v", n, names)
	}
	var b strings.Builder
	if err := WriteComparison(&b, rep, "text"); err != nil {
		t.Fatal(err)
	}
	l2 := strings.Index(b.String(), "== Layer 2")
	if l2 < 0 || strings.Index(b.String(), "Sweep B") > l2 || strings.Index(b.String(), "GPU time by region, A") < l2 {
		t.Errorf("layers out of place:\n%s", b.String())
	}
	if err := WriteComparison(&b, rep, "yaml"); err == nil {
		t.Error("WriteComparison accepted format yaml")
	}
}

func TestLaunchDims(t *testing.T) {
	if got := LaunchDims([3]int32{132, 1, 1}); got != "132x1x1" {
		t.Errorf("LaunchDims = %q", got)
	}
}

func TestRunOrder(t *testing.T) {
	tests := []struct {
		d    compare.Design
		want string
	}{
		{compare.Design{Layout: "interleaved", Counterbalanced: true, Paired: true}, "interleaved in counterbalanced pairs (paired analysis)"},
		{compare.Design{Layout: "interleaved", Counterbalanced: true}, "interleaved, counterbalanced (unpaired: too few pairs to pair)"},
		{compare.Design{Layout: "interleaved"}, "interleaved, one side first in every pair (unpaired)"},
		{compare.Design{Layout: "blocked"}, "blocked (drift falls on one side)"},
		{compare.Design{Layout: "mixed"}, "mixed order (unpaired)"},
		{compare.Design{Layout: "unknown"}, "order unknown"},
		{compare.Design{}, "order unknown"},
	}
	for _, tc := range tests {
		if got := runOrder(tc.d); got != tc.want {
			t.Errorf("runOrder(%+v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestMetricsColumns: the minimum detectable difference and the runs
// needed are raw numbers, absent (nil) where there is none.
func TestMetricsColumns(t *testing.T) {
	mdd := 51.2
	rep := &compare.Report{Metrics: []compare.Metric{
		{Name: "output_throughput", Verdict: compare.NeedsMoreRuns, MDDPct: &mdd, RunsNeeded: 6, NA: 3, NB: 3},
		{Name: "ttft_ms_p50", Verdict: "b", NA: 3, NB: 3},
	}}
	tb := metricsTable(rep)
	col := func(name string) int {
		return slices.IndexFunc(tb.Columns, func(c table.Column) bool { return c.Name == name })
	}
	im, ir, iv := col("mdd"), col("runs_needed"), col("verdict")
	if im < 0 || ir < 0 || tb.Columns[im].Unit != "%" {
		t.Fatalf("columns %+v", tb.Columns)
	}
	if r := tb.Rows[0]; r[im] != 51.2 || r[ir] != int64(6) || r[iv] != "needs more runs" {
		t.Errorf("row 0: mdd %v, runs_needed %v, verdict %v", r[im], r[ir], r[iv])
	}
	if r := tb.Rows[1]; r[im] != nil || r[ir] != nil {
		t.Errorf("row 1: mdd %v, runs_needed %v; want no values", r[im], r[ir])
	}
}
