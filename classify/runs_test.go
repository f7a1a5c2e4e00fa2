package classify

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
	"github.com/servecmp/servecmp/rules"
)

// TestNaturalSort: the run-merging path against a stable sort, on inputs
// made of 1, 2, 3 and 40 ascending runs with repeated keys, and the
// refusal of an input with too many runs.
func TestNaturalSort(t *testing.T) {
	type kv struct{ k, pos int }
	byKey := func(a, b kv) int { return cmp.Compare(a.k, b.k) }
	rng := rand.New(rand.NewPCG(3, 4))
	for _, runs := range []int{1, 2, 3, 40} {
		for _, n := range []int{0, 1, 7, 1000} {
			var s []kv
			for r := range runs {
				k := rng.IntN(50)
				for range n / runs {
					k += rng.IntN(3) // repeats keep ties inside a run
					s = append(s, kv{k, len(s)})
				}
				_ = r
			}
			want := slices.Clone(s)
			slices.SortStableFunc(want, byKey)
			ok := naturalSort(s, byKey)
			few := runs <= len(s)/maxRunShare+1
			if !few {
				continue // may refuse; checked below
			}
			if !ok {
				t.Errorf("runs=%d n=%d: refused %d items in %d runs", runs, n, len(s), runs)
				continue
			}
			if !slices.Equal(s, want) {
				t.Errorf("runs=%d n=%d: merged order differs from a stable sort", runs, n)
			}
		}
	}
	many := make([]kv, 1000)
	for i := range many {
		many[i] = kv{rng.IntN(1000), i}
	}
	before := slices.Clone(many)
	if naturalSort(many, byKey) || !slices.Equal(many, before) {
		t.Error("a shuffled input was merged or changed instead of refused")
	}
}

// TestSortByStart: both paths (per-table runs: merged; shuffled starts:
// sorted) give the (start, index) order.
func TestSortByStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	work := make([]event.Work, 3000)
	for i := range work {
		switch {
		case i < 2000: // kernels in start order, two at each start
			work[i].Start = int64(i/2) * 10
		case i < 2500: // copies in start order, interleaved with them
			work[i].Start = int64(i-2000)*37 + 5
		default: // memsets at starts of kernels (ties across runs)
			work[i].Start = int64(i-2500) * 20
		}
	}
	check := func(what string) {
		t.Helper()
		idx := make([]int32, len(work))
		for i := range idx {
			idx[i] = int32(i)
		}
		want := slices.Clone(idx)
		slices.SortFunc(want, func(x, y int32) int {
			return cmp.Or(cmp.Compare(work[x].Start, work[y].Start), cmp.Compare(x, y))
		})
		sortByStart(work, idx)
		if !slices.Equal(idx, want) {
			t.Errorf("%s: order differs from (start, index)", what)
		}
	}
	check("three runs")
	rng.Shuffle(len(work), func(i, j int) { work[i], work[j] = work[j], work[i] })
	check("shuffled")
}

// TestLaunchIndex: finding launches in correlation order (no index, hint
// first) and out of order (sorted index) against a linear search.
func TestLaunchIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var ls []event.Launch
	for c := uint64(1); c < 3000; c += 1 + uint64(rng.IntN(3)) { // gaps: missing ids
		ls = append(ls, event.Launch{Correlation: c, Start: int64(c) * 3})
	}
	queries := make([]uint64, 0, 4000)
	for c := uint64(0); c < 3100; c++ {
		queries = append(queries, c)
	}
	for range 900 {
		queries = append(queries, uint64(rng.IntN(3100))) // out of order
	}
	for _, shuffled := range []bool{false, true} {
		if shuffled {
			rng.Shuffle(len(ls), func(i, j int) { ls[i], ls[j] = ls[j], ls[i] })
		}
		x := newLaunchIndex(ls)
		if (x.order != nil) != shuffled {
			t.Errorf("shuffled=%v: index built = %v", shuffled, x.order != nil)
		}
		for _, c := range queries {
			var want *event.Launch
			for i := range ls {
				if ls[i].Correlation == c {
					want = &ls[i]
					break
				}
			}
			if got := x.find(c); got != want {
				t.Fatalf("shuffled=%v: find(%d) = %v, want %v", shuffled, c, got, want)
			}
		}
	}
}

// TestOrderIndependence: a rank's labels and summary do not depend on the
// order of its work and launches. The capture's own order (per-table runs:
// the merge path), work grouped by kind (memsets, copies, kernels) and a
// shuffle (the sort paths) give the same labels per item and the same
// summary.
func TestOrderIndependence(t *testing.T) {
	set := rules.Default()
	capt, _ := nsystest.ServingCapture(nsystest.ServingOptions{TP: 2, Layers: 3, Decode: 4, LayerNVTX: true,
		StepNVTX: true, SideStream: true})
	byName := NameLabels(set, capt.Names)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, rk := range capt.Ranks {
		want := Attribute(rk, set, byName)
		wantSum, err := Summarize(capt, rk, want, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, order := range []string{"by kind", "shuffled"} {
			perm := make([]int, len(rk.Work))
			for i := range perm {
				perm[i] = i
			}
			if order == "by kind" {
				slices.SortStableFunc(perm, func(x, y int) int { return -cmp.Compare(rk.Work[x].Kind, rk.Work[y].Kind) })
			} else {
				rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			}
			r2 := *rk
			r2.Work = make([]event.Work, len(perm))
			for i, p := range perm {
				r2.Work[i] = rk.Work[p]
			}
			r2.Launches = slices.Clone(rk.Launches)
			rng.Shuffle(len(r2.Launches), func(i, j int) { r2.Launches[i], r2.Launches[j] = r2.Launches[j], r2.Launches[i] })
			got := Attribute(&r2, set, byName)
			for i, p := range perm {
				if got[i] != want[p] {
					t.Fatalf("rank %s, %s: work %d labelled %+v, in capture order %+v", rk.Label, order, p, got[i], want[p])
				}
			}
			gotSum, err := Summarize(capt, &r2, got, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotSum, wantSum) {
				t.Errorf("rank %s, %s: summary differs:\n got %s\nwant %s", rk.Label, order, fmt.Sprint(gotSum), fmt.Sprint(wantSum))
			}
		}
	}
}

// TestStreamBuckets: small and large stream ids are numbered in the order
// first seen, and a stream keeps its number.
func TestStreamBuckets(t *testing.T) {
	var bk streamBuckets
	bk.init()
	ids := []uint32{7, 1 << 20, 0, 4095, 4096, 7, 1 << 20, 1<<32 - 1, 0}
	want := []int32{0, 1, 2, 3, 4, 0, 1, 5, 2}
	for i, id := range ids {
		if got := bk.of(id); got != want[i] {
			t.Errorf("of(%d) = %d, want %d", id, got, want[i])
		}
	}
	if !slices.Equal(bk.streams, []uint32{7, 1 << 20, 0, 4095, 4096, 1<<32 - 1}) {
		t.Errorf("streams %v", bk.streams)
	}
}

// TestRunMerge: merging ascending runs gives the (start, run, position)
// order, and grouping by stream then merging each stream's runs gives
// (stream, start, index), for few runs, many runs, ties across runs and
// streams out of order (sorted first).
func TestRunMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 200 {
		n := rng.IntN(400)
		work := make([]event.Work, n)
		nstreams := 1 + rng.IntN(4)
		for i := range work {
			work[i] = event.Work{Start: int64(rng.IntN(50)), Stream: uint32(rng.IntN(nstreams))}
		}
		if trial%2 == 0 { // each stream a few ascending runs, like device tables
			cut := []int{0, n / 2, 3 * n / 4, n}
			for k := 0; k+1 < len(cut); k++ {
				slices.SortStableFunc(work[cut[k]:cut[k+1]], func(a, b event.Work) int { return cmp.Compare(a.Start, b.Start) })
			}
		}
		idx := make([]uint32, n)
		for i := range idx {
			idx[i] = uint32(i)
		}
		bounds := ascRuns(work, idx)
		var got []uint32
		rm := newRunMerge(work, idx, bounds)
		for b := rm.next(); b != nil; b = rm.next() {
			got = append(got, b...)
		}
		want := slices.Clone(idx)
		slices.SortStableFunc(want, func(x, y uint32) int { return cmp.Compare(work[x].Start, work[y].Start) })
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: merged %v, want %v", trial, got, want)
		}
		seq := groupByStream(work, func(int) bool { return true })
		wantSeq := make([]int32, n)
		for i := range wantSeq {
			wantSeq[i] = int32(i)
		}
		slices.SortFunc(wantSeq, func(x, y int32) int {
			return cmp.Or(cmp.Compare(work[x].Stream, work[y].Stream), cmp.Compare(work[x].Start, work[y].Start), cmp.Compare(x, y))
		})
		if !slices.Equal(seq, wantSeq) {
			t.Fatalf("trial %d: by stream %v, want %v", trial, seq, wantSeq)
		}
	}
}
