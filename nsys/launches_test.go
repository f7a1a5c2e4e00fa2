package nsys

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/servecmp/servecmp/event"
)

// seq returns from, from+step... (n values).
func seq(from, step uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = from + uint64(i)*step
	}
	return out
}

func TestSortByCorrelation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	mk := func(corrs ...uint64) []event.Launch {
		ls := make([]event.Launch, len(corrs))
		for i, c := range corrs {
			ls[i] = event.Launch{Correlation: c, Start: int64(i)} // Start = input position
		}
		return ls
	}
	shuffled := func(n int, step uint64) []event.Launch {
		cs := make([]uint64, n)
		for i := range cs {
			cs[i] = 1000 + uint64(i)*step
		}
		rng.Shuffle(n, func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
		return mk(cs...)
	}
	for _, tc := range []struct {
		name string
		ls   []event.Launch
	}{
		{"empty", nil},
		{"sorted", mk(1, 2, 3, 5)},
		{"two runs", mk(1, 3, 5, 7, 2, 4, 6)},
		{"reversed", mk(9, 8, 7, 6, 5)},
		{"duplicates", mk(4, 2, 4, 2, 3, 4)},
		{"dense shuffled", shuffled(5000, 1)},
		{"sparse shuffled", shuffled(5000, 1<<40)},
		{"long run, short rest", mk(append(seq(1, 2, 900), 4, 2, 1000, 3, 4000)...)},
	} {
		ls := slices.Clone(tc.ls)
		sortByCorrelation(ls)
		if !slices.IsSortedFunc(ls, cmpCorrelation) {
			t.Errorf("%s: not sorted: %v", tc.name, ls[:min(len(ls), 8)])
		}
		// the same launches: each input position exactly once
		pos := make([]int64, len(ls))
		for i := range ls {
			pos[i] = ls[i].Start
		}
		slices.Sort(pos)
		for i, p := range pos {
			if p != int64(i) {
				t.Fatalf("%s: launches lost or repeated", tc.name)
			}
		}
	}
}
