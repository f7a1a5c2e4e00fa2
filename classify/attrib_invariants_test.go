package classify

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/input"
	"github.com/servecmp/servecmp/rules"
)

// checkInvariants checks what Attribute promises whatever the input:
// one label per work item; a trusted name label is never changed;
// context only ever places ambiguous or rule-less work; an unplaced
// compute kernel is Other/Unmapped with its name rule; nvtx/graph labels
// carry an nvtx rule and position labels a name rule.
func checkInvariants(t *testing.T, rk *event.Rank, set *rules.Set, byName, got []Label) {
	t.Helper()
	if len(got) != len(rk.Work) {
		t.Fatalf("%d labels for %d work items", len(got), len(rk.Work))
	}
	bad := 0
	fail := func(format string, args ...any) {
		if bad++; bad <= 5 {
			t.Errorf(format, args...)
		}
	}
	for i := range rk.Work {
		w := &rk.Work[i]
		name := Label{Region: rules.Other, Method: Unmapped, Rule: -1}
		if int(w.Name) < len(byName) {
			name = byName[w.Name]
		}
		var class rules.Class
		if name.Rule >= 0 {
			class = set.Rules[name.Rule].Class
		}
		open := name.Rule < 0 || class.Ambiguous()
		l := got[i]
		switch {
		case l.Method >= NumMethods || l.Region >= rules.NumRegions:
			fail("work %d: invalid label %+v", i, l)
		case !open && l != name:
			fail("work %d (%s): trusted name label %+v changed to %+v", i, rk.Names.Name(w.Name), name, l)
		case l.Method == ByNVTX || l.Method == ByGraph:
			if l.Rule < 0 || set.Rules[l.Rule].NVTX == nil || set.Rules[l.Rule].Region != l.Region {
				fail("work %d: %s label without its nvtx rule: %+v", i, l.Method, l)
			}
		case l.Method == ByPosition:
			if l.Rule != name.Rule || name.Rule < 0 {
				fail("work %d: position label %+v does not keep the name rule %d", i, l, name.Rule)
			}
		case l.Method == Unmapped:
			if l.Region != rules.Other || l.Rule != name.Rule {
				fail("work %d: unmapped label %+v, want other with the name rule %d", i, l, name.Rule)
			}
		case open && l.Method == ByName && l != name:
			fail("work %d: glue label %+v is not the name label %+v", i, l, name)
		}
	}
}

// TestAttributeRealExports attributes the real Nsight Systems exports of
// ../shared/testdata/nsys (none is an LLM server: this checks robustness
// and the invariants, not accuracy).
func TestAttributeRealExports(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "testdata", "nsys", "*.sqlite"))
	if len(files) == 0 {
		t.Skip("no exports under ../shared/testdata/nsys")
	}
	set := rules.Default()
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() > 64<<20 {
			continue // keep the package fast
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := input.Open(context.Background(), f, event.All)
			if err != nil {
				t.Skipf("not readable: %v", err)
			}
			byName := NameLabels(set, c.Names)
			for _, rk := range c.Ranks {
				got := Attribute(rk, set, byName)
				checkInvariants(t, rk, set, byName, got)
				_ = Explain(rk, set, got)
				_ = Hints(rk, got)
			}
		})
	}
}

// FuzzAttribute builds ranks from arbitrary bytes (work on a few streams,
// launches, nested ranges, graph nodes) and checks the invariants, and
// that pools of goroutines give the same labels and summary.
func FuzzAttribute(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d"))
	f.Add([]byte("norm gemm attn gemm ar norm gemm act gemm ar"))
	set, err := rules.Parse(bytesReader(unitRules), "unit.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rk := bytesRank(data)
		byName := NameLabels(set, rk.Names)
		got := Attribute(rk, set, byName)
		checkInvariants(t, rk, set, byName, got)
		Explain(rk, set, got)
		Hints(rk, got)
		if len(rk.Work) > 0 {
			checkPooled(t, nil, rk, set, byName)
		}
	})
}

// bytesRank builds a rank from arbitrary bytes, two at a time: work on a
// few streams, launches, nested or badly nested ranges, graph nodes.
func bytesRank(data []byte) *event.Rank {
	names := []string{"attn", "rope", "ar", "act", "moe", "sample", "embed", "gemm", "norm", "splitk",
		"memset", "quant", "gather", "copy", "mystery", "gemm.x"}
	texts := []string{"qkv", "mlp", "layer", "step"}
	rk := &event.Rank{Names: event.NewNames(), Shapes: event.NewShapes()}
	var tm int64
	for i := 0; i+1 < len(data); i += 2 {
		a, b := data[i], data[i+1]
		tm += int64(b%7) + 1
		switch a % 8 {
		case 0, 1, 2, 3, 4: // work
			w := event.Work{Start: tm, End: tm + int64(b%5), Name: rk.Names.ID(names[int(a/8)%len(names)]),
				Stream: uint32(b % 3), Kind: event.Kernel, Correlation: uint64(b % 16)}
			if a%5 == 0 {
				w.GraphNode = int64(b % 6)
			}
			rk.Work = append(rk.Work, w)
		case 5: // launch
			rk.Launches = append(rk.Launches, event.Launch{Start: tm - int64(b%20), End: tm, Correlation: uint64(a % 16), TID: int64(b % 2)})
		case 6: // range, possibly badly nested or inverted
			rk.Ranges = append(rk.Ranges, event.Range{Start: tm - int64(b%30), End: tm + int64(a%40) - 5, TID: int64(b % 2),
				Text: rk.Names.ID(texts[int(a/8)%len(texts)]), Kind: event.RangeKind(1 + b%3)})
		case 7: // graph node
			rk.GraphNodes = append(rk.GraphNodes, event.GraphNode{Node: int64(b % 6), Original: int64(a % 6), Start: tm - int64(b%30), End: tm, TID: int64(b % 2)})
		}
	}
	rk.SpanStart, rk.SpanEnd = 0, tm+10
	return rk
}
