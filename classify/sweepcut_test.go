package classify

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/interval"
	"github.com/servecmp/servecmp/rules"
)

// busyTimes are the busy times a measure keeps from its sweep.
type busyTimes struct {
	busy, kernelBusy, commBusy, nonCommBusy, multi int64
	regionBusy                                     [rules.NumRegions]int64
}

func (m *measure) busyTimes() busyTimes {
	return busyTimes{m.busy, m.kernelBusy, m.commBusy, m.nonCommBusy, m.multi, m.regionBusy}
}

// TestSweepCut holds the sweep cut into stretches by start time to the
// one sweep, on random work with long items that run over several cuts
// (and stretches that only carried work covers), in start order and in
// stream runs, with wide and narrow windows.
func TestSweepCut(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 400 {
		n := 1 + r.IntN(300)
		work := make([]event.Work, n)
		for i := range work {
			s := int64(r.IntN(2000))
			d := int64(r.IntN(40))
			if r.IntN(8) == 0 {
				d = int64(r.IntN(1500))
			}
			kind := event.Kernel
			if r.IntN(4) == 0 {
				kind = event.Memcpy
			}
			work[i] = event.Work{Start: s, End: s + d, Stream: uint32(r.IntN(3)), Kind: kind}
		}
		labels := make([]Label, n)
		for i := range labels {
			labels[i] = Label{Region: rules.Region(r.IntN(rules.NumRegions))}
		}
		win := interval.Interval{Start: -1, End: 5000}
		if trial%3 == 0 {
			win.Start = int64(r.IntN(1000))
			win.End = win.Start + 1 + int64(r.IntN(1500))
		}
		sorted := trial%2 == 0
		var order []uint32
		var runs []int
		if sorted {
			slices.SortStableFunc(work, func(a, b event.Work) int { return int(a.Start - b.Start) })
		} else {
			order, runs = startOrder(work, win)
		}
		var want measure
		want.sweep(work, labels, win, order, runs, sorted)
		for _, parts := range []int{2, 3, 5, 8, 17, 64} {
			cut := newSweepCut(work, labels, win, order, runs, sorted, parts)
			var got measure
			got.sweepCut(cut, nil, func(int) {}, 0)
			if got.busyTimes() != want.busyTimes() {
				t.Fatalf("trial %d (sorted %v, window %v), %d parts (%d stretches at %v): %+v, one sweep %+v",
					trial, sorted, win, parts, cut.stretches(), cut.cuts, got.busyTimes(), want.busyTimes())
			}
		}
	}
}
