package classify

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/input"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
	"github.com/servecmp/servecmp/rules"
)

// TestPoolEach checks that each runs every piece once, with and without
// slots to lend, and raises a piece's panic on the caller's goroutine.
func TestPoolEach(t *testing.T) {
	for _, slots := range []int{0, 1, 3} {
		var p *Pool
		if slots > 0 {
			p = heldPool(slots, 0)
		}
		for _, n := range []int{0, 1, 2, 7, 100} {
			seen := make([]atomic.Int32, n)
			p.each(n, func(k int) { seen[k].Add(1) })
			for k := range seen {
				if c := seen[k].Load(); c != 1 {
					t.Fatalf("slots %d, n %d: piece %d ran %d times", slots, n, k, c)
				}
			}
			if p != nil && len(p.slots) != 1 {
				t.Fatalf("slots %d, n %d: %d slots taken, want the caller's", slots, n, len(p.slots))
			}
		}
		func() {
			defer func() {
				if r := recover(); r != "piece 5" {
					t.Errorf("slots %d: recovered %v, want the piece's panic", slots, r)
				}
			}()
			p.each(9, func(k int) {
				if k == 5 {
					panic(fmt.Sprintf("piece %d", k))
				}
			})
		}()
		if p != nil && len(p.slots) != 1 {
			t.Fatalf("slots %d: %d slots taken after a panic, want the caller's", slots, len(p.slots))
		}
	}
}

// testPools are the pools the equality tests hold to no pool: few and
// many goroutines, pieces of a few items (so that ranks of a few thousand
// items are cut into many pieces and stream segments).
func testPools() []*Pool {
	return []*Pool{heldPool(1, 64), heldPool(3, 7), heldPool(8, 1)}
}

// heldPool returns a pool of n slots cutting pieces of piece items (0:
// the default), one slot held by the caller.
func heldPool(n, piece int) *Pool {
	p := &Pool{slots: make(chan struct{}, n), piece: piece}
	p.slots <- struct{}{}
	return p
}

// checkPooled holds the labels and the summary of rk with each test pool
// to those without one.
func checkPooled(t *testing.T, c *event.Capture, rk *event.Rank, set *rules.Set, byName []Label) {
	t.Helper()
	want := Attribute(rk, set, byName)
	p, err := Prepare(c, rk, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantSum, err := p.Summarize(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, pool := range testPools() {
		got := AttributeWith(rk, set, byName, pool)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d slots, pieces of %d: work %d labelled %+v, %+v without a pool", cap(pool.slots), pool.piece, i, got[i], want[i])
			}
		}
		gotSum, err := p.SummarizeWith(got, pool)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotSum, wantSum) {
			t.Fatalf("%d slots, pieces of %d: summary\n%+v\nwithout a pool\n%+v", cap(pool.slots), pool.piece, gotSum, wantSum)
		}
		oneSum, oneLabels, err := SummarizeRank(c, rk, set, byName, Options{}, pool)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(oneSum, wantSum) || !reflect.DeepEqual(oneLabels, want) {
			t.Fatalf("%d slots, pieces of %d: SummarizeRank differs from Attribute then Summarize", cap(pool.slots), pool.piece)
		}
	}
}

// TestAttributePooledServing holds pooled attribution and summaries to
// the sequential ones on every generated serving case.
func TestAttributePooledServing(t *testing.T) {
	set := rules.Default()
	for _, sc := range servingCases() {
		t.Run(sc.name, func(t *testing.T) {
			o := sc.o
			o.Decode = 40
			c, _ := nsystest.ServingCapture(o)
			byName := NameLabels(set, c.Names)
			for _, rk := range c.Ranks {
				checkPooled(t, c, rk, set, byName)
			}
		})
	}
}

// TestAttributePooledRealExports does the same on the real exports of
// ../shared/testdata/nsys.
func TestAttributePooledRealExports(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "testdata", "nsys", "*.sqlite"))
	if len(files) == 0 {
		t.Skip("no exports under ../shared/testdata/nsys")
	}
	set := rules.Default()
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() > 64<<20 {
			continue // keep the package fast
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := input.Open(context.Background(), f, event.All)
			if err != nil {
				t.Skipf("not readable: %v", err)
			}
			byName := NameLabels(set, c.Names)
			for _, rk := range c.Ranks {
				checkPooled(t, c, rk, set, byName)
			}
		})
	}
}

// TestAttributePooledRandom holds pooled attribution and summaries to the
// sequential ones on random ranks of a few thousand items (every class of
// the unit rules, in any order, on three streams).
func TestAttributePooledRandom(t *testing.T) {
	set, err := rules.Parse(bytesReader(unitRules), "unit.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 40 {
		data := make([]byte, 2*(1+r.IntN(4000)))
		for i := range data {
			data[i] = byte(r.IntN(256))
		}
		rk := bytesRank(data)
		if len(rk.Work) > 0 {
			checkPooled(t, nil, rk, set, NameLabels(set, rk.Names))
		}
	}
}
