package servesim

import (
	"sync"
	"sync/atomic"
	"time"
)

// seq is one request's sequence. The scheduler goroutine owns the fields
// above mu; the handler reads the output under mu.
type seq struct {
	key       uint64
	prompt    []int
	maxTokens int
	minTokens int
	ignoreEOS bool

	generated int  // tokens emitted so far
	admitted  bool // admitted at least once (prefix cache and counters done)
	aborted   atomic.Bool

	mu      sync.Mutex
	pending []int  // token ids not yet taken by the handler
	done    bool   // no more tokens
	finish  string // "length" or "stop" once done
	notify  chan struct{}
}

func newSeq(key uint64, prompt []int, maxTokens, minTokens int, ignoreEOS bool) *seq {
	return &seq{key: key, prompt: prompt, maxTokens: maxTokens, minTokens: minTokens, ignoreEOS: ignoreEOS,
		notify: make(chan struct{}, 1)}
}

// take moves the pending tokens into buf and reports whether the sequence
// has finished.
func (s *seq) take(buf []int) ([]int, bool, string) {
	s.mu.Lock()
	buf = append(buf, s.pending...)
	s.pending = s.pending[:0]
	done, finish := s.done, s.finish
	s.mu.Unlock()
	return buf, done, finish
}

func (s *seq) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// stats are the engine counters and gauges /metrics exposes.
type stats struct {
	running, waiting   atomic.Int64
	kvUsed             atomic.Int64
	preemptions        atomic.Int64
	promptTokens       atomic.Int64
	generationTokens   atomic.Int64
	prefixHits         atomic.Int64
	prefixQueries      atomic.Int64
	requestsFinished   atomic.Int64
	requestsAborted    atomic.Int64
	scheduledStepCount atomic.Int64
}

// scheduler runs the continuous-batching loop.
type scheduler struct {
	cfg      *Config
	st       *stats
	arrivals chan *seq
	resetPC  chan chan struct{}
	stop     chan struct{}
	stopped  chan struct{}

	waiting []*seq
	running []*seq
	kvUsed  int
	cache   map[uint64]struct{} // prefix-cache block hashes
	prof    *profiler           // nil: no profiler
	// onRunning, when set, learns every running count published (the
	// simulated GPUs' power follows it).
	onRunning func(int)
}

const maxCacheBlocks = 1 << 20

func newScheduler(cfg *Config, st *stats) *scheduler {
	return &scheduler{cfg: cfg, st: st, arrivals: make(chan *seq, 4096), resetPC: make(chan chan struct{}),
		stop: make(chan struct{}), stopped: make(chan struct{}), cache: map[uint64]struct{}{}}
}

func (sc *scheduler) run() {
	defer close(sc.stopped)
	next := time.Now()
	for {
		if len(sc.running) == 0 && len(sc.waiting) == 0 {
			select {
			case s := <-sc.arrivals:
				sc.waiting = append(sc.waiting, s)
			case done := <-sc.resetPC:
				clear(sc.cache)
				close(done)
				continue
			case <-sc.stop:
				sc.finishAll()
				return
			}
			next = time.Now()
		}
		if !sc.drain() {
			sc.finishAll()
			return
		}
		sc.dropAborted()
		prefill := sc.admit()
		sc.publish()
		if len(sc.running) == 0 {
			continue
		}
		d := time.Duration(prefill)*sc.cfg.PrefillPerToken + sc.cfg.DecodeBase + time.Duration(len(sc.running))*sc.cfg.DecodePerSeq
		if d > 0 {
			next = next.Add(d)
			if now := time.Now(); next.Before(now) {
				next = now // behind schedule: do not try to catch up
			} else {
				time.Sleep(next.Sub(now))
			}
		}
		// The profiler records the step before its tokens are handed over:
		// once a client has a token, a stopped trace must include it.
		sc.step(func(n int64) { sc.prof.step(time.Duration(prefill)*sc.cfg.PrefillPerToken, d, n) })
		sc.preempt()
		sc.publish()
		sc.st.scheduledStepCount.Add(1)
	}
}

// drain moves queued arrivals into the waiting list without blocking. It
// returns false when the scheduler must stop.
func (sc *scheduler) drain() bool {
	for {
		select {
		case s := <-sc.arrivals:
			sc.waiting = append(sc.waiting, s)
		case done := <-sc.resetPC:
			clear(sc.cache)
			close(done)
		case <-sc.stop:
			return false
		default:
			return true
		}
	}
}

func (sc *scheduler) dropAborted() {
	keep := sc.running[:0]
	for _, s := range sc.running {
		if s.aborted.Load() {
			sc.kvUsed -= len(s.prompt) + s.generated
			sc.st.requestsAborted.Add(1)
			continue
		}
		keep = append(keep, s)
	}
	clear(sc.running[len(keep):])
	sc.running = keep
	w := sc.waiting[:0]
	for _, s := range sc.waiting {
		if s.aborted.Load() {
			sc.st.requestsAborted.Add(1)
			continue
		}
		w = append(w, s)
	}
	clear(sc.waiting[len(w):])
	sc.waiting = w
}

// admit moves waiting sequences into the batch, FIFO, and returns the
// number of tokens to prefill.
func (sc *scheduler) admit() int {
	prefill := 0
	n := 0
	for _, s := range sc.waiting {
		if len(sc.running) >= sc.cfg.MaxRunning {
			break
		}
		need := len(s.prompt) + s.generated
		if sc.kvUsed+need > sc.cfg.KVCacheTokens && len(sc.running) > 0 {
			break
		}
		n++
		sc.kvUsed += need
		if s.admitted {
			prefill += need // recompute after preemption
		} else {
			s.admitted = true
			hit := sc.prefixLookup(s.prompt)
			prefill += len(s.prompt) - hit
			sc.st.prefixQueries.Add(int64(len(s.prompt)))
			sc.st.prefixHits.Add(int64(hit))
			sc.st.promptTokens.Add(int64(len(s.prompt)))
		}
		sc.running = append(sc.running, s)
	}
	copy(sc.waiting, sc.waiting[n:])
	clear(sc.waiting[len(sc.waiting)-n:])
	sc.waiting = sc.waiting[:len(sc.waiting)-n]
	return prefill
}

// prefixLookup returns how many leading prompt tokens are cached (whole
// blocks only) and caches the prompt's full blocks.
func (sc *scheduler) prefixLookup(prompt []int) int {
	bs := sc.cfg.BlockSize
	h := uint64(0)
	hit, missed := 0, false
	for i := 0; i+bs <= len(prompt); i += bs {
		for _, id := range prompt[i : i+bs] {
			h = mix(h ^ uint64(id))
		}
		if _, ok := sc.cache[h]; ok && !missed {
			hit += bs
			continue
		}
		missed = true
		if len(sc.cache) >= maxCacheBlocks {
			clear(sc.cache)
		}
		sc.cache[h] = struct{}{}
	}
	// The last prompt token is always computed, as engines do.
	if hit == len(prompt) && hit > 0 {
		hit -= bs
	}
	return hit
}

// step emits one token for every running sequence and retires finished
// ones.
func (sc *scheduler) step(recorded func(tokens int64)) {
	keep := sc.running[:0]
	var woken []*seq
	defer func() {
		recorded(int64(len(woken)))
		for _, s := range woken {
			s.wake()
		}
	}()
	for _, s := range sc.running {
		if s.aborted.Load() {
			sc.kvUsed -= len(s.prompt) + s.generated
			sc.st.requestsAborted.Add(1)
			continue
		}
		pos := s.generated
		id := tokenAt(s.key, pos, sc.cfg.Vocab)
		s.generated++
		sc.kvUsed++
		finish := ""
		switch {
		case s.generated >= s.maxTokens:
			finish = "length"
		case !s.ignoreEOS && s.generated >= s.minTokens && eosAt(s.key, pos, sc.cfg.EOSProb):
			finish = "stop"
		}
		// Count before handing the token over: once a client has a token,
		// /metrics must already include it.
		sc.st.generationTokens.Add(1)
		if finish != "" {
			sc.st.requestsFinished.Add(1)
		}
		s.mu.Lock()
		s.pending = append(s.pending, id)
		if finish != "" {
			s.done, s.finish = true, finish
		}
		s.mu.Unlock()
		woken = append(woken, s)
		if finish != "" {
			sc.kvUsed -= len(s.prompt) + s.generated
			continue
		}
		keep = append(keep, s)
	}
	clear(sc.running[len(keep):])
	sc.running = keep
}

// preempt evicts the newest running sequences while the KV cache is over
// capacity; they go back to the front of the queue.
func (sc *scheduler) preempt() {
	for sc.kvUsed > sc.cfg.KVCacheTokens && len(sc.running) > 1 {
		s := sc.running[len(sc.running)-1]
		sc.running = sc.running[:len(sc.running)-1]
		sc.kvUsed -= len(s.prompt) + s.generated
		sc.waiting = append([]*seq{s}, sc.waiting...)
		sc.st.preemptions.Add(1)
	}
}

func (sc *scheduler) publish() {
	sc.st.running.Store(int64(len(sc.running)))
	if sc.onRunning != nil {
		sc.onRunning(len(sc.running))
	}
	sc.st.waiting.Store(int64(len(sc.waiting)) + int64(len(sc.arrivals)))
	sc.st.kvUsed.Store(int64(sc.kvUsed))
}

// finishAll ends every sequence (server shutdown).
func (sc *scheduler) finishAll() {
	for _, list := range [][]*seq{sc.running, sc.waiting} {
		for _, s := range list {
			s.mu.Lock()
			s.done, s.finish = true, "abort"
			s.mu.Unlock()
			s.wake()
		}
	}
	sc.running, sc.waiting = nil, nil
	for {
		select {
		case s := <-sc.arrivals:
			s.mu.Lock()
			s.done, s.finish = true, "abort"
			s.mu.Unlock()
			s.wake()
		default:
			sc.publish()
			return
		}
	}
}
