package classify

import (
	"runtime"
	"sync"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/rules"
)

// parallelMin is the number of names below which NameLabels matches on the
// calling goroutine only.
const parallelMin = 256

// NameLabels returns the name-rule label of every id of names (index = id):
// Method ByName, the matched rule's region and index when a name rule of
// set matches, else Region Other, Method Unmapped, Rule -1. Id 0 (the empty
// name) is always unmapped. A match by a rule of an ambiguous class is
// still ByName with that rule's region; callers that care check
// set.Rules[l.Rule].Class. Each distinct name is matched once; large tables
// are split across goroutines (rules.Set matching is read-only).
func NameLabels(set *rules.Set, names *event.Names) []Label {
	n := names.Len()
	out := make([]Label, n)
	label := func(lo, hi int) {
		for id := lo; id < hi; id++ {
			out[id] = nameLabel(set, names.Name(uint32(id)))
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if n < parallelMin || workers < 2 {
		label(0, n)
		return out
	}
	// Chunks much smaller than n/workers balance names of very different
	// lengths and match depths.
	chunk := max(64, n/(workers*8))
	var wg sync.WaitGroup
	next := make(chan int, (n+chunk-1)/chunk)
	for lo := 0; lo < n; lo += chunk {
		next <- lo
	}
	close(next)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range next {
				label(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
	return out
}

func nameLabel(set *rules.Set, name string) Label {
	if name == "" {
		return Label{Region: rules.Other, Method: Unmapped, Rule: -1}
	}
	if i := set.MatchName(name); i >= 0 {
		return Label{Region: set.Rules[i].Region, Method: ByName, Rule: int32(i)}
	}
	return Label{Region: rules.Other, Method: Unmapped, Rule: -1}
}
