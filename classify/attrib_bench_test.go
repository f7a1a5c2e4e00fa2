package classify

import (
	"testing"

	"github.com/servecmp/servecmp/internal/testkit/nsystest"
	"github.com/servecmp/servecmp/rules"
)

// BenchmarkAttribute attributes a rank of about a million pieces of work
// (eager prefill and graph decode steps, layer-wise NVTX, node events).
//
//	go test ./classify -run '^$' -bench Attribute -benchmem
func BenchmarkAttribute(b *testing.B) {
	c, _ := nsystest.ServingCapture(nsystest.ServingOptions{Layers: 40, Prefill: 20, Decode: 1400,
		Graphs: true, NodeEvents: true, LayerNVTX: true, StepNVTX: true, SideStream: true})
	rk := c.Ranks[0]
	set := rules.Default()
	byName := NameLabels(set, c.Names)
	for b.Loop() {
		Attribute(rk, set, byName)
	}
	b.ReportMetric(float64(len(rk.Work)), "work/op")
}
