package classify

import (
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/rules"
)

const unitRules = `rules:
  - {id: attn, region: attention, class: attn-core, pattern: '^attn$'}
  - {id: rope, region: attention, pattern: '^rope$'}
  - {id: ar, region: communication, class: comm, pattern: '^ar$'}
  - {id: act, region: ffn, class: act, pattern: '^act$'}
  - {id: moe, region: ffn, class: moe, pattern: '^moe$'}
  - {id: sample, region: io, class: sample, pattern: '^sample$'}
  - {id: embed, region: io, class: embed, pattern: '^embed$'}
  - {id: gemm, region: other, class: gemm, pattern: '^gemm'}
  - {id: norm, region: other, class: norm, pattern: '^norm$'}
  - {id: splitk, region: other, class: splitk, pattern: '^splitk$'}
  - {id: memset, region: other, class: workspace, pattern: '^memset$'}
  - {id: quant, region: other, class: quant, pattern: '^quant$'}
  - {id: gather, region: other, class: gather, pattern: '^gather$'}
  - {id: copy, region: other, class: copy, pattern: '^copy$'}
  - {id: ew, region: other, class: elementwise, pattern: '^ew$'}
  - {id: nv-qkv, region: attention, nvtx: 'qkv'}
  - {id: nv-mlp, region: ffn, nvtx: 'mlp'}
`

func unitSet(t *testing.T) *rules.Set {
	t.Helper()
	s, err := rules.Parse(strings.NewReader(unitRules), "unit.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// seqRank builds a rank whose stream 1 runs names back to back (10 ns
// each), and returns it with its name labels.
func seqRank(t *testing.T, set *rules.Set, streams map[uint32][]string) (*event.Rank, []Label) {
	t.Helper()
	rk := &event.Rank{Names: event.NewNames(), Shapes: event.NewShapes()}
	for s := uint32(1); s <= 4; s++ {
		for i, n := range streams[s] {
			rk.Work = append(rk.Work, event.Work{Start: int64(i) * 10, End: int64(i)*10 + 10, Name: rk.Names.ID(n),
				Stream: s, Kind: event.Kernel, Correlation: uint64(s)*1000 + uint64(i) + 1})
		}
	}
	return rk, NameLabels(set, rk.Names)
}

func TestAttributePosition(t *testing.T) {
	set := unitSet(t)
	type want struct {
		name   string
		region rules.Region
		method Method
	}
	A, F, C, I, O := rules.Attention, rules.FFN, rules.Communication, rules.IO, rules.Other
	main := []want{
		{"embed", I, ByName},
		{"ew", I, ByPosition},   // masked fill after the embedding lookup
		{"copy", C, ByPosition}, // staging copy before a collective
		{"ar", C, ByName},
		{"copy", C, ByPosition},      // and after it
		{"norm", A, ByPosition},      // feeds attention
		{"gemm.qkv", A, ByPosition},  // before the core
		{"rope", A, ByName},          //
		{"attn", A, ByName},          //
		{"gemm.o", A, ByPosition},    // first GEMM after the core
		{"splitk", A, ByPosition},    // with its GEMM
		{"ar", C, ByName},            //
		{"norm", F, ByPosition},      // post-attention norm
		{"memset", F, ByPosition},    // workspace of the next GEMM
		{"gemm.up", F, ByPosition},   //
		{"act", F, ByName},           //
		{"quant", F, ByPosition},     // consumer is the down GEMM
		{"gemm.down", F, ByPosition}, //
		{"ar", C, ByName},            //
		{"norm", A, ByPosition},      // next layer, no TP: O GEMM then norm
		{"gemm.qkv", A, ByPosition},  //
		{"attn", A, ByName},          //
		{"gemm.o", A, ByPosition},    //
		{"norm", F, ByPosition},      //
		{"gemm.router", F, ByPosition},
		{"moe", F, ByName},
		{"gemm.shared", F, ByPosition},
		{"moe", F, ByName},
		{"norm", I, ByPosition},   // final norm
		{"gather", I, ByPosition}, // last tokens
		{"gemm.lmhead", I, ByPosition},
		{"sample", I, ByName},
		{"copy", O, ByName}, // between steps: glue keeps its name label
	}
	side := []want{
		{"copy", O, ByName},
		{"memset", O, ByName},
		{"gemm.side", O, Unmapped},
	}
	names := func(ws []want) []string {
		var s []string
		for _, w := range ws {
			s = append(s, w.name)
		}
		return s
	}
	rk, byName := seqRank(t, set, map[uint32][]string{1: names(main), 2: names(side)})
	got := Attribute(rk, set, byName)
	all := append(append([]want{}, main...), side...)
	for i, w := range all {
		if got[i].Region != w.region || got[i].Method != w.method {
			t.Errorf("%d %s: got %s/%s, want %s/%s", i, w.name, got[i].Region, got[i].Method, w.region, w.method)
		}
	}
	// An unplaced GEMM keeps the rule that flagged it, for audit.
	if l := got[len(got)-1]; l.Rule < 0 || set.Rules[l.Rule].ID != "gemm" {
		t.Errorf("unplaced gemm rule = %d, want the gemm rule", l.Rule)
	}
}

// hostRank is a rank with NVTX ranges on thread 1 and one kernel per
// launch time, each on a stream of its own (no position context).
func hostRank(set *rules.Set, launches []int64, names []string) (*event.Rank, []Label) {
	rk := &event.Rank{Names: event.NewNames(), Shapes: event.NewShapes()}
	text := rk.Names.ID
	rk.Ranges = []event.Range{
		{Start: 0, End: 100, TID: 1, Text: text("layer"), Kind: event.NVTX},
		{Start: 10, End: 50, TID: 1, Text: text("mlp"), Kind: event.NVTX},
		{Start: 20, End: 30, TID: 1, Text: text("linear"), Kind: event.PythonFrame},
		{Start: 60, End: 80, TID: 1, Text: text("qkv"), Kind: event.Annotation},
		{Start: 0, End: 1000, TID: 2, Text: text("qkv"), Kind: event.NVTX}, // another thread
	}
	for i, t := range launches {
		c := uint64(100 + i)
		rk.Launches = append(rk.Launches, event.Launch{Start: t, End: t + 1, Correlation: c, TID: 1})
		rk.Work = append(rk.Work, event.Work{Start: 5000 + int64(i)*10, End: 5000 + int64(i)*10 + 5,
			Correlation: c, Name: text(names[i]), Stream: uint32(10 + i), Kind: event.Kernel})
	}
	// Shuffle the slices: a rank's slices are in no particular order.
	rk.Ranges[0], rk.Ranges[3] = rk.Ranges[3], rk.Ranges[0]
	rk.Launches[0], rk.Launches[len(rk.Launches)-1] = rk.Launches[len(rk.Launches)-1], rk.Launches[0]
	return rk, NameLabels(set, rk.Names)
}

func TestAttributeNVTX(t *testing.T) {
	set := unitSet(t)
	launches := []int64{25, 65, 90, 10, 50, 15, 70}
	names := []string{"gemm", "gemm", "gemm", "norm", "norm", "ar", "unknown_kernel"}
	rk, byName := hostRank(set, launches, names)
	got := Attribute(rk, set, byName)
	want := []struct {
		region rules.Region
		method Method
		rule   string
	}{
		{rules.FFN, ByNVTX, "nv-mlp"},       // inside linear inside mlp: walks outwards
		{rules.Attention, ByNVTX, "nv-qkv"}, // qkv annotation
		{rules.Other, Unmapped, "gemm"},     // only "layer" open
		{rules.FFN, ByNVTX, "nv-mlp"},       // at the range start: inside
		{rules.Other, Unmapped, "norm"},     // at the range end: outside
		{rules.Communication, ByName, "ar"}, // a trusted name is never moved
		{rules.Attention, ByNVTX, "nv-qkv"}, // a name without rule may be placed by context
	}
	for i, w := range want {
		id := ""
		if got[i].Rule >= 0 {
			id = set.Rules[got[i].Rule].ID
		}
		if got[i].Region != w.region || got[i].Method != w.method || id != w.rule {
			t.Errorf("%d (%s at %d): got %s/%s/%s, want %s/%s/%s", i, names[i], launches[i],
				got[i].Region, got[i].Method, id, w.region, w.method, w.rule)
		}
	}
}

func TestAttributeGraphNodes(t *testing.T) {
	set := unitSet(t)
	rk, byName := hostRank(set, []int64{5000}, []string{"gemm"})
	// The kernel replays node 111 of a graph launched at 5000 (outside any
	// range); node 111 was cloned at instantiation from node 11, created
	// at capture inside the qkv range.
	rk.Work[0].GraphNode = 111
	rk.GraphNodes = []event.GraphNode{
		{Node: 111, Original: 11, Start: 400, End: 401, TID: 1},
		{Node: 11, Start: 65, End: 66, TID: 1},
		{Node: 12, Start: 20, End: 21, TID: 1},
	}
	got := Attribute(rk, set, byName)
	if got[0].Region != rules.Attention || got[0].Method != ByGraph || set.Rules[got[0].Rule].ID != "nv-qkv" {
		t.Errorf("graph kernel: got %+v, want attention by graph via nv-qkv", got[0])
	}
	// Without node events the kernel is not placed by host context.
	rk.GraphNodes = nil
	if got := Attribute(rk, set, byName); got[0].Method != Unmapped {
		t.Errorf("without node events: got %+v, want unmapped", got[0])
	}
}

func TestAttributeNoContext(t *testing.T) {
	set := unitSet(t)
	rk, byName := seqRank(t, set, map[uint32][]string{1: {"attn", "ar", "act"}})
	got := Attribute(rk, set, byName)
	for i := range got {
		if got[i] != byName[rk.Work[i].Name] {
			t.Errorf("%d: got %+v, want the name label %+v", i, got[i], byName[rk.Work[i].Name])
		}
	}
	// Empty rank, nil set: no panic.
	if got := Attribute(&event.Rank{Names: event.NewNames()}, nil, nil); len(got) != 0 {
		t.Errorf("empty rank: %d labels", len(got))
	}
}

func TestExplainAndHints(t *testing.T) {
	set := unitSet(t)
	rk, byName := seqRank(t, set, map[uint32][]string{
		1: {"norm", "gemm", "attn", "gemm", "ar", "norm", "gemm", "act", "gemm"},
		2: {"gemm"},
	})
	labels := Attribute(rk, set, byName)
	rows := Explain(rk, set, labels)
	var total int64
	for _, r := range rows {
		total += r.SumNs
	}
	if total != 100 {
		t.Errorf("explain covers %d ns, want 100", total)
	}
	var found bool
	for _, r := range rows {
		if r.Name == "gemm" && r.Region == rules.FFN.String() && r.Method == ByPosition.String() {
			found = true
			if r.Count != 2 || r.SumNs != 20 || r.Rule != "gemm" {
				t.Errorf("ffn gemm row = %+v", r)
			}
		}
	}
	if !found {
		t.Errorf("no ffn gemm row in %+v", rows)
	}
	h := Hints(rk, labels)
	if len(h) == 0 || !strings.Contains(strings.Join(h, "\n"), "--enable-layerwise-nvtx-tracing") {
		t.Errorf("hints = %q, want the layer-wise NVTX option", h)
	}
	for i := range labels {
		labels[i].Method = ByName
	}
	if h := Hints(rk, labels); h != nil {
		t.Errorf("nothing unmapped: hints = %q", h)
	}
}

func bytesReader(s string) *strings.Reader { return strings.NewReader(s) }

func TestHintsGraphNodes(t *testing.T) {
	set := unitSet(t)
	rk, byName := hostRank(set, []int64{5000}, []string{"gemm"})
	rk.Work[0].GraphNode = 111
	labels := Attribute(rk, set, byName)
	h := strings.Join(Hints(rk, labels), "\n")
	for _, want := range []string{"--cuda-graph-trace=node", "no host range names a model module"} {
		if !strings.Contains(h, want) {
			t.Errorf("hints %q lack %q", h, want)
		}
	}
	rk.Launches = nil
	if h := strings.Join(Hints(rk, Attribute(rk, set, byName)), "\n"); !strings.Contains(h, "--trace=cuda,nvtx") {
		t.Errorf("no launches: hints %q lack --trace=cuda,nvtx", h)
	}
}

// TestHintsGraphLaunches: launch calls named like cudaGraphLaunch with no
// kernel replayed in a graph give the graph-trace hint; other launch names,
// and an id past the name table, do not.
func TestHintsGraphLaunches(t *testing.T) {
	set := unitSet(t)
	const hint = "CUDA graphs were launched but their kernels are missing"
	for _, tc := range []struct {
		name string
		want bool
	}{{"cudaGraphLaunch_v10000", true}, {"cudaLaunchKernel_v7000", false}, {"", false}} {
		rk, byName := hostRank(set, []int64{5000, 5100}, []string{"gemm", "gemm"})
		for i := range rk.Launches {
			rk.Launches[i].Name = rk.Names.ID(tc.name)
		}
		if tc.name == "" {
			rk.Launches[0].Name = uint32(rk.Names.Len() + 5)
		}
		h := strings.Join(Hints(rk, Attribute(rk, set, byName)), "\n")
		if got := strings.Contains(h, hint); got != tc.want {
			t.Errorf("launches named %q: hint given %v, want %v (hints %q)", tc.name, got, tc.want, h)
		}
	}
}
