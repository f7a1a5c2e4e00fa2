package benchmark

import (
	"context"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/interrupt"
)

// step is one executed step's shared state: the requests, their records,
// which were sent and the in-flight requests' cancellation.
type step struct {
	ctx        context.Context // the run's: cancelled by an interrupt
	c          *client.Client
	clk        client.Clock
	reqs       []client.Prepared
	recs       []result.Record
	caps       []capture // what each request sent and got back, when it asks
	sent       []bool
	index      int
	deadline   time.Duration // --duration; 0 = none
	reqCtx     context.Context
	cancelReqs context.CancelCauseFunc
	wg         sync.WaitGroup
	onRecord   func(*result.Record, *capture)
	prog       *Progress
	until      <-chan struct{} // closed: stop sending (Config.SendUntil)
}

// capture is what a request sent and got back beyond its record, kept
// when the request asks (prepared.capture) and succeeded: the body sent
// and the answer's text, for the next turn of a session and for the
// client-side token counts (tokencount.go). Never written to records.
type capture struct {
	body   []byte
	answer string
	chat   bool // the prompt's client-side count is of chat message contents
}

// stepHooks are a measured step's hooks from Config.
type stepHooks struct {
	onStart func(time.Time)
	until   <-chan struct{}
}

// hooks returns measured step si's hooks.
func (c *Config) hooks(si int) stepHooks {
	h := stepHooks{until: c.SendUntil}
	if c.OnStart != nil {
		h.onStart = func(t0 time.Time) { c.OnStart(si, t0) }
	}
	return h
}

// runStep sends reqs under policy l and drains. offsets (seconds) is the
// open-loop schedule, nil for a closed loop. index is the records' step
// index. t=0 is the step's start, which is also the first scheduled send.
// A measured step passes its hooks (at most one).
func runStep(ctx context.Context, c *client.Client, reqs []client.Prepared, offsets []float64, l result.LoadPolicy, index int,
	onRecord func(*result.Record, *capture), prog *Progress, hooks ...stepHooks) stepOut {
	s := &step{ctx: ctx, c: c, clk: client.NewClock(), reqs: reqs, recs: make([]result.Record, len(reqs)), caps: make([]capture, len(reqs)), sent: make([]bool, len(reqs)),
		index: index, deadline: durSeconds(l.DurationS), onRecord: onRecord, prog: prog}
	for _, h := range hooks {
		s.until = h.until
		if h.onStart != nil {
			h.onStart(s.clk.Start)
		}
	}
	s.reqCtx, s.cancelReqs = context.WithCancelCause(context.Background())
	defer s.cancelReqs(nil)
	if hasSessions(reqs) {
		s.runSessions(offsets, l) // sessions.go
	} else if offsets == nil {
		s.closedLoop(l.Concurrency)
	} else {
		s.openLoop(offsets, l.MaxConcurrency)
	}
	out := stepOut{start: s.clk.Start, sendEndS: seconds(s.clk.Now())}
	durationCut := s.deadline > 0 && ctx.Err() == nil
	out.interrupted, out.drainCut = s.drain(l)
	if durationCut && slices.Contains(s.sent, false) {
		// Stopped by --duration: an open loop stops at its last arrival
		// before the deadline, but the load was offered until it.
		out.sendEndS = math.Max(out.sendEndS, seconds(s.deadline))
	}
	out.interrupted = out.interrupted || ctx.Err() != nil
	for i := range s.recs {
		if s.sent[i] {
			out.recs = append(out.recs, s.recs[i])
			out.caps = append(out.caps, s.caps[i])
		} else {
			out.notSent++
		}
	}
	return out
}

// stopped reports whether sending must stop: interrupt, deadline or
// SendUntil.
func (s *step) stopped() bool {
	return s.ctx.Err() != nil || (s.deadline > 0 && s.clk.Now() >= s.deadline) || s.released()
}

// released reports whether SendUntil is closed.
func (s *step) released() bool {
	select {
	case <-s.until:
		return true
	default:
		return false
	}
}

// exec sends request i and accounts for it.
func (s *step) exec(i int, sched time.Duration, capDelayed bool, onSend func()) {
	rec := &s.recs[i]
	if p := s.prog; p != nil {
		p.Sent.Add(1)
	}
	rec.ID, rec.Step, rec.ScheduledS, rec.CapDelayed = s.reqs[i].Req.ID, s.index, seconds(sched), capDelayed
	sent, answer := s.c.Do(s.reqCtx, s.clk, &s.reqs[i], rec, onSend)
	if s.reqs[i].Capture && rec.OK {
		s.caps[i] = capture{body: s.reqs[i].Body, answer: answer}
	}
	if onSend != nil {
		onSend() // idempotent; covers a request that failed before sending
	}
	rec.SentS = seconds(sent)
	rec.SentAt, rec.DoneAt = result.WallAt(s.clk.Start, sent, rec.DoneMs)
	if p := s.prog; p != nil {
		p.Done.Add(1)
		if rec.OK {
			p.OK.Add(1)
			p.OutputTokens.Add(int64(rec.CompletionTokens))
		} else {
			p.Failed.Add(1)
		}
	}
	if s.onRecord != nil {
		s.onRecord(rec, &s.caps[i])
	}
}

// closedLoop keeps conc requests in flight: each worker takes the next
// request as soon as its previous one ends. It returns when sending is
// over: the last request has been sent, the duration passed or ctx is
// cancelled.
func (s *step) closedLoop(conc int) {
	n := len(s.reqs)
	var next atomic.Int64
	exhausted := make(chan struct{})
	var once sync.Once
	for range min(conc, n) {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for !s.stopped() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				s.sent[i] = true
				var onSend func()
				if i == n-1 {
					onSend = func() { once.Do(func() { close(exhausted) }) }
				}
				s.exec(i, s.clk.Now(), false, onSend)
			}
		}()
	}
	var dl <-chan time.Time
	if s.deadline > 0 {
		t := time.NewTimer(s.deadline - s.clk.Now())
		defer t.Stop()
		dl = t.C
	}
	select {
	case <-exhausted:
	case <-dl:
	case <-s.until:
	case <-s.ctx.Done():
	}
}

// openLoop sends each request at its offset (seconds), with at most
// maxConc in flight when maxConc > 0. It returns when the schedule is
// done, the duration passed or ctx is cancelled.
func (s *step) openLoop(offsets []float64, maxConc int) {
	order := make([]int, len(s.reqs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return offsets[order[a]] < offsets[order[b]] })
	var sem chan struct{}
	if maxConc > 0 {
		sem = make(chan struct{}, maxConc)
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for _, i := range order {
		at := durSeconds(offsets[i])
		if s.deadline > 0 && at >= s.deadline {
			break
		}
		if d := at - s.clk.Now(); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-s.until:
				return
			case <-s.ctx.Done():
				return
			}
		}
		if s.ctx.Err() != nil || s.released() {
			return
		}
		capDelayed, ok := s.acquire(sem)
		if !ok {
			return
		}
		s.sent[i] = true
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if sem != nil {
				defer func() { <-sem }()
			}
			s.exec(i, at, capDelayed, nil)
		}()
	}
}

// acquire takes a concurrency slot (none needed when sem is nil). It
// reports whether the request had to wait for one, and false as ok when
// sending must stop instead.
func (s *step) acquire(sem chan struct{}) (capDelayed, ok bool) {
	if sem == nil {
		return false, true
	}
	select {
	case sem <- struct{}{}:
	default:
		capDelayed = true
		select {
		case sem <- struct{}{}:
		case <-s.until:
			return capDelayed, false
		case <-s.ctx.Done():
			return capDelayed, false
		}
	}
	if s.deadline > 0 && s.clk.Now() >= s.deadline {
		<-sem
		return capDelayed, false
	}
	return capDelayed, true
}

// drain waits for the requests in flight under the drain rule and reports
// whether the run was interrupted and whether requests were cancelled.
func (s *step) drain(l result.LoadPolicy) (interrupted, cut bool) {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	defer func() { <-done }()
	interrupted = s.ctx.Err() != nil
	if l.Drain == result.DrainCancel {
		select {
		case <-done:
			return interrupted, false
		default:
			s.cancelReqs(&client.CancelCause{Msg: "cancelled by the drain rule"})
			return interrupted, true
		}
	}
	limit := durSeconds(l.DrainTimeoutS)
	if interrupted && (limit == 0 || limit > InterruptDrainCap) {
		limit = InterruptDrainCap
	}
	var tc <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		tc = t.C
	}
	ctxDone := s.ctx.Done()
	if interrupted {
		ctxDone = nil
	}
	hard := interrupt.Hard(s.ctx)
	for {
		select {
		case <-done:
			return interrupted, false
		case <-tc:
			s.cancelReqs(&client.CancelCause{Msg: "cancelled: drain timeout passed"})
			return interrupted, true
		case <-hard:
			// A second interrupt: stop waiting, cancel what is in flight.
			s.cancelReqs(&client.CancelCause{Msg: "cancelled by a second interrupt"})
			return true, true
		case <-ctxDone:
			// Interrupted while draining: cap the rest of the wait.
			interrupted, ctxDone = true, nil
			if tc == nil {
				t := time.NewTimer(InterruptDrainCap)
				defer t.Stop()
				tc = t.C
			}
		}
	}
}
