package workload

import (
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The split of a workload into shards (benchmark --shard i/N).
//
// A unit is a session (all its turns) or a request without a session;
// units are taken in workload order (the order of their first request).
// Each unit goes whole to the shard that holds the fewest requests so
// far, the lowest shard index on a tie. For a workload of single
// requests that is round-robin: request k goes to shard k mod N, so the
// shards' counts differ by at most one and every shard holds every N-th
// request of the file, the same mix of lengths and, for a trace, arrivals
// spread over the whole trace. Sessions of different lengths are
// balanced by requests, to within one session's turns. The rule reads
// nothing but the workload's order and sessions: the same file and N give
// the same split on every host.
//
// A workload whose order repeats with a period that divides N (long,
// short, long, short... split in two) gives shards of different mixes;
// shuffle such a file first (servecmp workload random and the importers
// do not write one).

// MaxShards bounds N of a split: more shards than that is a mistake.
const MaxShards = 4096

// ParseShard reads "i/N": shard i (0-based) of N, 0 <= i < N <=
// MaxShards.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, 0, fmt.Errorf("%q: want i/N (shard i of N, counted from 0)", s)
	}
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, fmt.Errorf("%q: want i/N with whole numbers", s)
	case n < 1 || n > MaxShards:
		return 0, 0, fmt.Errorf("%q: N must be 1 to %d", s, MaxShards)
	case i < 0 || i >= n:
		return 0, 0, fmt.Errorf("%q: i must be 0 to N-1 (%d)", s, n-1)
	}
	return i, n, nil
}

// Units groups request indices into units: a session's turns in order,
// every other request alone; units are ordered by their first index.
func Units(reqs []Request) [][]int {
	return UnitsOf(len(reqs), func(i int) string { return reqs[i].Session })
}

// UnitsOf is Units over n requests whose sessions session(i) names ("":
// none).
func UnitsOf(n int, session func(i int) string) [][]int {
	var units [][]int
	at := map[string]int{}
	for i := range n {
		name := session(i)
		if name == "" {
			units = append(units, []int{i})
			continue
		}
		if u, ok := at[name]; ok {
			units[u] = append(units[u], i)
			continue
		}
		at[name] = len(units)
		units = append(units, []int{i})
	}
	return units
}

// ShardOf assigns every unit of reqs to one of n shards by the rule
// above: out[u] is unit u's shard (units as Units returns them).
func ShardOf(units [][]int, n int) []int {
	h := make(shardHeap, n)
	for s := range h {
		h[s] = shardLoad{shard: s}
	}
	out := make([]int, len(units))
	for u, unit := range units {
		out[u] = h[0].shard // the least loaded, lowest index first
		h[0].requests += len(unit)
		heap.Fix(&h, 0)
	}
	return out
}

// shardLoad is one shard's requests so far.
type shardLoad struct{ shard, requests int }

// shardHeap orders shards by requests, then index.
type shardHeap []shardLoad

func (h shardHeap) Len() int { return len(h) }
func (h shardHeap) Less(a, b int) bool {
	if h[a].requests != h[b].requests {
		return h[a].requests < h[b].requests
	}
	return h[a].shard < h[b].shard
}
func (h shardHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *shardHeap) Push(x any)   { *h = append(*h, x.(shardLoad)) }
func (h *shardHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Shard returns the indices of the requests of shard i of n, in workload
// order. It fails when the shard would be empty (more shards than units).
func Shard(reqs []Request, i, n int) ([]int, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, errors.New("shard: want 0 <= i < n")
	}
	units := Units(reqs)
	if len(units) < n {
		return nil, fmt.Errorf("%d shards for %d sessions and requests: shard %d would be empty (use at most %d shards)", n, len(units), i, len(units))
	}
	var out []int
	for u, s := range ShardOf(units, n) {
		if s == i {
			out = append(out, units[u]...)
		}
	}
	slices.Sort(out)
	return out, nil
}
