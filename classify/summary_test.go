package classify

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/rules"
)

// item is a hand-built piece of device work with its label.
type item struct {
	start, end int64
	kind       event.Kind
	name       string
	region     rules.Region
	method     Method
	shape      event.Shape
}

func k(start, end int64, r rules.Region) item {
	return item{start: start, end: end, kind: event.Kernel, name: "k_" + r.String(), region: r, method: ByName}
}

func build(span [2]int64, items []item, ranges ...event.Range) (*event.Rank, []Label) {
	names, shapes := event.NewNames(), event.NewShapes()
	rk := &event.Rank{Source: "t.sqlite", Format: "nsys", PID: 7, Device: 0, Label: "0", LabelFrom: "default",
		SpanStart: span[0], SpanEnd: span[1], Names: names, Shapes: shapes}
	var labels []Label
	for i, it := range items {
		var sh uint32
		if it.shape != (event.Shape{}) {
			sh = shapes.ID(it.shape)
		}
		rk.Work = append(rk.Work, event.Work{Start: it.start, End: it.end, Name: names.ID(it.name), Kind: it.kind,
			Shape: sh, Stream: uint32(i % 3)})
		labels = append(labels, Label{Region: it.region, Method: it.method, Rule: -1})
	}
	rk.Ranges = ranges
	return rk, labels
}

func region(s *RankSummary, name string) RegionSummary {
	for _, r := range s.Regions {
		if r.Region == name {
			return r
		}
	}
	panic("no region " + name)
}

func mustSummarize(t *testing.T, c *event.Capture, rk *event.Rank, l []Label, o Options) *RankSummary {
	t.Helper()
	s, err := Summarize(c, rk, l, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSummarizeOverlappingStreams(t *testing.T) {
	rk, l := build([2]int64{0, 1000}, []item{
		k(0, 100, rules.Attention),
		k(50, 150, rules.Attention), // another stream, overlaps the first
		{start: 200, end: 300, kind: event.Memcpy, name: "[CUDA memcpy Host-to-Device]", region: rules.IO, method: ByName},
	})
	s := mustSummarize(t, nil, rk, l, Options{})
	check := func(name string, got, want int64) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	check("device_work", s.DeviceWork, 3)
	check("device_work_sum_ns", s.DeviceWorkSumNs, 300)
	check("device_work_busy_ns", s.DeviceWorkBusyNs, 250)
	check("sum_minus_busy_ns", s.SumMinusBusyNs, 50)
	check("kernels", s.Kernels, 2)
	check("kernel_sum_ns", s.KernelSumNs, 200)
	check("kernel_busy_ns", s.KernelBusyNs, 150)
	check("multi_region_overlap_ns", s.MultiRegionOverlapNs, 0)
	a := region(s, "attention")
	check("attention count", a.Count, 2)
	check("attention sum", a.SumNs, 200)
	check("attention busy", a.BusyNs, 150)
	check("io busy", region(s, "io").BusyNs, 100)
	check("window_ns", s.WindowNs, 1000)
	if s.BusyShare != 0.25 {
		t.Errorf("busy_share = %v, want 0.25", s.BusyShare)
	}
	if a.SumShare != 200.0/300 || a.BusyShare != 150.0/250 || a.WindowShare != 0.15 {
		t.Errorf("attention shares = %v %v %v", a.SumShare, a.BusyShare, a.WindowShare)
	}
	if s.Coverage.TimeShare != 1 || s.Coverage.CountShare != 1 {
		t.Errorf("coverage = %+v", s.Coverage)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %v", s.Warnings)
	}
}

func TestSummarizeRegionsOverlap(t *testing.T) {
	rk, l := build([2]int64{0, 400}, []item{
		k(0, 100, rules.Attention),
		k(50, 150, rules.Communication),
		k(60, 80, rules.FFN),   // three regions at once in [60, 80)
		k(200, 210, rules.FFN), // alone
		k(205, 230, rules.FFN), // same region: no multi-region overlap
	})
	s := mustSummarize(t, nil, rk, l, Options{})
	if s.MultiRegionOverlapNs != 50 {
		t.Errorf("multi_region_overlap_ns = %d, want 50", s.MultiRegionOverlapNs)
	}
	if s.DeviceWorkBusyNs != 180 {
		t.Errorf("busy = %d, want 180", s.DeviceWorkBusyNs)
	}
	if s.CommBusyNs != 100 || s.NonCommBusyNs != 130 {
		t.Errorf("comm %d non-comm %d, want 100 130", s.CommBusyNs, s.NonCommBusyNs)
	}
	var sumBusy int64
	for _, r := range s.Regions {
		sumBusy += r.BusyNs
	}
	// attention 100 + comm 100 + ffn 20+30 = 250; busy 180; the excess 70 is
	// the 50 ns of two-or-more regions plus 20 ns where a third joins.
	if sumBusy != 250 {
		t.Errorf("Σ region busy = %d, want 250", sumBusy)
	}
}

// TestSweepAgainstBruteForce checks the one-pass sweep against counting
// every nanosecond.
func TestSweepAgainstBruteForce(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		var items []item
		n := rnd.IntN(12)
		for range n {
			s := rnd.Int64N(100)
			it := k(s, s+rnd.Int64N(30), rules.Regions[rnd.IntN(rules.NumRegions)])
			if rnd.IntN(4) == 0 {
				it.kind = event.Memset
			}
			items = append(items, it)
		}
		if trial%2 == 0 {
			// In start order, the work goes straight to the sweeper.
			slices.SortFunc(items, func(a, b item) int { return int(a.start - b.start) })
		}
		win := [2]int64{rnd.Int64N(20), 100 + rnd.Int64N(40)}
		rk, l := build([2]int64{0, 200}, items)
		s := mustSummarize(t, nil, rk, l, Options{Window: WindowSpec{Explicit: true, Start: win[0], End: win[1]}})
		var busy, kbusy, multi, noncomm int64
		var reg [rules.NumRegions]int64
		for ts := win[0]; ts < win[1]; ts++ {
			var in [rules.NumRegions]bool
			any, kern, nc := false, false, false
			for _, it := range items {
				if it.start <= ts && ts < it.end {
					any = true
					in[it.region] = true
					kern = kern || it.kind == event.Kernel
					nc = nc || it.region != rules.Communication
				}
			}
			c := 0
			for r, b := range in {
				if b {
					c++
					reg[r]++
				}
			}
			if any {
				busy++
			}
			if kern {
				kbusy++
			}
			if nc {
				noncomm++
			}
			if c >= 2 {
				multi++
			}
		}
		if s.DeviceWorkBusyNs != busy || s.KernelBusyNs != kbusy || s.MultiRegionOverlapNs != multi || s.NonCommBusyNs != noncomm {
			t.Fatalf("trial %d: got busy %d kernel %d multi %d noncomm %d; want %d %d %d %d; items %v window %v",
				trial, s.DeviceWorkBusyNs, s.KernelBusyNs, s.MultiRegionOverlapNs, s.NonCommBusyNs, busy, kbusy, multi, noncomm, items, win)
		}
		for r := range reg {
			if s.Regions[r].BusyNs != reg[r] {
				t.Fatalf("trial %d: region %d busy %d, want %d", trial, r, s.Regions[r].BusyNs, reg[r])
			}
		}
	}
}

func TestSummarizeWindowClip(t *testing.T) {
	rk, l := build([2]int64{0, 1000}, []item{
		k(0, 100, rules.Attention),   // clipped to [50, 100)
		k(100, 200, rules.Attention), // clipped to [100, 120)
		k(130, 140, rules.FFN),       // outside
		k(60, 60, rules.FFN),         // zero length inside: counted, no time
		k(40, 50, rules.FFN),         // ends at the window start: outside
	})
	s := mustSummarize(t, nil, rk, l, Options{Window: WindowSpec{Explicit: true, Start: 50, End: 120}})
	if s.WindowStartNs != 50 || s.WindowEndNs != 120 || s.WindowNs != 70 || s.WindowFrom != "range" {
		t.Errorf("window = %d..%d (%d) from %s", s.WindowStartNs, s.WindowEndNs, s.WindowNs, s.WindowFrom)
	}
	if s.DeviceWork != 3 || s.DeviceWorkSumNs != 70 || s.DeviceWorkBusyNs != 70 || s.BusyShare != 1 {
		t.Errorf("count %d sum %d busy %d share %v; want 3 70 70 1", s.DeviceWork, s.DeviceWorkSumNs, s.DeviceWorkBusyNs, s.BusyShare)
	}
	if f := region(s, "ffn"); f.Count != 1 || f.SumNs != 0 {
		t.Errorf("ffn = %+v", f)
	}
	// Skips trim the capture span.
	s = mustSummarize(t, nil, rk, l, Options{Window: WindowSpec{SkipStart: 100, SkipEnd: 850}})
	if s.WindowStartNs != 100 || s.WindowEndNs != 150 || s.DeviceWorkSumNs != 60 {
		t.Errorf("skip window %d..%d sum %d", s.WindowStartNs, s.WindowEndNs, s.DeviceWorkSumNs)
	}
	if _, err := Summarize(nil, rk, l, Options{Window: WindowSpec{SkipStart: 600, SkipEnd: 600}}); err == nil {
		t.Error("empty window: no error")
	}
	// Nothing inside: a warning, not an error.
	s = mustSummarize(t, nil, rk, l, Options{Window: WindowSpec{Explicit: true, Start: 500, End: 600}})
	if s.DeviceWork != 0 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "no device work") {
		t.Errorf("empty: %d work, warnings %v", s.DeviceWork, s.Warnings)
	}
}

func TestSummarizeWindowKinetoOrigin(t *testing.T) {
	rk, l := build([2]int64{5_000, 6_000}, []item{k(5_000, 5_400, rules.FFN), k(5_600, 5_800, rules.FFN)})
	c := &event.Capture{Format: "kineto", SessionStart: 5_000, Ranks: []*event.Rank{rk}}
	s := mustSummarize(t, c, rk, l, Options{Window: WindowSpec{Explicit: true, Start: 500, End: 1000}})
	if s.WindowStartNs != 5_500 || s.WindowEndNs != 6_000 || s.DeviceWorkSumNs != 200 {
		t.Errorf("kineto window %d..%d sum %d", s.WindowStartNs, s.WindowEndNs, s.DeviceWorkSumNs)
	}
	c.Format, c.SessionStart = "nsys", 0 // session time: the same window lies before the span
	if _, err := Summarize(c, rk, l, Options{Window: WindowSpec{Explicit: true, Start: 500, End: 1000}}); err == nil {
		t.Error("nsys window outside the span: no error")
	}
}

func TestSummarizeWindowNVTX(t *testing.T) {
	names := []string{"warmup", "steady", "steady"}
	rk, l := build([2]int64{0, 1000}, []item{k(0, 1000, rules.FFN)})
	for i, n := range names {
		rk.Ranges = append(rk.Ranges, event.Range{Start: int64(100 * (i + 1)), End: int64(100*(i+1) + 50), Text: rk.Names.ID(n), Kind: event.NVTX})
	}
	rk.Ranges = append(rk.Ranges, event.Range{Start: 900, End: 950, Text: rk.Names.ID("steady"), Kind: event.PythonFrame})
	s := mustSummarize(t, nil, rk, l, Options{Window: WindowSpec{NVTX: regexp.MustCompile(`^steady$`)}})
	if s.WindowStartNs != 200 || s.WindowEndNs != 350 || s.WindowFrom != "nvtx" || s.DeviceWorkSumNs != 150 {
		t.Errorf("nvtx window %d..%d from %s sum %d", s.WindowStartNs, s.WindowEndNs, s.WindowFrom, s.DeviceWorkSumNs)
	}
	if _, err := Summarize(nil, rk, l, Options{Window: WindowSpec{NVTX: regexp.MustCompile(`nope`)}}); err == nil ||
		!strings.Contains(err.Error(), "t.sqlite") {
		t.Errorf("no match: err %v", err)
	}
}

func TestSummarizeGraphWarning(t *testing.T) {
	rk, l := build([2]int64{0, 10}, []item{k(0, 5, rules.FFN)})
	c := &event.Capture{GraphTraceMode: "graph", Warnings: []string{"dropped 2 rows with end < start"}}
	s := mustSummarize(t, c, rk, l, Options{})
	// The capture's own warnings are reported once per file, by the caller.
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "--cuda-graph-trace=node") {
		t.Errorf("warnings %q", s.Warnings)
	}
	c.GraphTraceMode = "node"
	if s := mustSummarize(t, c, rk, l, Options{}); len(s.Warnings) != 0 {
		t.Errorf("node mode warnings %q", s.Warnings)
	}
	// Graph mode, but the launch calls were read and none launched a graph:
	// no kernel is missing, so no warning.
	c.GraphTraceMode = "graph"
	rk.Launches = []event.Launch{{Start: 0, End: 1, Correlation: 1, Name: rk.Names.ID("cudaLaunchKernel")}}
	if s := mustSummarize(t, c, rk, l, Options{}); len(s.Warnings) != 0 {
		t.Errorf("graph mode without graph launches: warnings %q", s.Warnings)
	}
	rk.Launches = append(rk.Launches, event.Launch{Start: 2, End: 3, Correlation: 2, Name: rk.Names.ID("cudaGraphLaunch")})
	if s := mustSummarize(t, c, rk, l, Options{}); len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "--cuda-graph-trace=node") {
		t.Errorf("graph mode with graph launches: warnings %q", s.Warnings)
	}
}

func iterRank() (*event.Rank, []Label) {
	rk, l := build([2]int64{0, 1000}, []item{
		k(0, 100, rules.Attention),
		k(100, 500, rules.FFN),
	})
	add := func(start int64, text string, kind event.RangeKind) {
		rk.Ranges = append(rk.Ranges, event.Range{Start: start, End: start + 10, Text: rk.Names.ID(text), Kind: kind})
	}
	add(10, "execute_context_2(300)_generation_5(5)", event.NVTX)
	add(20, "execute_context_0(0)_generation_8(8)", event.NVTX)
	add(30, "execute_context_0(0)_generation_8(8)", event.Annotation)
	add(40, "execute_context_0(0)_generation_8(8)", event.PythonFrame) // not a host range kind we read
	add(50, "something else", event.NVTX)
	add(990, "execute_context_1(4)_generation_0(0)", event.NVTX)
	return rk, l
}

func TestSummarizeIterations(t *testing.T) {
	rk, l := iterRank()
	s := mustSummarize(t, nil, rk, l, Options{Window: WindowSpec{Explicit: true, Start: 0, End: 900}})
	it := s.Iterations
	if it == nil {
		t.Fatal("no iterations")
	}
	if it.Count != 3 || it.CtxRequests != 2 || it.CtxTokens != 300 || it.GenTokens != 21 || it.GenRequests != 21 {
		t.Errorf("iterations %+v", it)
	}
	if it.Prefill != (IterMix{Iterations: 1, CtxRequests: 2, CtxTokens: 300, GenRequests: 5, GenTokens: 5}) ||
		it.Decode != (IterMix{Iterations: 2, GenRequests: 16, GenTokens: 16}) {
		t.Errorf("mix prefill %+v decode %+v", it.Prefill, it.Decode)
	}
	wantHist := []Bucket{{Lo: 8, Hi: 16, Count: 2}, {Lo: 256, Hi: 512, Count: 1}}
	if !slices.Equal(it.TokensHistogram, wantHist) {
		t.Errorf("histogram %v, want %v", it.TokensHistogram, wantHist)
	}
	// Work from iterations: requests = Σ ctx_reqs, output = Σ gen_tokens + Σ ctx_reqs.
	if w := s.Work; w == nil || *w != (Work{Requests: 2, OutputTokens: 23, InputTokens: 300, From: "iterations"}) {
		t.Errorf("work %+v", s.Work)
	}
	f := region(s, "ffn")
	if f.BusyPerRequestNs == nil || *f.BusyPerRequestNs != 200 || *f.SumPerOutputTokenNs != 400.0/23 {
		t.Errorf("ffn per work %v %v", f.BusyPerRequestNs, f.SumPerOutputTokenNs)
	}
	// A user pattern with only some groups; a missing group counts 0. Without
	// ctx_tokens nothing tells prefill from decode: no split is claimed.
	s = mustSummarize(t, nil, rk, l, Options{Iteration: regexp.MustCompile(`generation_\d+\((?P<gen_tokens>\d+)\)`)})
	if s.Iterations.Count != 4 || s.Iterations.GenTokens != 21 || s.Iterations.Decode.Iterations != 0 || s.Iterations.Prefill.Iterations != 0 ||
		len(s.Iterations.TokensHistogram) != 3 || s.Work == nil || s.Work.OutputTokens != 21 {
		t.Errorf("custom pattern %+v, work %+v", s.Iterations, s.Work)
	}
	// A pattern without count groups only counts iterations: no token
	// histogram, no prefill/decode split, and no per-work figures (all
	// would divide by zero).
	s = mustSummarize(t, nil, rk, l, Options{Iteration: regexp.MustCompile(`^execute_`)})
	if s.Iterations.Count != 4 || s.Iterations.Decode.Iterations != 0 || len(s.Iterations.TokensHistogram) != 0 || s.Work != nil {
		t.Errorf("pattern without groups %+v, work %+v", s.Iterations, s.Work)
	}
}

func TestSummarizeWorkFlag(t *testing.T) {
	rk, l := iterRank()
	w, err := ParseWork("requests=4, output_tokens=100")
	if err != nil {
		t.Fatal(err)
	}
	s := mustSummarize(t, nil, rk, l, Options{Work: w})
	if *s.Work != (Work{Requests: 4, OutputTokens: 100, From: "flag"}) {
		t.Errorf("work %+v", s.Work)
	}
	a := region(s, "attention")
	if *a.BusyPerRequestNs != 25 || *a.BusyPerOutputTokenNs != 1 {
		t.Errorf("attention per work %v %v", *a.BusyPerRequestNs, *a.BusyPerOutputTokenNs)
	}
	// No work known: per-work figures are absent.
	rk2, l2 := build([2]int64{0, 10}, []item{k(0, 5, rules.FFN)})
	s = mustSummarize(t, nil, rk2, l2, Options{Work: &Work{Requests: 3}})
	if f := region(s, "ffn"); f.BusyPerRequestNs == nil || f.BusyPerOutputTokenNs != nil {
		t.Errorf("partial work: %+v", f)
	}
	s = mustSummarize(t, nil, rk2, l2, Options{})
	if s.Work != nil || region(s, "ffn").SumPerRequestNs != nil {
		t.Errorf("no work: %+v", s.Work)
	}
}

func TestParseWork(t *testing.T) {
	for _, bad := range []string{"", "requests", "requests=-1", "requests=x", "tokens=3", "requests=1,requests=2"} {
		if _, err := ParseWork(bad); err == nil {
			t.Errorf("ParseWork(%q): no error", bad)
		}
	}
	w, err := ParseWork("input_tokens=7,requests=2,output_tokens=9")
	if err != nil || *w != (Work{Requests: 2, OutputTokens: 9, InputTokens: 7}) {
		t.Errorf("got %+v %v", w, err)
	}
}

func TestSummarizeCoverageUnmappedShapes(t *testing.T) {
	big, small := event.Shape{Grid: [3]int32{128, 1, 1}, Block: [3]int32{256, 1, 1}}, event.Shape{Grid: [3]int32{1, 1, 1}, Block: [3]int32{32, 1, 1}}
	rk, l := build([2]int64{0, 1000}, []item{
		{start: 0, end: 100, kind: event.Kernel, name: "gemm", region: rules.FFN, method: ByName, shape: big},
		{start: 100, end: 150, kind: event.Kernel, name: "gemm", region: rules.FFN, method: ByPosition, shape: small},
		{start: 150, end: 250, kind: event.Kernel, name: "gemm", region: rules.FFN, method: ByName, shape: big},
		{start: 300, end: 340, kind: event.Kernel, name: "mystery", region: rules.Other, method: Unmapped, shape: small},
		{start: 340, end: 350, kind: event.Kernel, name: "riddle", region: rules.Other, method: Unmapped},
		{start: 350, end: 360, kind: event.Kernel, name: "riddle", region: rules.Other, method: Unmapped},
	})
	s := mustSummarize(t, nil, rk, l, Options{})
	if s.Coverage.TimeShare != 250.0/310 || s.Coverage.CountShare != 0.5 {
		t.Errorf("coverage %v %v", s.Coverage.TimeShare, s.Coverage.CountShare)
	}
	byM := map[string]MethodStat{}
	for _, m := range s.Coverage.ByMethod {
		byM[m.Method] = m
	}
	if len(s.Coverage.ByMethod) != NumMethods || byM["name"].SumNs != 200 || byM["position"].Count != 1 || byM["unmapped"].SumNs != 60 {
		t.Errorf("by method %+v", s.Coverage.ByMethod)
	}
	want := []NameStat{{Name: "mystery", Count: 1, SumNs: 40, TimeShare: 40.0 / 310}, {Name: "riddle", Count: 2, SumNs: 20, TimeShare: 20.0 / 310}}
	if !slices.Equal(s.UnmappedTop, want) {
		t.Errorf("unmapped %+v", s.UnmappedTop)
	}
	if len(s.Shapes) != 3 || s.Shapes[0].Region != "ffn" || s.Shapes[0].Grid != big.Grid || s.Shapes[0].SumNs != 200 ||
		s.Shapes[0].TimeShare != 0.8 || s.Shapes[1].Count != 1 || s.Shapes[2].Region != "other" {
		t.Errorf("shapes %+v", s.Shapes)
	}
}

func TestSummarizeLabelMismatch(t *testing.T) {
	rk, l := build([2]int64{0, 10}, []item{k(0, 5, rules.FFN)})
	if _, err := Summarize(nil, rk, l[:0], Options{}); err == nil {
		t.Error("no error")
	}
	// Out-of-range labels are folded, not a panic.
	l[0] = Label{Region: 99, Method: 42}
	s := mustSummarize(t, nil, rk, l, Options{})
	if region(s, "other").Count != 1 || s.Coverage.CountShare != 0 {
		t.Errorf("folded labels: %+v", s.Coverage)
	}
}

func rankSummary(label string, busy, comm int64, work int64) *RankSummary {
	rk, l := build([2]int64{0, 1000}, []item{k(0, busy, rules.FFN), k(busy, busy+comm, rules.Communication)})
	rk.Label = label
	rk.Source = "node-" + label + ".sqlite"
	s, err := Summarize(nil, rk, l, Options{Work: &Work{Requests: work, OutputTokens: 10 * work}})
	if err != nil {
		panic(err)
	}
	s.Warnings = append(s.Warnings, "rank "+label+": test")
	return s
}

func TestReportBottleneck(t *testing.T) {
	r, err := NewReport("d1", []*RankSummary{rankSummary("10", 300, 100, 4), rankSummary("2", 500, 50, 4), rankSummary("1", 200, 400, 4)})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, s := range r.Ranks {
		labels = append(labels, s.Rank)
	}
	if !slices.Equal(labels, []string{"1", "2", "10"}) {
		t.Errorf("order %v", labels)
	}
	if r.BottleneckRank != "2" {
		t.Errorf("bottleneck %s, want 2", r.BottleneckRank)
	}
	a := r.AcrossRanks
	if a.NonCommBusyNs.Max != 500 || a.NonCommBusyNs.Min != 200 || a.NonCommBusyNs.MinRank != "1" ||
		a.CommBusyNs.Mean != 550.0/3 || a.BusyNs.Max != 600 {
		t.Errorf("across %+v", a)
	}
	if len(r.Notes) != 0 {
		t.Errorf("notes %v", r.Notes)
	}
	r, _ = NewReport("d1", []*RankSummary{rankSummary("a", 1, 1, 4), rankSummary("b", 1, 1, 5)})
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "different amounts of work") {
		t.Errorf("notes %v", r.Notes)
	}
	if _, err := NewReport("d1", []*RankSummary{rankSummary("a", 1, 1, 4), rankSummary("a", 1, 1, 4)}); err == nil ||
		!strings.Contains(err.Error(), `"a"`) {
		t.Errorf("duplicate: %v", err)
	}
}

func encode(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestMergeLaws(t *testing.T) {
	mk := func(digest string, labels ...string) *Report {
		var ss []*RankSummary
		for i, l := range labels {
			ss = append(ss, rankSummary(l, int64(100+37*i+len(l)), int64(10*i), int64(i+1)))
		}
		r, err := NewReport(digest, ss)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b, c := mk("d", "0", "1"), mk("d", "2"), mk("d", "3", "10", "x")
	m := func(rs ...*Report) string {
		t.Helper()
		r, err := Merge(rs...)
		if err != nil {
			t.Fatal(err)
		}
		return encode(t, r)
	}
	ab, _ := Merge(a, b)
	bc, _ := Merge(b, c)
	left, right := m(ab, c), m(a, bc)
	if left != right {
		t.Errorf("not associative:\n%s\n%s", left, right)
	}
	if flat := m(a, b, c); flat != left {
		t.Error("Merge(a,b,c) differs from Merge(Merge(a,b),c)")
	}
	if swapped := m(c, a, b); swapped != left {
		t.Error("not commutative")
	}
	// Round trip through a saved summary.
	got, err := ReadSummary(strings.NewReader(left))
	if err != nil {
		t.Fatal(err)
	}
	if encode(t, got) != left {
		t.Error("ReadSummary(WriteSummary(r)) differs")
	}
	if len(got.Ranks) != 6 || got.Schema != SummarySchema {
		t.Errorf("round trip: %d ranks, schema %q", len(got.Ranks), got.Schema)
	}

	if _, err := Merge(a, mk("other", "5")); err == nil || !strings.Contains(err.Error(), "different rules") {
		t.Errorf("digest: %v", err)
	}
	if _, err := Merge(a, mk("d", "1")); err == nil || !strings.Contains(err.Error(), `"1"`) {
		t.Errorf("duplicate: %v", err)
	}
}

func TestReadReportJSON(t *testing.T) {
	r, _ := NewReport("d", []*RankSummary{rankSummary("a", 10, 5, 1)})
	var b bytes.Buffer
	r.WriteJSON(&b)
	if _, err := ReadSummary(bytes.NewReader(b.Bytes())); err == nil {
		t.Error("ReadSummary accepted --format json output")
	}
	got, err := ReadReport(bytes.NewReader(b.Bytes()))
	if err != nil || len(got.Ranks) != 1 || got.Ranks[0].NonCommBusyNs != 10 || got.BottleneckRank != "a" {
		t.Errorf("ReadReport: %v %+v", err, got)
	}
}

func TestReadSummaryErrors(t *testing.T) {
	for _, in := range []string{"", "{", `{"schema":"other"}`, `[1,2]`, `{"schema":"servecmp.summary/1","ranks":[null]}`, `{"schema":"servecmp.summary/1"}`} {
		if _, err := ReadSummary(strings.NewReader(in)); err == nil {
			t.Errorf("ReadSummary(%q): no error", in)
		}
	}
	if _, err := ReadSummary(strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "empty file") {
		t.Errorf("empty input: %v, want an error saying the file is empty", err)
	}
}

func TestTrim(t *testing.T) {
	rk, l := build([2]int64{0, 1000}, []item{
		{start: 0, end: 10, kind: event.Kernel, name: "a", method: Unmapped, region: rules.Other, shape: event.Shape{Grid: [3]int32{1, 1, 1}}},
		{start: 10, end: 30, kind: event.Kernel, name: "b", method: Unmapped, region: rules.Other, shape: event.Shape{Grid: [3]int32{2, 1, 1}}},
		{start: 30, end: 60, kind: event.Kernel, name: "c", method: Unmapped, region: rules.Other, shape: event.Shape{Grid: [3]int32{3, 1, 1}}},
	})
	s := mustSummarize(t, nil, rk, l, Options{})
	r, _ := NewReport("d", []*RankSummary{s})
	tr := r.Trim(2)
	if len(tr.Ranks[0].UnmappedTop) != 2 || tr.Ranks[0].UnmappedTop[0].Name != "c" || len(tr.Ranks[0].Shapes) != 2 {
		t.Errorf("trim: %+v %+v", tr.Ranks[0].UnmappedTop, tr.Ranks[0].Shapes)
	}
	if len(r.Ranks[0].UnmappedTop) != 3 {
		t.Error("Trim changed its input")
	}
	var b bytes.Buffer
	if err := tr.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"ranks", "bottleneck_rank", "warnings"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

// TestDefaultIterationSpellings: the default iteration pattern reads the
// step annotations of the vLLM versions found in real traces.
func TestDefaultIterationSpellings(t *testing.T) {
	for text, want := range map[string]iterVals{
		"execute_context_1(2048)_generation_3(3)":                                                  {1, 2048, 3, 3},
		"execute_context_0(0)_generation_32(32)":                                                   {0, 0, 32, 32},
		"execute_context_1(888_788544)_generation_0(0)":                                            {1, 888, 0, 0},
		"execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)":         {0, 0, 32, 32},
		"execute_5_context_2(sq700sk900sqsq250000sqsk300000)_generation_3(sq3sk4000sqsq3sqsk4000)": {2, 700, 3, 3},
	} {
		got, ok := parseIter(DefaultIteration, text)
		if !ok || got != want {
			t.Errorf("%s: got %+v %v, want %+v", text, got, ok, want)
		}
	}
	for _, text := range []string{"execute_model", "step[DECODE bs=32]", "execute_context_x(1)_generation_1(1)"} {
		if _, ok := parseIter(DefaultIteration, text); ok {
			t.Errorf("%s: matched", text)
		}
	}
}

// TestSummarizeWindowErrorsRelative: window errors give times from the
// session start, the clock --window uses, also for a kineto trace whose
// clock starts far from zero.
func TestSummarizeWindowErrorsRelative(t *testing.T) {
	const t0 = 1_428_625_731_516_983 // a real trace's first event, ns
	rk, l := build([2]int64{t0, t0 + 50_000_000}, []item{k(t0, t0+1000, rules.FFN)})
	rk.Format = "kineto"
	c := &event.Capture{Format: "kineto", SessionStart: t0, Ranks: []*event.Rank{rk}}
	_, err := Summarize(c, rk, l, Options{Window: WindowSpec{Explicit: true, Start: 100e9, End: 200e9}})
	if err == nil || !strings.Contains(err.Error(), "--window 100s:200s lies outside the capture, which spans 0s:0.05s from the session start") {
		t.Errorf("outside: %v", err)
	}
	_, err = Summarize(c, rk, l, Options{Window: WindowSpec{SkipStart: 30e6, SkipEnd: 30e6}})
	if err == nil || !strings.Contains(err.Error(), "empty after --skip-start/--skip-end (0.03s:0.02s from the session start)") {
		t.Errorf("empty: %v", err)
	}
}

// TestSummarySessionStart: a kineto rank's --window counts from the
// trace's first event; the saved summary keeps capture-clock times and the
// origin (present.Analysis shows the window from it).
func TestSummarySessionStart(t *testing.T) {
	const t0 = 1_428_625_731_516_983
	rk, l := build([2]int64{t0, t0 + 50_000_000}, []item{k(t0+1_000_000, t0+2_000_000, rules.FFN)})
	c := &event.Capture{Format: "kineto", SessionStart: t0, Ranks: []*event.Rank{rk}}
	s := mustSummarize(t, c, rk, l, Options{Window: WindowSpec{Explicit: true, Start: 1e6, End: 3e6}})
	if s.WindowStartNs != t0+1e6 || s.SessionStartNs != t0 {
		t.Fatalf("window start %d, session start %d", s.WindowStartNs, s.SessionStartNs)
	}
	rep, err := NewReport("d", []*RankSummary{s})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(&b)
	if err != nil || back.Ranks[0].SessionStartNs != t0 {
		t.Errorf("summary round trip: %v, session start %d", err, back.Ranks[0].SessionStartNs)
	}
	// An nsys rank's clock already counts from the session start.
	c.SessionStart = 0
	if s = mustSummarize(t, c, rk, l, Options{}); s.SessionStartNs != 0 {
		t.Errorf("nsys session start %d", s.SessionStartNs)
	}
}
