package benchmark

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
)

// Multi-turn sessions (workload.Request.Session/Turn).
//
// A session's turns are sent one after another: turn k+1 is sent as soon
// as turn k's answer has fully arrived (no think time), with the
// conversation so far in front of its own messages: every earlier turn's
// messages, each followed by the server's actual answer text as an
// assistant message (what a real chat client sends back, so the server's
// prefix cache sees the same history it produced). A failed turn ends its
// session: the later turns are not sent (requests_not_sent).
//
// Concurrency: a session holds one slot for its whole conversation. In a
// closed loop each of the --concurrency workers runs one session (or one
// single request) at a time; in an open loop a session starts at its
// first turn's arrival time and, with --max-concurrency, keeps its slot
// until its last turn ends. Requests without a session are one-turn
// sessions. Sending is over when every turn has been sent or abandoned.

// hasSessions reports whether any request is a session turn.
func hasSessions(reqs []client.Prepared) bool {
	return slices.ContainsFunc(reqs, func(p client.Prepared) bool { return p.Req.Session != "" })
}

// sessionUnits groups request indices into sessions: a session's turns in
// order, every other request alone; units are ordered by first index.
func sessionUnits(reqs []client.Prepared) [][]int {
	return workload.UnitsOf(len(reqs), func(i int) string { return reqs[i].Req.Session })
}

// withMessages re-encodes a chat body with msgs as its messages.
func withMessages(body []byte, msgs []workload.Message) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	m["messages"], _ = json.Marshal(msgs)
	b, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return b
}

// runSessions sends the step's requests as sessions: a closed loop when
// offsets is nil, else each session starts at its first turn's offset.
func (s *step) runSessions(offsets []float64, l result.LoadPolicy) {
	s.reqs = slices.Clone(s.reqs) // bodies are rewritten per step
	for i := range s.reqs {
		s.reqs[i].Capture = s.reqs[i].Capture || s.reqs[i].Req.Session != ""
	}
	units := sessionUnits(s.reqs)
	var left atomic.Int64
	left.Add(int64(len(s.reqs)))
	exhausted := make(chan struct{})
	var once sync.Once
	done := func(n int) {
		if left.Add(-int64(n)) == 0 {
			once.Do(func() { close(exhausted) })
		}
	}
	if offsets == nil {
		s.sessionWorkers(units, l.Concurrency, done)
	} else {
		s.sessionSchedule(units, sessionStarts(s.reqs, units, offsets, l.Mode), l.MaxConcurrency, done)
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
	case <-s.ctx.Done():
	}
}

// sessionWorkers is the closed loop: conc workers, each running one
// session at a time.
func (s *step) sessionWorkers(units [][]int, conc int, done func(int)) {
	var next atomic.Int64
	for range min(conc, len(units)) {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for !s.stopped() {
				u := int(next.Add(1) - 1)
				if u >= len(units) {
					return
				}
				s.session(units[u], -1, false, done)
			}
		}()
	}
}

// sessionStarts is each unit's start offset (seconds): its first turn's
// own arrival_offset_s, else in rate mode the unit's place in the arrival
// process (so --request-rate is the rate at which sessions start).
func sessionStarts(reqs []client.Prepared, units [][]int, offsets []float64, mode result.Mode) []float64 {
	starts := make([]float64, len(units))
	for k, u := range units {
		starts[k] = offsets[u[0]]
		if mode == result.ModeRate && reqs[u[0]].Req.ArrivalOffsetS == nil {
			starts[k] = offsets[k]
		}
	}
	return starts
}

// sessionSchedule is the open loop: each session starts at its start
// offset, holding a --max-concurrency slot until it ends.
func (s *step) sessionSchedule(units [][]int, starts []float64, maxConc int, done func(int)) {
	order := make([]int, len(units))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(starts[a], starts[b]) })
	var sem chan struct{}
	if maxConc > 0 {
		sem = make(chan struct{}, maxConc)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for _, k := range order {
			u := units[k]
			at := durSeconds(starts[k])
			if s.deadline > 0 && at >= s.deadline {
				return
			}
			if d := at - s.clk.Now(); d > 0 {
				select {
				case <-time.After(d):
				case <-s.ctx.Done():
					return
				}
			}
			capDelayed, ok := s.acquire(sem)
			if !ok {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				if sem != nil {
					defer func() { <-sem }()
				}
				s.session(u, starts[k], capDelayed, done)
			}()
		}
	}()
}

// session sends a unit's turns in order, each after the previous answer,
// with the conversation so far. first >= 0 is the first turn's scheduled
// offset (seconds); later turns are scheduled when they are sent.
func (s *step) session(unit []int, first float64, capDelayed bool, done func(int)) {
	var hist []workload.Message
	for k, i := range unit {
		if s.stopped() || (k > 0 && !s.recs[unit[k-1]].OK) {
			done(len(unit) - k)
			return
		}
		p := &s.reqs[i]
		if k > 0 || p.Req.Session != "" {
			msgs := append(slices.Clone(hist), p.Req.Messages...)
			if k > 0 {
				p.Body = withMessages(p.Body, msgs)
			}
			hist = msgs
		}
		sched := s.clk.Now()
		if k == 0 && first >= 0 {
			sched = durSeconds(first)
		}
		s.sent[i] = true
		var once sync.Once // exec may call onSend twice
		s.exec(i, sched, capDelayed && k == 0, func() { once.Do(func() { done(1) }) })
		hist = append(hist, workload.Message{Role: "assistant", Content: s.caps[i].answer})
	}
}
