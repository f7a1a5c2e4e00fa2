package classify

import (
	"fmt"
	"slices"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
	"github.com/servecmp/servecmp/rules"
)

// servingCase is one cell of the serving case matrix.
type servingCase struct {
	name string
	o    nsystest.ServingOptions
}

func servingCases() []servingCase {
	var cs []servingCase
	for _, eng := range []nsystest.ServingEngine{nsystest.EngineFA3, nsystest.EngineFlashInfer} {
		for _, moe := range []bool{false, true} {
			for _, graphs := range []int{0, 1, 2} { // eager decode, graphs, graphs + node events
				for _, nvtx := range []bool{false, true} {
					for _, tp := range []int{1, 2} {
						o := nsystest.ServingOptions{Engine: eng, MoE: moe, TP: tp, Graphs: graphs > 0,
							NodeEvents: graphs == 2, LayerNVTX: nvtx, StepNVTX: true, SideStream: true,
							Seed: uint64(len(cs) + 1)}
						name := fmt.Sprintf("%s/moe=%v/graphs=%d/nvtx=%v/tp=%d", eng, moe, graphs, nvtx, tp)
						cs = append(cs, servingCase{name, o})
					}
				}
			}
		}
	}
	// Fused all-reduce + norm: no norm kernel between the blocks.
	for _, eng := range []nsystest.ServingEngine{nsystest.EngineFA3, nsystest.EngineFlashInfer} {
		for _, moe := range []bool{false, true} {
			o := nsystest.ServingOptions{Engine: eng, MoE: moe, TP: 2, Graphs: true, FusedARNorm: true,
				StepNVTX: true, SideStream: true, Seed: uint64(len(cs) + 1)}
			cs = append(cs, servingCase{fmt.Sprintf("%s/moe=%v/graphs=1/nvtx=false/tp=2/fused-ar-norm", eng, moe), o})
		}
	}
	return cs
}

// accuracy returns the share of work time whose label matches the truth,
// and the time per (name, true region, label) of misplaced work.
func accuracy(t *testing.T, rk *event.Rank, labels []Label, truth *nsystest.ServingTruth) (float64, map[string]int64) {
	t.Helper()
	var ok, all int64
	bad := map[string]int64{}
	for i := range rk.Work {
		w := &rk.Work[i]
		want, found := truth.Regions[nsystest.WorkKey{PID: rk.PID, Device: rk.Device, Stream: w.Stream, Start: w.Start}]
		if !found {
			t.Fatalf("rank %s: work at %d on stream %d not in truth", rk.Label, w.Start, w.Stream)
		}
		all += w.Dur()
		if labels[i].Region == want {
			ok += w.Dur()
			continue
		}
		n := rk.Names.Name(w.Name)
		if len(n) > 60 {
			n = n[:60]
		}
		bad[fmt.Sprintf("%s want %s got %s/%s", n, want, labels[i].Region, labels[i].Method)] += w.Dur()
	}
	return float64(ok) / float64(all), bad
}

func TestAttributeServingCapture(t *testing.T) {
	set := rules.Default()
	for _, c := range servingCases() {
		t.Run(c.name, func(t *testing.T) {
			capt, truth := nsystest.ServingCapture(c.o)
			byName := NameLabels(set, capt.Names)
			for _, rk := range capt.Ranks {
				labels := Attribute(rk, set, byName)
				checkInvariants(t, rk, set, byName, labels)
				acc, bad := accuracy(t, rk, labels, truth)
				t.Logf("rank %s: %.4f of time in its true region", rk.Label, acc)
				if acc < 1 && testing.Verbose() {
					t.Logf("misplaced: %v", bad)
				}
				if acc < 0.98 {
					t.Errorf("rank %s: accuracy %.4f < 0.98; misplaced: %v", rk.Label, acc, bad)
				}
			}
		})
	}
}

// TestAttributeConcurrent attributes the ranks of one capture at once (as
// analyze does: shared names, rule set and name labels) and compares with
// one at a time.
func TestAttributeConcurrent(t *testing.T) {
	set := rules.Default()
	capt, _ := nsystest.ServingCapture(nsystest.ServingOptions{TP: 4, Layers: 2, Decode: 2, Graphs: true,
		NodeEvents: true, LayerNVTX: true, SideStream: true})
	byName := NameLabels(set, capt.Names)
	got := make([][]Label, len(capt.Ranks))
	done := make(chan int)
	for i, rk := range capt.Ranks {
		go func() {
			got[i] = Attribute(rk, set, byName)
			done <- i
		}()
	}
	for range capt.Ranks {
		<-done
	}
	for i, rk := range capt.Ranks {
		want := Attribute(rk, set, byName)
		if !slices.Equal(got[i], want) {
			t.Errorf("rank %d: concurrent labels differ", i)
		}
	}
}
