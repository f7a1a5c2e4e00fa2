package classify

import (
	"cmp"
	"slices"

	"github.com/servecmp/servecmp/event"
)

// maxRunShare bounds the use of naturalSort: with more than one ascending
// run per maxRunShare items, the input is not "nearly sorted" and a
// general sort is cheaper than merging many short runs.
const maxRunShare = 16

// naturalSort sorts s stably by compare when s is a few ascending runs
// (device tables come in start order per kind, so a stream's work is its
// kernels, then its copies, then its memsets): it finds the runs in one
// pass and merges neighbours bottom-up through a buffer of len(s). It
// does nothing and returns false when s has more than len(s)/maxRunShare+1
// runs; an input already in order costs one comparison per item.
func naturalSort[T any](s []T, compare func(a, b T) int) bool {
	var bounds []int
	for i := 1; i < len(s); i++ {
		if compare(s[i], s[i-1]) < 0 {
			if len(bounds) >= len(s)/maxRunShare {
				return false
			}
			bounds = append(bounds, i)
		}
	}
	if len(bounds) == 0 {
		return true
	}
	bounds = append(append([]int{0}, bounds...), len(s))
	src, dst := s, make([]T, len(s))
	for len(bounds) > 2 {
		next := bounds[:0]
		for k := 0; k+1 < len(bounds); k += 2 {
			lo, mid := bounds[k], bounds[k+1]
			next = append(next, lo)
			if k+2 < len(bounds) {
				mergeRuns(dst[lo:bounds[k+2]], src[lo:mid], src[mid:bounds[k+2]], compare)
			} else {
				copy(dst[lo:mid], src[lo:mid])
			}
		}
		bounds = append(next, len(s))
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
	return true
}

// mergeRuns merges the sorted runs a and b into dst (len(a)+len(b)),
// taking from a on ties (stable).
func mergeRuns[T any](dst, a, b []T, compare func(a, b T) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if compare(b[j], a[i]) < 0 {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// sortByStart orders s, indices into work in ascending order, by (start,
// index): by merging its ascending runs when it has few, else by a
// general sort.
func sortByStart[I int32 | uint32](work []event.Work, s []I) {
	if naturalSort(s, func(x, y I) int { return cmp.Compare(work[x].Start, work[y].Start) }) {
		return
	}
	slices.SortFunc(s, func(x, y I) int {
		if c := cmp.Compare(work[x].Start, work[y].Start); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
}
