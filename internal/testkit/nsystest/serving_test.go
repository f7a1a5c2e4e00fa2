package nsystest

import (
	"database/sql"
	"reflect"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/rules"
)

func TestServingCaptureShape(t *testing.T) {
	o := ServingOptions{Engine: EngineFlashInfer, MoE: true, TP: 2, Layers: 3, Prefill: 1, Decode: 2,
		Graphs: true, NodeEvents: true, LayerNVTX: true, StepNVTX: true, SideStream: true}
	c, truth := ServingCapture(o)
	if len(c.Ranks) != 2 || truth.Ranks != 2 {
		t.Fatalf("%d ranks, truth %d, want 2", len(c.Ranks), truth.Ranks)
	}
	n := 0
	for _, rk := range c.Ranks {
		n += len(rk.Work)
		graphCorr := map[uint64]bool{}
		var regions [rules.NumRegions]int64
		for i := range rk.Work {
			w := &rk.Work[i]
			r, ok := truth.Regions[WorkKey{rk.PID, rk.Device, w.Stream, w.Start}]
			if !ok {
				t.Fatalf("work %d has no truth", i)
			}
			regions[r] += w.Dur()
			if w.End <= w.Start {
				t.Errorf("work %d: empty interval", i)
			}
			if w.GraphNode != 0 {
				graphCorr[w.Correlation] = true
			}
		}
		if len(graphCorr) != o.Decode {
			t.Errorf("rank %d: %d graph launches, want one per decode step (%d)", rk.Device, len(graphCorr), o.Decode)
		}
		for _, r := range rules.Regions {
			if regions[r] == 0 {
				t.Errorf("rank %d: no %s work", rk.Device, r)
			}
		}
		// Captured and instantiated node events, one each per graph node.
		if len(rk.GraphNodes) == 0 || len(rk.GraphNodes)%2 != 0 {
			t.Errorf("rank %d: %d graph node events", rk.Device, len(rk.GraphNodes))
		}
		var steps int
		for _, r := range rk.Ranges {
			if rk.Names.Name(r.Text)[:8] == "execute_" {
				steps++
			}
		}
		if steps != o.Prefill+o.Decode {
			t.Errorf("rank %d: %d step ranges, want %d", rk.Device, steps, o.Prefill+o.Decode)
		}
	}
	if n != len(truth.Regions) {
		t.Errorf("%d work items, %d truths", n, len(truth.Regions))
	}
	// Deterministic.
	c2, truth2 := ServingCapture(o)
	if !reflect.DeepEqual(truth, truth2) || !reflect.DeepEqual(c.Ranks[1].Work, c2.Ranks[1].Work) {
		t.Error("two generations differ")
	}
}

func TestServingWrite(t *testing.T) {
	o := ServingOptions{TP: 2, Layers: 2, Decode: 2, Graphs: true, NodeEvents: true, LayerNVTX: true, SideStream: true}
	b, truth := Serving(o)
	c, _ := ServingCapture(o)
	path := b.Write(t)
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(q string) int {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	var kinds [4]int
	var launches, ranges, nodes int
	for _, rk := range c.Ranks {
		for _, w := range rk.Work {
			kinds[w.Kind]++
		}
		launches += len(rk.Launches)
		ranges += len(rk.Ranges)
		nodes += len(rk.GraphNodes)
	}
	for _, x := range []struct {
		q    string
		want int
	}{
		{"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL", kinds[event.Kernel]},
		{"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY", kinds[event.Memcpy]},
		{"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET", kinds[event.Memset]},
		{"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME", launches},
		{"SELECT count(*) FROM NVTX_EVENTS", ranges},
		{"SELECT count(*) FROM CUDA_GRAPH_NODE_EVENTS", nodes},
		{"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE graphNodeId IS NOT NULL", -1},
	} {
		got := count(x.q)
		if x.want >= 0 && got != x.want {
			t.Errorf("%s = %d, want %d", x.q, got, x.want)
		}
		if x.want < 0 && got == 0 {
			t.Errorf("%s = 0", x.q)
		}
	}
	if len(truth.Regions) != kinds[1]+kinds[2]+kinds[3] {
		t.Errorf("truth has %d entries for %d work items", len(truth.Regions), kinds[1]+kinds[2]+kinds[3])
	}
}
