package benchmark

import (
	"context"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/servermetrics"
)

// Server-metrics timing: how long the first scrape may hold up the run,
// and how long one baseline scrape may take.
const (
	firstScrapeWait = 2 * time.Second
	baselineTimeout = 2 * time.Second
)

// metricsRun is the server-metrics scraper of one run. It scrapes on a
// context that an interrupt does not cancel, so that the drain is still
// covered; stop ends it. A nil *metricsRun scrapes nothing.
type metricsRun struct {
	s      *servermetrics.Scraper
	start  time.Time
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// startMetrics starts scraping mc.URL and waits (briefly) for the first
// sample: the baseline must be taken before the first request, or the
// counters' increases miss what that request counted.
func startMetrics(ctx context.Context, mc MetricsConfig) *metricsRun {
	if mc.URL == "" {
		return nil
	}
	m := &metricsRun{s: servermetrics.NewScraper(mc.URL, mc.Every, nil), start: time.Now(), done: make(chan struct{})}
	m.s.SetStart(m.start)
	m.ctx, m.cancel = context.WithCancel(context.WithoutCancel(ctx))
	go func() { m.s.Run(m.ctx); close(m.done) }()
	select {
	case <-m.s.FirstScrape():
	case <-time.After(firstScrapeWait):
	case <-ctx.Done():
	}
	return m
}

// baseline takes a sample now (a measured step is about to start).
func (m *metricsRun) baseline() {
	if m == nil {
		return
	}
	ctx, cancel := servermetrics.WithDeadline(m.ctx, baselineTimeout)
	m.s.ScrapeNow(ctx)
	cancel()
}

// stop ends scraping (after a last sample) and waits for it.
func (m *metricsRun) stop() {
	if m == nil {
		return
	}
	m.cancel()
	<-m.done
}

// result summarises the samples over [from, to].
func (m *metricsRun) result(from, to time.Time) *result.ServerMetrics {
	return m.s.Result(from.Sub(m.start).Seconds(), to.Sub(m.start).Seconds())
}
