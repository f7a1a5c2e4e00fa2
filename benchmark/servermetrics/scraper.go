package servermetrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/redact"
)

// ErrNoAnswer is the cause of a scrape's own deadline (WithDeadline): a
// scrape it cuts counts as a failed one, so that an endpoint that hangs
// is reported; a scrape cut by the end of the run does not count.
var ErrNoAnswer = errors.New("the metrics endpoint did not answer in time")

// WithDeadline bounds one scrape (a baseline, the last one) by d, with
// ErrNoAnswer as the cause.
func WithDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, ErrNoAnswer)
}

// DefaultInterval is the polling period when NewScraper is given zero.
const DefaultInterval = 500 * time.Millisecond

// maxBody bounds one /metrics page.
const maxBody = 64 << 20

type series struct {
	engineMetric string
	kind         result.MetricKind
	unit         string
	samples      []result.ServerSample
}

// Scraper polls one /metrics URL. Create it with NewScraper, optionally
// call SetStart, run Run in a goroutine, cancel its context to stop it and
// then call Result. Result may also be called while Run is going.
type Scraper struct {
	url    string
	every  time.Duration
	client *http.Client

	mu       sync.Mutex
	start    time.Time
	series   map[string]*series
	scrapes  int
	errors   int
	firstErr string
	notFound string // set when the endpoint answered 404/405/501
	families int
	renamed  []string

	firstOnce sync.Once
	first     chan struct{} // closed once the first scrape has ended
}

// FirstScrape returns a channel that is closed when Run's first scrape has
// ended (successfully or not). A caller waits on it so that the baseline
// sample is taken before the load starts: counter increases are measured
// from the last sample at or before the window start.
func (s *Scraper) FirstScrape() <-chan struct{} { return s.first }

// NewScraper returns a scraper for url polling every interval
// (DefaultInterval when zero or negative). c nil means the scrape
// client (promscrape.NewClient: the one client policy of
// internal/httppolicy) with a 5 s timeout.
func NewScraper(url string, every time.Duration, c *http.Client) *Scraper {
	if every <= 0 {
		every = DefaultInterval
	}
	if c == nil {
		c = scrapeClient()
	}
	return &Scraper{url: url, every: every, client: c, series: map[string]*series{}, first: make(chan struct{})}
}

// SetStart sets the instant sample times are measured from. Call it
// before Run; without it the start is the moment Run begins.
func (s *Scraper) SetStart(t time.Time) {
	s.mu.Lock()
	s.start = t
	s.mu.Unlock()
}

// Run scrapes at once and then every interval until ctx is done, then
// scrapes a last time (bounded by two seconds) so the end of the run is
// covered, and returns. It stops polling early, with a warning, when the
// endpoint does not exist (HTTP 404, 405 or 501).
func (s *Scraper) Run(ctx context.Context) {
	s.mu.Lock()
	if s.start.IsZero() {
		s.start = time.Now()
	}
	s.mu.Unlock()
	t := time.NewTicker(s.every)
	defer t.Stop()
	defer s.firstOnce.Do(func() { close(s.first) })
	for {
		ok := s.scrape(ctx)
		s.firstOnce.Do(func() { close(s.first) })
		if !ok {
			<-ctx.Done()
			return
		}
		select {
		case <-ctx.Done():
			fctx, cancel := WithDeadline(context.WithoutCancel(ctx), 2*time.Second)
			s.scrape(fctx)
			cancel()
			return
		case <-t.C:
		}
	}
}

// scrape fetches and records one page. It returns false when the endpoint
// is missing and polling should stop.
func (s *Scraper) scrape(ctx context.Context) bool {
	t0 := time.Now()
	snap, status, err := fetch(ctx, s.client, s.url)
	t1 := time.Now()
	if err != nil && ctx.Err() != nil && !errors.Is(context.Cause(ctx), ErrNoAnswer) {
		return true // the run ended mid-request: not the server's fault
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errors++
		if s.firstErr == "" {
			s.firstErr = redact.Text(err.Error())
		}
		if status == http.StatusNotFound || status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented {
			s.notFound = redact.Text(err.Error())
			return false
		}
		return true
	}
	s.scrapes++
	s.families = snap.Families
	at := t0.Add(t1.Sub(t0) / 2).Sub(s.start).Seconds()
	for _, r := range snap.Readings {
		sr, ok := s.series[r.Name]
		if !ok {
			sr = &series{engineMetric: r.EngineMetric, kind: r.Kind, unit: r.Unit}
			s.series[r.Name] = sr
		} else if sr.engineMetric != r.EngineMetric {
			s.renamed = append(s.renamed, fmt.Sprintf("%s: source changed from %s to %s at t=%.3fs", r.Name, sr.engineMetric, r.EngineMetric, at))
			sr.engineMetric = r.EngineMetric
		}
		sr.samples = append(sr.samples, result.ServerSample{at, r.Value})
		// Keep time order when a ScrapeNow overlaps a periodic scrape.
		for i := len(sr.samples) - 1; i > 0 && sr.samples[i-1][0] > sr.samples[i][0]; i-- {
			sr.samples[i-1], sr.samples[i] = sr.samples[i], sr.samples[i-1]
		}
	}
	return true
}

// ScrapeNow takes one sample at once, besides the periodic ones; Run must
// have been started (it sets the time base). A caller uses it right before
// a measured phase begins, so that counters have a baseline that excludes
// what came before (warmup, an earlier sweep step).
func (s *Scraper) ScrapeNow(ctx context.Context) {
	s.mu.Lock()
	stopped := s.notFound != ""
	s.mu.Unlock()
	if !stopped {
		s.scrape(ctx)
	}
}

// Result summarises the samples recorded so far over the window
// [windowStart, windowEnd] (seconds from the run start; math.Inf(1) as
// the end means "to the last sample").
func (s *Scraper) Result(windowStart, windowEnd float64) *result.ServerMetrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := &result.ServerMetrics{
		URL:          redact.URL(s.url),
		IntervalS:    s.every.Seconds(),
		WindowStartS: windowStart,
		WindowEndS:   windowEnd,
		Scrapes:      s.scrapes,
		ScrapeErrors: s.errors,
		Metrics:      []result.ServerMetric{},
	}
	lastT := math.Inf(-1)
	for i := range specs {
		sr, ok := s.series[specs[i].Name]
		if !ok {
			continue
		}
		m := summarise(specs[i].Name, sr, windowStart, windowEnd)
		res.Metrics = append(res.Metrics, m)
		if n := len(sr.samples); n > 0 {
			lastT = math.Max(lastT, sr.samples[n-1][0])
		}
	}
	if math.IsInf(windowEnd, 1) {
		res.WindowEndS = math.Max(lastT, windowStart)
		if math.IsInf(lastT, -1) {
			res.WindowEndS = windowStart
		}
	}
	var engines []string
	for _, m := range res.Metrics {
		if e := engineOf(m.EngineMetric); e != "" && !slices.Contains(engines, e) {
			engines = append(engines, e)
		}
	}
	sort.Strings(engines)
	res.Engine = strings.Join(engines, "+")
	var hits, queries *float64
	for _, m := range res.Metrics {
		switch m.Name {
		case "prefix_cache_hits":
			hits = m.Increase
		case "prefix_cache_queries":
			queries = m.Increase
		}
	}
	if hits != nil && queries != nil && *queries > 0 {
		r := *hits / *queries
		res.PrefixCacheHitRate = &r
	}
	res.Warnings = s.warnings(res)
	return res
}

func (s *Scraper) warnings(res *result.ServerMetrics) []string {
	var w []string
	switch {
	case s.notFound != "":
		w = append(w, fmt.Sprintf("server metrics: endpoint missing (%s); none recorded", s.notFound))
	case s.scrapes == 0 && s.errors == 0:
		w = append(w, fmt.Sprintf("server metrics: no scrape of %s finished during the run (the endpoint did not answer in time); none recorded", redact.URL(s.url)))
	case s.scrapes == 0 && s.errors > 0:
		w = append(w, fmt.Sprintf("server metrics: all %d scrapes failed; first error: %s", s.errors, s.firstErr))
	case s.errors > 0:
		w = append(w, fmt.Sprintf("server metrics: %d of %d scrapes failed; first error: %s", s.errors, s.errors+s.scrapes, s.firstErr))
	}
	if s.scrapes > 0 && len(s.series) == 0 {
		w = append(w, fmt.Sprintf("server metrics: %s exposes %d metric families, none of them a known vLLM, SGLang, TGI, TensorRT-LLM or DCGM name", redact.URL(s.url), s.families))
	}
	if s.scrapes > 0 && len(s.series) > 0 {
		inWindow := 0
		for _, m := range res.Metrics {
			inWindow = max(inWindow, m.WindowSamples)
		}
		if inWindow < 2 {
			w = append(w, fmt.Sprintf("server metrics: only %d sample(s) inside the measurement window; peaks and means are unreliable", inWindow))
		}
	}
	w = append(w, s.renamed...)
	return w
}

func summarise(name string, sr *series, lo, hi float64) result.ServerMetric {
	m := result.ServerMetric{
		Name:         name,
		EngineMetric: sr.engineMetric,
		Kind:         sr.kind,
		Unit:         sr.unit,
		Samples:      append([]result.ServerSample(nil), sr.samples...),
	}
	last := -1 // index of the window's last sample
	peak, sum := math.Inf(-1), 0.0
	for i, p := range sr.samples {
		if p[0] < lo || p[0] > hi {
			continue
		}
		last = i
		m.WindowSamples++
		peak = math.Max(peak, p[1])
		sum += p[1]
	}
	if m.WindowSamples > 0 {
		m.Peak = &peak
	}
	if sr.kind == result.Gauge {
		if m.WindowSamples > 0 {
			mean := sum / float64(m.WindowSamples)
			m.Mean = &mean
		}
		return m
	}
	// A counter's increase runs between the samples that bracket the
	// window: the last one at or before its start (else the first inside
	// it) and the first one at or after its end (else the last inside it).
	// A window shorter than the scrape interval may hold no sample and
	// still be bracketed.
	base, end := -1, -1
	for i, p := range sr.samples {
		if p[0] <= lo || (base < 0 && p[0] <= hi) {
			base = i
		}
		if end < 0 && p[0] >= hi {
			end = i
		}
	}
	if end < 0 {
		end = last
	}
	if base < 0 || end < 0 || (end <= base && m.WindowSamples == 0) {
		return m
	}
	inc := 0.0
	for i := base + 1; i <= end; i++ {
		d := sr.samples[i][1] - sr.samples[i-1][1]
		if d < 0 { // reset: the counter restarted from zero
			d = sr.samples[i][1]
		}
		inc += d
	}
	m.Increase = &inc
	if dt := sr.samples[end][0] - sr.samples[base][0]; dt > 0 {
		r := inc / dt
		m.RatePerS = &r
	}
	return m
}
