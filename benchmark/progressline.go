package benchmark

import (
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// Progress is live run state for a progress display; the runner stores it
// with atomic operations and a display reads it from another goroutine.
// Counts are requests of the current step (or of the warmup); Started is
// the step's start in Unix nanoseconds, 0 before the first step.
type Progress struct {
	Step         atomic.Int64 // measured step, counted from 0; -1 during warmup
	Steps        atomic.Int64 // measured steps in the run
	Total        atomic.Int64 // requests offered in the current step
	Sent         atomic.Int64 // requests handed to the client (sent or being sent)
	Done         atomic.Int64
	OK           atomic.Int64
	Failed       atomic.Int64
	OutputTokens atomic.Int64
	Started      atomic.Int64
	load         atomic.Pointer[string] // the step's load, e.g. "concurrency 16"
}

// begin starts a step's counts: step (from 0, -1 for the warmup) of
// steps, total requests, under load (a description such as "rate 8").
func (p *Progress) begin(step, steps, total int, load string) {
	if p == nil {
		return
	}
	p.Step.Store(int64(step))
	p.Steps.Store(int64(steps))
	p.Total.Store(int64(total))
	for _, c := range []*atomic.Int64{&p.Sent, &p.Done, &p.OK, &p.Failed, &p.OutputTokens} {
		c.Store(0)
	}
	p.load.Store(&load)
	p.Started.Store(time.Now().UnixNano())
}

// loadText describes l's offered load for the progress line.
func loadText(l *result.LoadPolicy) string {
	switch {
	case l.Mode == result.ModeConcurrency:
		return fmt.Sprintf("concurrency %d", l.Concurrency)
	case math.IsInf(l.Rate, 1):
		return "rate inf"
	default:
		return fmt.Sprintf("rate %g req/s", l.Rate)
	}
}

// Line is the one-line progress status at now: the step counted from 1
// of all steps and its load (or "warmup"), requests done of the step's
// total, in flight and failed, the time elapsed in the step, the ETA
// from the step's done rate ("—" until a request is done) and output
// tokens per second since the step began. It is "" before any step.
func (p *Progress) Line(now time.Time) string {
	start := p.Started.Load()
	if start == 0 {
		return ""
	}
	el := max(now.Sub(time.Unix(0, start)), 0)
	done, total := p.Done.Load(), p.Total.Load()
	eta := "—"
	if done > 0 {
		eta = fmtElapsed(time.Duration(float64(el) * float64(max(total-done, 0)) / float64(done)))
	}
	tps := 0.0
	if s := el.Seconds(); s > 0 {
		tps = float64(p.OutputTokens.Load()) / s
	}
	what := "warmup"
	if step := p.Step.Load(); step >= 0 {
		what = fmt.Sprintf("step %d/%d", step+1, p.Steps.Load())
	}
	if l := p.load.Load(); l != nil && *l != "" {
		what += " " + *l
	}
	return fmt.Sprintf("%s  %d/%d done  %d in flight  %d failed  elapsed %s  ETA %s  %.0f tok/s",
		what, done, total, max(p.Sent.Load()-done, 0), p.Failed.Load(), fmtElapsed(el), eta, tps)
}

// fmtElapsed writes d for the progress line: tenths of a second under
// 10 s, whole seconds under a minute, then minutes and hours.
func fmtElapsed(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	case d < time.Hour:
		s := int(d.Round(time.Second).Seconds())
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		m := int(d.Round(time.Minute).Minutes())
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
}

// Redraw intervals of the progress display: a terminal's line is redrawn
// in place; elsewhere (a log file, a pipe) a plain line is written now
// and then.
const (
	TerminalEvery = 250 * time.Millisecond
	PlainEvery    = 5 * time.Second
)

// ShowProgress displays p's Line on w until the returned stop is called,
// which shows it a last time and ends the line. On a terminal the line is
// redrawn in place every TerminalEvery ("\r", the line, then "\x1b[K"
// erasing whatever a longer earlier line left); otherwise a plain line is
// written every PlainEvery. Nothing is written before the first step.
func ShowProgress(w io.Writer, p *Progress, terminal bool) (stop func()) {
	every := PlainEvery
	if terminal {
		every = TerminalEvery
	}
	return showProgress(w, p, every, terminal, time.Now)
}

// showProgress is ShowProgress with its interval and clock given.
func showProgress(w io.Writer, p *Progress, every time.Duration, terminal bool, now func() time.Time) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	drawn := false
	draw := func() {
		line := p.Line(now())
		switch {
		case line == "":
		case terminal:
			fmt.Fprintf(w, "\r%s\x1b[K", line)
			drawn = true
		default:
			fmt.Fprintln(w, line)
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				draw()
				if drawn {
					fmt.Fprintln(w)
				}
				return
			case <-t.C:
				draw()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
