package classify

import (
	"sync"
	"sync/atomic"
)

// Pool lends goroutines to the work on one rank. Its slots are shared
// with the caller's other work (package analysis hands it the slots of its
// workers, one per core): a piece of work runs on a goroutine of its own
// when a slot is free as the pieces are handed out, else on the caller's
// goroutine. The caller holds one slot while it works on the rank; while
// it waits for helpers, it gives its slot back (so that the pieces its
// helpers cut in turn can use that core) and takes one again before it
// goes on. The pieces of one step write disjoint parts of the result, or
// results that are merged in piece order, so the result never depends on
// how many goroutines ran them, nor where: tests hold a nil pool, which
// runs everything on the caller's goroutine, to wide ones.
type Pool struct {
	slots chan struct{}
	piece int // the fewest items worth a piece of their own; 0: minPiece
}

// NewPool returns a pool lending the free slots of slots (a slot is taken
// by sending to it), one of which the caller holds; a nil channel lends
// none.
func NewPool(slots chan struct{}) *Pool {
	if slots == nil {
		return nil
	}
	return &Pool{slots: slots}
}

// minPiece is the fewest work items worth a piece of their own.
const minPiece = 1 << 15

// pieces is how many pieces n items are cut into: one without a pool or
// for few items, else up to four per slot, so that goroutines that join
// late still find pieces to take.
func (p *Pool) pieces(n int) int {
	if p == nil {
		return 1
	}
	piece := minPiece
	if p.piece > 0 {
		piece = p.piece
	}
	return max(1, min(n/piece, 4*cap(p.slots)))
}

// bounds returns piece k of n items cut into parts pieces.
func bounds(k, parts, n int) (lo, hi int) {
	return k * n / parts, (k + 1) * n / parts
}

// each calls f(k) for every k in [0, n), each once: the caller's
// goroutine takes pieces in order, and before each one it asks the pool
// for a slot and starts a helper that takes pieces too. It returns when
// every piece is done. A panic in f stops handing out pieces and is raised
// again on the caller's goroutine once the helpers have stopped.
func (p *Pool) each(n int, f func(k int)) {
	if n <= 0 {
		return
	}
	r := &run{n: n, f: f}
	helpers := 0
	for {
		for p != nil && helpers < n-1 && int(r.next.Load()) < n-1 && p.lend(&r.wg, r.drain) {
			helpers++
		}
		if !r.one() {
			break
		}
	}
	if helpers > 0 {
		<-p.slots // this goroutine's slot, while it waits
		r.wg.Wait()
		p.slots <- struct{}{}
	}
	if r.panicked {
		panic(r.pval)
	}
}

// run is the state of one Pool.each.
type run struct {
	n        int
	f        func(k int)
	next     atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	panicked bool
	pval     any
}

// one runs the next piece; false when none was left.
func (r *run) one() (ok bool) {
	k := int(r.next.Add(1) - 1)
	if k >= r.n {
		return false
	}
	defer func() {
		if v := recover(); v != nil {
			r.next.Store(int64(r.n))
			r.mu.Lock()
			if !r.panicked {
				r.panicked, r.pval = true, v
			}
			r.mu.Unlock()
			ok = false
		}
	}()
	r.f(k)
	return true
}

// drain runs pieces until none is left.
func (r *run) drain() {
	for r.one() {
	}
}

// lend runs f on a new goroutine when a slot is free, giving the slot
// back when f returns; it reports whether it did.
func (p *Pool) lend(wg *sync.WaitGroup, f func()) bool {
	select {
	case p.slots <- struct{}{}:
	default:
		return false
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() { <-p.slots }()
		f()
	}()
	return true
}

// both runs f and g, on two goroutines when the pool lends one.
func (p *Pool) both(f, g func()) {
	p.each(2, func(k int) {
		if k == 0 {
			f()
		} else {
			g()
		}
	})
}
