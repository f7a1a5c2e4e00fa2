package present

import (
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/compare"
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
		"runs: A 1, B 0",
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
