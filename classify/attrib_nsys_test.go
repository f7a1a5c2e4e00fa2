package classify

import (
	"context"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/input"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
	"github.com/servecmp/servecmp/rules"
)

// readExport writes b and reads it back the way the CLI does.
func readExport(t *testing.T, b *nsystest.Builder) *event.Capture {
	t.Helper()
	path := b.Write(t)
	c, err := input.Open(context.Background(), path, event.All)
	if err != nil {
		t.Fatalf("input.Open: %v", err)
	}
	return c
}

// TestAttributeServingExport runs the full path over the case matrix:
// write an export, read it with input.Open, NameLabels, Attribute,
// compare with the truth. Name-only labels are measured too, to show what
// context attribution adds (and that the comparison can fail).
func TestAttributeServingExport(t *testing.T) {
	set := rules.Default()
	for _, c := range servingCases() {
		t.Run(c.name, func(t *testing.T) {
			b, truth := nsystest.Serving(c.o)
			capt := readExport(t, b)
			if len(capt.Ranks) != truth.Ranks {
				t.Fatalf("%d ranks read, %d written", len(capt.Ranks), truth.Ranks)
			}
			byName := NameLabels(set, capt.Names)
			for _, rk := range capt.Ranks {
				labels := Attribute(rk, set, byName)
				checkInvariants(t, rk, set, byName, labels)
				acc, bad := accuracy(t, rk, labels, truth)
				nameOnly := make([]Label, len(rk.Work))
				for i := range rk.Work {
					nameOnly[i] = byName[rk.Work[i].Name]
				}
				base, _ := accuracy(t, rk, nameOnly, truth)
				t.Logf("rank %s: %.4f of time in its true region (names alone: %.4f)", rk.Label, acc, base)
				if acc < 0.98 {
					t.Errorf("rank %s: accuracy %.4f < 0.98; misplaced: %v", rk.Label, acc, bad)
				}
				// With layer-wise NVTX, host context must do the work in
				// eager steps and, with node events, in graph replays.
				if c.o.LayerNVTX && (!c.o.Graphs || c.o.NodeEvents) {
					var pos, all int64
					for i := range rk.Work {
						all += rk.Work[i].Dur()
						if labels[i].Method == ByPosition {
							pos += rk.Work[i].Dur()
						}
					}
					if float64(pos) > 0.02*float64(all) {
						t.Errorf("rank %s: %.4f of time placed by position despite layer-wise NVTX", rk.Label, float64(pos)/float64(all))
					}
				}
				if base > 0.9 {
					t.Errorf("rank %s: names alone already place %.4f: the case does not test context", rk.Label, base)
				}
			}
		})
	}
}
