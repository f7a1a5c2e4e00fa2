package classify

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/rules"
)

// syntheticRank builds n work items on 4 streams with 200 distinct names and
// 50 shapes, roughly in time order like a real capture.
func syntheticRank(n int) (*event.Rank, []Label) {
	rnd := rand.New(rand.NewPCG(1, 1))
	names, shapes := event.NewNames(), event.NewShapes()
	var nameIDs []uint32
	for i := range 200 {
		nameIDs = append(nameIDs, names.ID(fmt.Sprintf("kernel_%d", i)))
	}
	var shapeIDs []uint32
	for i := range 50 {
		shapeIDs = append(shapeIDs, shapes.ID(event.Shape{Grid: [3]int32{int32(i + 1), 1, 1}, Block: [3]int32{128, 1, 1}}))
	}
	rk := &event.Rank{Label: "0", Names: names, Shapes: shapes, Work: make([]event.Work, n)}
	labels := make([]Label, n)
	var t [4]int64
	for i := range rk.Work {
		s := rnd.IntN(4)
		t[s] += rnd.Int64N(2000)
		d := 1000 + rnd.Int64N(20000)
		id := rnd.IntN(len(nameIDs))
		rk.Work[i] = event.Work{Start: t[s], End: t[s] + d, Name: nameIDs[id], Shape: shapeIDs[id%len(shapeIDs)], Stream: uint32(s), Kind: event.Kernel}
		t[s] += d
		labels[i] = Label{Region: rules.Region(id % rules.NumRegions), Method: Method(id % NumMethods), Rule: -1}
		rk.SpanEnd = max(rk.SpanEnd, t[s])
	}
	return rk, labels
}

// BenchmarkSummarize measures 1e6 work items, in the order streams
// interleave (sorted once per call) and already in start order (streamed).
func BenchmarkSummarize(b *testing.B) {
	rk, labels := syntheticRank(1_000_000)
	run := func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Summarize(nil, rk, labels, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("unsorted", run)
	idx := make([]int, len(rk.Work))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(x, y int) int { return cmp.Compare(rk.Work[x].Start, rk.Work[y].Start) })
	work, lab := make([]event.Work, len(idx)), make([]Label, len(idx))
	for i, j := range idx {
		work[i], lab[i] = rk.Work[j], labels[j]
	}
	rk.Work, labels = work, lab
	b.Run("sorted", run)
}
