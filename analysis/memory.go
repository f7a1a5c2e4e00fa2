package analysis

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"

	"github.com/servecmp/servecmp/event"
)

// Memory during classification. Once the inputs are read, the heap is
// mostly their large work, launch and range slices, which live to the end,
// while classify's own slices (labels, launch queries, per-stream indices)
// are short-lived: a few tens of bytes per work item of the ranks being
// classified, freed rank phase by rank phase. At the collector's default
// pace (raised further by Run) none of them is collected before the end,
// so the peak is the sum of them all. memGovernor sets a soft memory limit
// once the last input is read: the live heap, plus tempBytesPerItem per
// work item of the ranks that can be classified at once, plus slack. The
// collector then reuses the freed slices instead of growing the heap; an
// estimate too low costs extra collections, never a failure. A limit the
// user set (GOMEMLIMIT) is left alone.
const (
	tempBytesPerItem = 16
	limitSlack       = 8 << 20
)

type memGovernor struct {
	mu      sync.Mutex
	on      bool  // the user set no limit
	prev    int64 // the limit before Run
	unread  int   // inputs not yet read (or failed)
	items   []int // work items per rank of the inputs read
	workers int   // ranks classified at once
}

func newMemGovernor(inputs, workers int) *memGovernor {
	prev := debug.SetMemoryLimit(-1)
	return &memGovernor{on: prev == math.MaxInt64, prev: prev, unread: inputs, workers: workers}
}

// read records one input as read (c is nil when it failed) and sets the
// limit after the last one.
func (g *memGovernor) read(c *event.Capture) {
	if g == nil || !g.on {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c != nil {
		for _, rk := range c.Ranks {
			g.items = append(g.items, len(rk.Work))
		}
	}
	g.unread--
	if g.unread > 0 {
		return
	}
	runtime.GC() // the readers' garbage (scan buffers, key arrays) goes before the live heap is measured
	slices.Sort(g.items)
	var busy int64
	for _, n := range g.items[max(0, len(g.items)-g.workers):] {
		busy += int64(n)
	}
	debug.SetMemoryLimit(heapObjects() + tempBytesPerItem*busy + limitSlack)
}

// restore puts the limit back as Run found it.
func (g *memGovernor) restore() {
	if g != nil && g.on {
		debug.SetMemoryLimit(g.prev)
	}
}

// heapObjects is the memory held by heap objects (live, or dead and not
// yet swept), in bytes.
func heapObjects() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return math.MaxInt64 / 2
	}
	return int64(s[0].Value.Uint64())
}
