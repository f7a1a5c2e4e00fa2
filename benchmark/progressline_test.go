package benchmark

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// setProgress fills a Progress as the runner would, started at t0.
func setProgress(step, steps int, load string, total, sent, done, failed, tokens int64, t0 time.Time) *Progress {
	p := &Progress{}
	p.begin(step, steps, int(total), load)
	p.Started.Store(t0.UnixNano())
	p.Sent.Store(sent)
	p.Done.Store(done)
	p.OK.Store(done - failed)
	p.Failed.Store(failed)
	p.OutputTokens.Store(tokens)
	return p
}

func TestProgressLineContent(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name string
		p    *Progress
		at   time.Duration
		want string
	}{
		{"first step, nothing done yet", setProgress(0, 4, "concurrency 1", 64, 1, 0, 0, 0, t0), 0,
			"step 1/4 concurrency 1  0/64 done  1 in flight  0 failed  elapsed 0.0s  ETA —  0 tok/s"},
		{"second step, a quarter done", setProgress(1, 4, "concurrency 16", 64, 32, 16, 1, 2400, t0), 3 * time.Second,
			"step 2/4 concurrency 16  16/64 done  16 in flight  1 failed  elapsed 3.0s  ETA 9.0s  800 tok/s"},
		{"single run, minutes", setProgress(0, 1, "rate 8 req/s", 1000, 600, 590, 0, 59000, t0), 75 * time.Second,
			"step 1/1 rate 8 req/s  590/1000 done  10 in flight  0 failed  elapsed 1m15s  ETA 52s  787 tok/s"},
		{"step finished", setProgress(3, 4, "rate inf", 10, 10, 10, 0, 100, t0), 2 * time.Second,
			"step 4/4 rate inf  10/10 done  0 in flight  0 failed  elapsed 2.0s  ETA 0.0s  50 tok/s"},
		{"warmup", setProgress(-1, 0, "concurrency 4", 4, 4, 2, 0, 64, t0), time.Second,
			"warmup concurrency 4  2/4 done  2 in flight  0 failed  elapsed 1.0s  ETA 1.0s  64 tok/s"},
		{"hours", setProgress(0, 2, "concurrency 2", 100, 3, 1, 0, 0, t0), 2 * time.Hour,
			"step 1/2 concurrency 2  1/100 done  2 in flight  0 failed  elapsed 2h00m  ETA 198h00m  0 tok/s"},
		{"before any step", &Progress{}, time.Second, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Line(t0.Add(tc.at)); got != tc.want {
				t.Errorf("Line =\n%q, want\n%q", got, tc.want)
			}
		})
	}
}

func TestLoadText(t *testing.T) {
	for _, tc := range []struct {
		l    result.LoadPolicy
		want string
	}{
		{result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 16}, "concurrency 16"},
		{result.LoadPolicy{Mode: result.ModeRate, Rate: 2.5}, "rate 2.5 req/s"},
		{result.LoadPolicy{Mode: result.ModeRate, Rate: math.Inf(1)}, "rate inf"},
	} {
		if got := loadText(&tc.l); got != tc.want {
			t.Errorf("loadText(%+v) = %q, want %q", tc.l, got, tc.want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the display's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// waitFor waits until buf holds n occurrences of sub.
func waitFor(t *testing.T, buf *syncBuffer, sub string, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); strings.Count(buf.String(), sub) < n; {
		if time.Now().After(deadline) {
			t.Fatalf("no %d× %q in %q", n, sub, buf.String())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestShowProgressTerminal(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := setProgress(0, 2, "concurrency 8", 100, 100, 0, 0, 0, t0)
	var buf syncBuffer
	stop := showProgress(&buf, p, time.Millisecond, true, func() time.Time { return t0.Add(time.Second) })
	waitFor(t, &buf, "\r", 2)
	p.Done.Store(100) // a shorter line ("0 in flight") follows a longer one
	p.begin(1, 2, 10, "concurrency 16")
	p.Started.Store(t0.UnixNano())
	stop()
	out := buf.String()
	if !strings.HasSuffix(out, "\x1b[K\n") {
		t.Errorf("the last line is not erased to its end and ended: %q", out)
	}
	for i, seg := range strings.Split(strings.TrimSuffix(out, "\n"), "\r")[1:] {
		if !strings.HasPrefix(seg, "step ") || !strings.HasSuffix(seg, " tok/s\x1b[K") {
			t.Errorf("redraw %d = %q, want a whole line erased to its end", i, seg)
		}
	}
	if last := out[strings.LastIndex(out, "\r"):]; !strings.HasPrefix(last, "\rstep 2/2 concurrency 16  0/10 done") {
		t.Errorf("final line = %q, want step 2/2", last)
	}
}

func TestShowProgressPlain(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := setProgress(0, 1, "concurrency 8", 100, 8, 4, 0, 0, t0)
	var buf syncBuffer
	stop := showProgress(&buf, p, time.Millisecond, false, func() time.Time { return t0.Add(time.Second) })
	waitFor(t, &buf, "\n", 2)
	stop()
	out := buf.String()
	if strings.ContainsAny(out, "\r\x1b") {
		t.Errorf("plain progress holds a carriage return or an escape: %q", out)
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("final line not ended: %q", out)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(l, "step 1/1 concurrency 8  4/100 done  4 in flight") {
			t.Errorf("line %q", l)
		}
	}
}

func TestShowProgressNothingBeforeFirstStep(t *testing.T) {
	for _, term := range []bool{true, false} {
		var buf syncBuffer
		stop := showProgress(&buf, &Progress{}, time.Millisecond, term, time.Now)
		time.Sleep(5 * time.Millisecond)
		stop()
		if buf.String() != "" {
			t.Errorf("terminal %v: wrote %q before any step", term, buf.String())
		}
	}
}
