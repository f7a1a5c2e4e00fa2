package gputelemetry

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"

	"github.com/servecmp/servecmp/benchmark/promscrape"
	"github.com/servecmp/servecmp/internal/redact"
)

// maxRows bounds the samples kept per GPU; past it every other unpinned
// sample is dropped (the period doubles), edge samples kept.
const maxRows = 2048

// mark says why a scrape was taken.
type mark uint8

const (
	periodic mark = iota // Run's polling
	edge                 // ScrapeNow's first scrape, at a window edge
	edgePair             // ScrapeNow's second, pairGap after the first
)

// pairGap separates the two scrapes of ScrapeNow: an exporter whose
// energy counter changes across every such pair refreshes its readings at
// least that often (freshness).
const pairGap = 20 * time.Millisecond

// row is one GPU's readings in one scrape; NaN marks an absent field.
type row struct {
	t      float64 // seconds from the run start
	pinned bool    // taken by ScrapeNow at a window edge
	pair   bool    // the second scrape of a ScrapeNow
	v      [nFields]float64
}

// gpuSeries is one GPU's samples in time order.
type gpuSeries struct {
	id   result.GPUID // labels of the latest page
	rows []row
}

// node is one exporter and what it answered.
type node struct {
	ep        Endpoint
	url       string // redacted
	sel       map[string]bool
	hit       map[string]bool // selection tokens that matched a GPU
	gpus      map[string]*gpuSeries
	order     []string // GPU keys, first seen first
	others    []string // unselected GPUs seen (bounded), for warnings
	scrapes   int
	errors    int
	firstErr  string
	stopped   string // why polling stopped (endpoint missing)
	dups      int
	unlabeled int
	overCap   int
	invalid   [nFields]int
}

// Scraper samples the exporters of one engine. Create it with New,
// optionally call SetStart, run Run in a goroutine, call ScrapeNow at
// each window edge, cancel Run's context to stop and then call Result
// (which may also be called while Run is going).
type Scraper struct {
	every, timeout time.Duration
	client         *http.Client
	nodes          []*node

	mu        sync.Mutex
	start     time.Time
	totalGPUs int

	firstOnce sync.Once
	first     chan struct{}
}

// New checks cfg and returns a scraper for it.
func New(cfg Config) (*Scraper, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Scraper{every: cfg.Every, timeout: cfg.Timeout, client: cfg.Client, first: make(chan struct{})}
	if s.every <= 0 {
		s.every = DefaultInterval
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.client == nil {
		s.client = promscrape.NewClient(s.timeout)
	}
	for _, e := range cfg.Endpoints {
		n := &node{ep: e, url: redact.URL(e.URL), sel: map[string]bool{}, hit: map[string]bool{}, gpus: map[string]*gpuSeries{}}
		for _, g := range e.GPUs {
			n.sel[g] = true
		}
		s.nodes = append(s.nodes, n)
	}
	return s, nil
}

// SetStart sets the instant sample times are measured from; call it
// before Run. Without it the start is the moment Run begins.
func (s *Scraper) SetStart(t time.Time) {
	s.mu.Lock()
	s.start = t
	s.mu.Unlock()
}

// FirstScrape is closed once every exporter's first scrape has ended,
// answered or not: the caller waits on it (briefly) before the load
// starts, so that the counters have a baseline.
func (s *Scraper) FirstScrape() <-chan struct{} { return s.first }

// Run polls every exporter, each on its own period, until ctx is done,
// then scrapes each a last time (bounded by the scrape timeout) and
// returns. An exporter that answers 404, 405 or 501 is not polled again.
func (s *Scraper) Run(ctx context.Context) {
	s.mu.Lock()
	if s.start.IsZero() {
		s.start = time.Now()
	}
	s.mu.Unlock()
	var wg, firsts sync.WaitGroup
	firsts.Add(len(s.nodes))
	for _, n := range s.nodes {
		wg.Go(func() { s.poll(ctx, n, sync.OnceFunc(firsts.Done)) })
	}
	go func() { firsts.Wait(); s.firstOnce.Do(func() { close(s.first) }) }()
	wg.Wait()
}

func (s *Scraper) poll(ctx context.Context, n *node, firstDone func()) {
	defer firstDone()
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		_, ok := s.scrape(ctx, n, periodic)
		firstDone()
		if !ok {
			return
		}
		select {
		case <-ctx.Done():
			s.scrape(context.WithoutCancel(ctx), n, periodic)
			return
		case <-t.C:
		}
	}
}

// ScrapeNow scrapes every exporter at once and waits: a caller takes it
// right before a measured phase starts and right after it ends, so that
// both edges have a sample. Each exporter is scraped twice, pairGap
// apart: when its energy counter moves across every such pair, its
// readings are fresh to within the pair's gap (freshness), which bounds
// the readings' age at the edges far tighter than the polling period
// does. Run must have been started (it sets the time base).
func (s *Scraper) ScrapeNow(ctx context.Context) {
	var wg sync.WaitGroup
	for _, n := range s.nodes {
		wg.Go(func() {
			if answered, _ := s.scrape(ctx, n, edge); answered {
				select {
				case <-time.After(pairGap):
					s.scrape(ctx, n, edgePair)
				case <-ctx.Done():
				}
			}
		})
	}
	wg.Wait()
}

// scrape fetches one page of n and records it. It reports whether the
// exporter answered with a page, and keep false when it is missing and
// polling should stop.
func (s *Scraper) scrape(ctx context.Context, n *node, how mark) (answered, keep bool) {
	s.mu.Lock()
	stopped := n.stopped != ""
	s.mu.Unlock()
	if stopped {
		return false, false
	}
	sctx, cancel := context.WithTimeout(ctx, s.timeout)
	t0 := time.Now()
	body, status, err := promscrape.Get(sctx, s.client, n.ep.URL, maxPageBytes)
	t1 := time.Now() // the sample's time is the exchange's midpoint, parsing left out
	var p page
	if err == nil {
		if p, err = parsePage(body); err != nil {
			err = fmt.Errorf("GET %s: %w", n.url, err)
		}
	}
	cancel()
	if err != nil && ctx.Err() != nil {
		return false, true // cancelled mid-request: not the exporter's fault
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		n.errors++
		if n.firstErr == "" {
			n.firstErr = redact.Text(err.Error())
		}
		if status == http.StatusNotFound || status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented {
			n.stopped = n.firstErr
			return false, false
		}
		return false, true
	}
	n.scrapes++
	s.record(n, p, t0.Add(t1.Sub(t0)/2).Sub(s.start).Seconds(), how)
	return true, true
}

// record files a parsed page's selected GPUs under n. Caller holds s.mu.
func (s *Scraper) record(n *node, p page, at float64, how mark) {
	n.dups += p.dups
	n.unlabeled += p.unlabeled
	n.overCap += p.overCap
	for f := range nFields {
		n.invalid[f] += p.invalid[f]
	}
	for _, r := range p.gpus {
		if !n.selects(r.id) {
			if len(n.others) < maxGPUsPerNode {
				n.others = append(n.others, keyOf(r.id))
			}
			continue
		}
		g := n.gpus[keyOf(r.id)]
		if g == nil {
			if s.totalGPUs >= maxGPUsTotal || len(n.gpus) >= maxGPUsPerNode {
				n.overCap++
				continue
			}
			g = &gpuSeries{}
			n.gpus[keyOf(r.id)] = g
			n.order = append(n.order, keyOf(r.id))
			s.totalGPUs++
		}
		g.id = r.id
		g.add(row{t: at, pinned: how != periodic, pair: how == edgePair, v: r.v})
	}
}

// selects reports whether the engine owns the GPU, noting the token that
// matched.
func (n *node) selects(id result.GPUID) bool {
	if len(n.sel) == 0 {
		return true
	}
	for _, tok := range []string{id.Index, id.UUID} {
		if tok != "" && n.sel[tok] {
			n.hit[tok] = true
			return true
		}
	}
	return false
}

// add inserts r in time order (a ScrapeNow may overlap a periodic
// scrape) and thins the series past maxRows.
func (g *gpuSeries) add(r row) {
	g.rows = append(g.rows, r)
	for i := len(g.rows) - 1; i > 0 && g.rows[i-1].t > g.rows[i].t; i-- {
		g.rows[i-1], g.rows[i] = g.rows[i], g.rows[i-1]
	}
	if len(g.rows) > maxRows {
		g.thin()
	}
}

// thin drops every other sample but the first, the last and the pinned
// ones (unless pinned samples alone would fill a quarter of the bound).
func (g *gpuSeries) thin() {
	pinned := 0
	for _, r := range g.rows {
		if r.pinned {
			pinned++
		}
	}
	keepPinned := pinned < maxRows/4
	out, drop := g.rows[:0], false
	for i, r := range g.rows {
		if i == 0 || i == len(g.rows)-1 || (r.pinned && keepPinned) {
			out = append(out, r)
			continue
		}
		if !drop {
			out = append(out, r)
		}
		drop = !drop
	}
	clear(g.rows[len(out):])
	g.rows = out
}
