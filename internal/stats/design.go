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
	// Interleaved: in start order the sides alternate (A B A B … or
	// B A B A …) with as many runs on each; consecutive runs form pairs.
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

// Design is the layout of the runs and what it allows.
type Design struct {
	Layout Layout
	// Pairs holds, when Interleaved, the index into startsA and into
	// startsB of each pair, in start order: reorder the per-run values by
	// it and compare with RunOptions.Paired.
	Pairs [][2]int
	Note  string // one line for the report
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
	if na >= 2 && na == nb && alternates(all, func(r run) bool { return r.b }) {
		d := Design{Layout: Interleaved}
		for k := 0; k < len(all); k += 2 {
			x, y := all[k], all[k+1]
			if x.b {
				x, y = y, x
			}
			d.Pairs = append(d.Pairs, [2]int{x.idx, y.idx})
		}
		d.Note = fmt.Sprintf("runs interleaved in %d pairs: paired analysis of the per-pair differences removes drift shared by a pair", na)
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
