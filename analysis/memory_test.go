package analysis

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/servecmp/servecmp/event"
)

// TestMemGovernor: the limit is set only after the last input is read,
// counts the largest ranks that can run at once, is restored, and a limit
// the user set is left alone.
func TestMemGovernor(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	debug.SetMemoryLimit(math.MaxInt64)
	rank := func(n int) *event.Rank { return &event.Rank{Work: make([]event.Work, n)} }
	g := newMemGovernor(2, 2)
	g.read(&event.Capture{Ranks: []*event.Rank{rank(10), rank(1_000_000)}})
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("limit %d set before the last input was read", got)
	}
	g.read(&event.Capture{Ranks: []*event.Rank{rank(2_000_000)}})
	got := debug.SetMemoryLimit(-1)
	busy := int64(tempBytesPerItem * 3_000_000) // the two largest ranks
	if low := busy + limitSlack; got < low || got > low+heapObjects()+(64<<20) {
		t.Errorf("limit %d, want the heap + %d", got, low)
	}
	g.restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit %d after restore, want none", got)
	}

	debug.SetMemoryLimit(1 << 40) // as GOMEMLIMIT would
	g = newMemGovernor(1, 1)
	g.read(&event.Capture{Ranks: []*event.Rank{rank(100)}})
	g.restore()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("user limit changed to %d", got)
	}
}
