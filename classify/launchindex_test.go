package classify

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/servecmp/servecmp/event"
)

// TestLaunchIndexFind holds the search from the last find to a plain
// binary search, for ids that repeat, ids absent, and finds in and out of
// order, on launches in and out of correlation order.
func TestLaunchIndexFind(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := r.IntN(200)
		ls := make([]event.Launch, n)
		c := uint64(0)
		for i := range ls {
			c += uint64(r.IntN(3)) // steps of 0 repeat an id
			ls[i] = event.Launch{Correlation: c, Start: int64(i)}
		}
		if trial%3 == 0 { // out of order: the index sorts positions
			r.Shuffle(n, func(i, j int) { ls[i], ls[j] = ls[j], ls[i] })
		}
		x := newLaunchIndex(ls)
		for range 400 {
			want := uint64(r.IntN(int(c) + 3))
			if r.IntN(4) > 0 && x.next < n { // mostly near the last find
				want = x.at(x.next).Correlation + uint64(r.IntN(3))
			}
			k := sort.Search(n, func(k int) bool { return x.at(k).Correlation >= want })
			var exp *event.Launch
			if k < n && x.at(k).Correlation == want {
				exp = x.at(k)
			}
			if got := x.find(want); got != exp {
				t.Fatalf("trial %d: find(%d) = %v, want %v", trial, want, got, exp)
			}
		}
	}
}
