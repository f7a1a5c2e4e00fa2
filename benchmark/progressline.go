package benchmark

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Line is the one-line progress status: step, requests done of the step's
// total, ok and failed, and output tokens per second since the step began.
func (p *Progress) Line() string {
	tps := 0.0
	if start := p.Started.Load(); start != 0 {
		if el := time.Since(time.Unix(0, start)).Seconds(); el > 0 {
			tps = float64(p.OutputTokens.Load()) / el
		}
	}
	return fmt.Sprintf("step %d  %d/%d done  %d ok  %d failed  %.0f tok/s", p.Step.Load(), p.Done.Load(), p.Total.Load(), p.OK.Load(), p.Failed.Load(), tps)
}

// ShowProgress redraws p's Line in place on w (a terminal) every interval
// until the returned stop is called, which draws it a last time and ends
// the line.
func ShowProgress(w io.Writer, p *Progress, every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	draw := func() { fmt.Fprintf(w, "\r%s   ", p.Line()) }
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				draw()
				fmt.Fprintln(w)
				return
			case <-t.C:
				draw()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
