package classify

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/servecmp/servecmp/rules"
)

// manyRanks is how many saved rank summaries TestMergeManyFiles merges.
const manyRanks = 1024

// generatedRank returns the summary of rank i of a generated job: a
// distinct busy profile per rank, names unmapped unmapped names and shapes
// shapes spread over the regions, some warnings shared by every rank.
func generatedRank(i int, rng *rand.Rand, unmapped, shapes int) *RankSummary {
	window := int64(10_000_000_000)
	s := &RankSummary{Rank: fmt.Sprint(i), Source: fmt.Sprintf("/job/rank%04d.sqlite", i), Format: "nsys", Device: int32(i % 8),
		PID: int64(1000 + i/8), GPU: "NVIDIA H100 80GB HBM3", Host: fmt.Sprintf("node%03d", i/8), ToolVersion: "2024.6.2.25",
		WindowEndNs: window, WindowNs: window, WindowFrom: "capture", Work: &Work{Requests: 512, OutputTokens: 65536}}
	var busy int64
	for _, r := range rules.Regions {
		b := 100_000_000 + rng.Int64N(900_000_000)
		s.Regions = append(s.Regions, RegionSummary{Region: r.String(), Count: 1000 + rng.Int64N(9000), SumNs: b + rng.Int64N(b/4), BusyNs: b})
		busy += b
		if r == rules.Communication {
			s.CommBusyNs = b
		}
	}
	s.DeviceWorkBusyNs, s.DeviceWorkSumNs, s.NonCommBusyNs = busy, busy+busy/5, busy-s.CommBusyNs
	s.SumMinusBusyNs = busy / 5
	for _, r := range s.Regions {
		s.DeviceWork += r.Count
	}
	s.Kernels, s.KernelSumNs, s.KernelBusyNs = s.DeviceWork, s.DeviceWorkSumNs, busy
	s.Coverage.ByMethod = []MethodStat{{Method: ByName.String(), Count: s.DeviceWork / 2, SumNs: s.DeviceWorkSumNs / 2},
		{Method: Unmapped.String(), Count: s.DeviceWork - s.DeviceWork/2, SumNs: s.DeviceWorkSumNs - s.DeviceWorkSumNs/2}}
	for j := range unmapped {
		s.UnmappedTop = append(s.UnmappedTop, NameStat{Name: fmt.Sprintf("void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_%dx%d_32x4_nn_align8>(Params)", j, i%7),
			Count: 1 + rng.Int64N(1000), SumNs: rng.Int64N(10_000_000)})
	}
	for j := range shapes {
		s.Shapes = append(s.Shapes, ShapeStat{Region: rules.Regions[j%len(rules.Regions)].String(), Grid: [3]int32{int32(1 + j), 1, 1},
			Block: [3]int32{128, 1, 1}, Count: 1 + rng.Int64N(1000), SumNs: rng.Int64N(10_000_000)})
	}
	s.Warnings = []string{fmt.Sprintf("rank %d: hint: capture with --cuda-graph-trace=node", i), "every rank: the same warning"}
	return s
}

// writeJob writes manyRanks one-rank summaries under dir, a few with a
// report-level warning, and returns their paths and total size.
func writeJob(t *testing.T, dir string, unmapped, shapes int) ([]string, int64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	var paths []string
	var total int64
	for i := range manyRanks {
		r, err := NewReport("digest", []*RankSummary{generatedRank(i, rng, unmapped, shapes)})
		if err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 {
			r.AddWarnings(fmt.Sprintf("/job/rank%04d.sqlite: dropped 3 kernels with invalid timestamps", i))
		}
		var b bytes.Buffer
		if err := r.WriteSummary(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("rank%04d.json", i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		total += int64(b.Len())
	}
	// the inputs in an order that is not the result's
	rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	return paths, total
}

func jsonOf(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestMergeManyFiles merges 1,024 saved rank summaries: folded one report
// at a time (Merger) it equals the reference merge (Merge of them all),
// bottleneck rank and across-rank spreads included; read from the files
// one at a time and trimmed to the top 10 while reading (MergeFiles), it
// equals the reference trimmed, and holds less than the stated bound per
// rank, whatever the length of the inputs' lists.
func TestMergeManyFiles(t *testing.T) {
	const unmapped, shapes, keep = 40, 20, 10
	paths, total := writeJob(t, t.TempDir(), unmapped, shapes)
	top, held := mergeHeld(t, paths, keep)
	// The bound (Merger): per rank its counters, regions, methods and
	// warnings, keep names and keep shapes per region. 24 KiB per rank is
	// several times what they take; the inputs' lists are far larger.
	perRank := held / manyRanks
	t.Logf("%d summaries, %d bytes of input: the merge trimmed to %d holds %d bytes (%d per rank)", manyRanks, total, keep, held, perRank)
	if perRank > 24<<10 || perRank <= 0 {
		t.Errorf("the merge holds %d bytes per rank, outside (0, 24 KiB]", perRank)
	}

	var all []*Report
	for _, p := range paths {
		r, err := ReadSummaryFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	ref, err := Merge(all...)
	if err != nil {
		t.Fatal(err)
	}
	m := &Merger{}
	for _, r := range all {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := m.Report()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(whole, ref) {
		t.Fatal("the merge folded one report at a time differs from the reference")
	}
	if len(whole.Ranks) != manyRanks || whole.AcrossRanks.Ranks != manyRanks || whole.BottleneckRank == "" || len(whole.Warnings) != 1+manyRanks+11 {
		t.Fatalf("ranks %d, across %+v, bottleneck %q, %d warnings", len(whole.Ranks), whole.AcrossRanks, whole.BottleneckRank, len(whole.Warnings))
	}
	if got, want := jsonOf(t, top.Trim(keep)), jsonOf(t, ref.Trim(keep)); got != want {
		t.Fatal("merge trimmed while reading differs from the reference trimmed")
	}
}

// mergeHeld merges paths keeping keep entries per list and returns the
// result with the live heap it holds.
func mergeHeld(t *testing.T, paths []string, keep int) (*Report, int64) {
	before := liveHeap()
	r, err := MergeFiles(paths, keep)
	if err != nil {
		t.Fatal(err)
	}
	held := liveHeap() - before
	runtime.KeepAlive(r)
	return r, held
}

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestMergerRefuses: a Merger refuses what Merge refuses, naming the
// file in MergeFiles.
func TestMergerRefuses(t *testing.T) {
	a, _ := NewReport("d1", []*RankSummary{rankSummary("a", 10, 5, 1)})
	b, _ := NewReport("d2", []*RankSummary{rankSummary("b", 10, 5, 1)})
	m := &Merger{}
	if _, err := m.Report(); err == nil {
		t.Error("empty merge: no error")
	}
	if err := m.Add(a); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(b); err == nil {
		t.Error("different rules merged")
	}
	m = &Merger{Keep: 3}
	m.Add(a)
	if err := m.Add(a); err == nil {
		t.Error("duplicate label merged")
	}
}
