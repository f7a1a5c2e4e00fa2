package stats

import (
	"fmt"
	"slices"
	"time"
)

// Layout is the order in which the runs of A and B were made.
type Layout int

const (
	// LayoutUnknown: a start time is missing (zero) or A and B share one.
	LayoutUnknown Layout = iota
	// Interleaved: in start order the runs form consecutive pairs, each
	// one run of A and one of B (A B B A A B …, or A B A B …), with as
	// many runs on each side.
	Interleaved
	// Blocked: every run of one side started before every run of the
	// other, so drift over time is confounded with the difference.
	Blocked
	// Mixed: neither (for example A A B A B B, or alternating sides with
	// unequal counts).
	Mixed
)

// String returns "unknown", "interleaved", "blocked" or "mixed".
func (l Layout) String() string {
	switch l {
	case Interleaved:
		return "interleaved"
	case Blocked:
		return "blocked"
	case Mixed:
		return "mixed"
	}
	return "unknown"
}

// PairedFrom is the fewest pairs that are analysed paired. A paired
// t-test on n pairs has n−1 degrees of freedom where Welch's test on the
// same runs has up to 2n−2: with 3 pairs that is 2 against 4, and the 2%
// two-sided t quantile (what a family-wise correction over a few metrics
// asks for) is 6.96 against 3.75. With fewer pairs the runs are compared
// unpaired; the counterbalanced order (A B, B A, …) keeps the difference
// of the side means free of a linear drift, which then only widens the
// interval.
const PairedFrom = 6

// Design is the layout of the runs and what it allows.
type Design struct {
	Layout Layout
	// Pairs holds, when Interleaved, the index into startsA and into
	// startsB of each pair, in start order: reorder the per-run values by
	// it and compare with RunOptions.Paired.
	Pairs [][2]int
	// BFirst counts the pairs whose run of B started first. The order is
	// counterbalanced when it is within one of half the pairs.
	BFirst int
	Note   string // one line for the report
}

// Counterbalanced reports whether the pairs start with A and with B about
// equally often (A B, B A, …), so that a drift between the two runs of a
// pair cancels over the pairs instead of favouring one side.
func (d Design) Counterbalanced() bool {
	n := len(d.Pairs)
	return d.Layout == Interleaved && n >= 2 && 2*d.BFirst >= n-1 && 2*d.BFirst <= n+1
}

// Paired reports whether the runs are analysed in pairs: interleaved,
// counterbalanced, and at least PairedFrom pairs.
func (d Design) Paired() bool {
	return d.Counterbalanced() && len(d.Pairs) >= PairedFrom
}

// DetectDesign tells from the runs' start times whether A and B ran in
// interleaved pairs, in blocks, or neither. One run per side is reported
// as Blocked: a single pair gives no paired test.
func DetectDesign(startsA, startsB []time.Time) Design {
	type run struct {
		at  time.Time
		b   bool
		idx int
	}
	var all []run
	for i, t := range startsA {
		all = append(all, run{t, false, i})
	}
	for i, t := range startsB {
		all = append(all, run{t, true, i})
	}
	if len(startsA) == 0 || len(startsB) == 0 {
		return Design{Note: "runs of one side are missing: no design to detect"}
	}
	slices.SortStableFunc(all, func(x, y run) int { return x.at.Compare(y.at) })
	for i, r := range all {
		if r.at.IsZero() || (i > 0 && r.at.Equal(all[i-1].at) && r.b != all[i-1].b) {
			return Design{Note: "a run has no start time, or runs of A and B share one: design unknown, runs compared unpaired"}
		}
	}
	na, nb := len(startsA), len(startsB)
	if na >= 2 && na == nb && pairsMixed(all, func(r run) bool { return r.b }) {
		d := Design{Layout: Interleaved}
		for k := 0; k < len(all); k += 2 {
			x, y := all[k], all[k+1]
			if x.b {
				x, y = y, x
				d.BFirst++
			}
			d.Pairs = append(d.Pairs, [2]int{x.idx, y.idx})
		}
		d.Note = interleavedNote(d)
		return d
	}
	switch first, last := all[0].b, all[len(all)-1].b; {
	case first != last && countRuns(all, func(r run) bool { return r.b }) == 2:
		side := "A"
		if first {
			side = "B"
		}
		return Design{Layout: Blocked, Note: fmt.Sprintf("runs blocked (every %s run started first): drift over time (thermals, caches, background load) is confounded with the difference; interleave A and B runs to pair them", side)}
	case na != nb && alternates(all, func(r run) bool { return r.b }):
		return Design{Layout: Mixed, Note: fmt.Sprintf("runs alternate but with %d of A and %d of B: compared unpaired", na, nb)}
	}
	return Design{Layout: Mixed, Note: "runs of A and B partly interleaved: compared unpaired"}
}

// interleavedNote says how interleaved runs are analysed, and why.
func interleavedNote(d Design) string {
	n := len(d.Pairs)
	switch {
	case d.Paired():
		return fmt.Sprintf("runs interleaved in %d pairs, counterbalanced (B first in %d): paired analysis of the per-pair differences removes drift shared by a pair", n, d.BFirst)
	case d.Counterbalanced():
		return fmt.Sprintf("runs interleaved in %d pairs, counterbalanced (B first in %d): with fewer than %d pairs a paired test keeps too few degrees of freedom, "+
			"so the runs are compared unpaired, and the counterbalanced order keeps a linear drift out of the difference", n, d.BFirst, PairedFrom)
	}
	first := "A"
	if 2*d.BFirst > n {
		first = "B"
	}
	return fmt.Sprintf("runs interleaved in %d pairs, but %s started %d of them: a drift between the runs of a pair would favour one side in every pair, "+
		"so the runs are compared unpaired; counterbalance the order (A B, B A, …) to pair them", n, first, max(d.BFirst, n-d.BFirst))
}

// pairsMixed reports whether every consecutive pair (0,1), (2,3), … of s
// holds two different keys; s has an even length.
func pairsMixed[T any, K comparable](s []T, key func(T) K) bool {
	if len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i += 2 {
		if key(s[i]) == key(s[i+1]) {
			return false
		}
	}
	return true
}

// alternates reports whether key changes between every two neighbours.
func alternates[T any, K comparable](s []T, key func(T) K) bool {
	for i := 1; i < len(s); i++ {
		if key(s[i]) == key(s[i-1]) {
			return false
		}
	}
	return true
}

// countRuns counts the maximal blocks of equal key.
func countRuns[T any, K comparable](s []T, key func(T) K) int {
	n := 0
	for i := range s {
		if i == 0 || key(s[i]) != key(s[i-1]) {
			n++
		}
	}
	return n
}
