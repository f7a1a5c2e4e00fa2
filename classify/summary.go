package classify

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/interval"
	"github.com/servecmp/servecmp/rules"
)

// Options tells Summarize what to measure.
type Options struct {
	Window WindowSpec
	// Iteration matches host ranges that each mark one engine iteration;
	// nil means DefaultIteration. Named groups ctx_reqs, ctx_tokens,
	// gen_reqs and gen_tokens are read when present (a missing group counts 0).
	Iteration *regexp.Regexp
	// Work is the completed work given by the user; nil means "derive it
	// from the iteration ranges when there are any".
	Work *Work
}

// Summarize measures one rank. labels holds one Label per rank.Work item
// (same index), as returned by Attribute. c is the capture the rank came
// from (for its graph-trace mode and reader warnings); it may be nil.
//
// Device work straddling a window edge counts only its part inside the
// window; a zero-length item counts (with no time) when it starts inside.
// Cost: one pass over the work plus one sweep; when rank.Work is not in
// start order, 4 bytes per item are ordered once (see Prepare). No
// per-item strings or maps; per-name and per-shape counters are slices
// indexed by id.
func Summarize(c *event.Capture, rank *event.Rank, labels []Label, opt Options) (*RankSummary, error) {
	if len(labels) != len(rank.Work) {
		return nil, fmt.Errorf("classify: %d labels for %d work items", len(labels), len(rank.Work))
	}
	p, err := Prepare(c, rank, opt)
	if err != nil {
		return nil, err
	}
	return p.Summarize(labels)
}

// Prepared is the part of Summarize that needs no labels: the window, the
// start order of the work inside it and the iterations. Prepare can run
// while Attribute does; Summarize(c, rank, labels, opt) is
// Prepare(c, rank, opt) then Summarize(labels).
type Prepared struct {
	c      *event.Capture
	rank   *event.Rank
	opt    Options
	win    interval.Interval
	from   string
	o      int64
	sorted bool     // rank.Work is in start order
	order  []uint32 // otherwise: the work inside win, in runs of start order
	runs   []int    // the bounds of those runs
	iters  *Iterations
}

// Prepare resolves the rank's window and orders its work by start.
func Prepare(c *event.Capture, rank *event.Rank, opt Options) (*Prepared, error) {
	p, err := prepareWindow(c, rank, opt)
	if err != nil {
		return nil, err
	}
	p.prepareOrder()
	return p, nil
}

// prepareWindow resolves the rank's window.
func prepareWindow(c *event.Capture, rank *event.Rank, opt Options) (*Prepared, error) {
	spec := opt.Window
	o := SessionOrigin(c)
	if spec.Explicit {
		spec.Start, spec.End = spec.Start+o, spec.End+o
	}
	win, from, err := resolveWindow(rank, spec, o)
	if err != nil {
		return nil, err
	}
	return &Prepared{c: c, rank: rank, opt: opt, win: win, from: from, o: o}, nil
}

// prepareOrder orders the work by start and counts the iterations.
func (p *Prepared) prepareOrder() {
	rank, win := p.rank, p.win
	if p.sorted = workInStartOrder(rank.Work); !p.sorted {
		p.order, p.runs = startOrder(rank.Work, win)
	}
	pat := p.opt.Iteration
	if pat == nil {
		pat = DefaultIteration
	}
	p.iters = countIterations(rank, pat, win)
}

// SummarizeRank attributes and summarizes one rank with the goroutines
// pool lends, and returns its summary and labels: it gives what
// AttributeWith then Summarize give, the work's start order made while
// the work is attributed.
func SummarizeRank(c *event.Capture, rank *event.Rank, set *rules.Set, byName []Label, opt Options, pool *Pool) (*RankSummary, []Label, error) {
	p, err := prepareWindow(c, rank, opt)
	if err != nil {
		return nil, nil, err
	}
	a := newAttributor(rank, set, byName, pool)
	a.run(byName, p.prepareOrder)
	s, err := p.SummarizeWith(a.out, pool)
	if err != nil {
		return nil, nil, err
	}
	return s, a.out, nil
}

// Summarize measures the prepared rank with one Label per rank.Work item;
// it is SummarizeWith without a pool.
func (p *Prepared) Summarize(labels []Label) (*RankSummary, error) {
	return p.SummarizeWith(labels, nil)
}

// SummarizeWith is Summarize with the goroutines pool lends: the sweep
// over the work in start order runs beside the counters, which are
// counted in pieces and merged (sums of integers: the result does not
// depend on the pieces).
func (p *Prepared) SummarizeWith(labels []Label, pool *Pool) (*RankSummary, error) {
	rank, c, win, o := p.rank, p.c, p.win, p.o
	if len(labels) != len(rank.Work) {
		return nil, fmt.Errorf("classify: %d labels for %d work items", len(labels), len(rank.Work))
	}
	s := &RankSummary{
		Rank: rank.Label, LabelFrom: rank.LabelFrom, Source: rank.Source, Format: string(rank.Format),
		Device: rank.Device, PID: rank.PID, GPU: rank.GPU, Host: rank.Host, ToolVersion: rank.ToolVersion,
		Process:       rank.Process,
		WindowStartNs: win.Start, WindowEndNs: win.End, WindowNs: win.Len(), WindowFrom: p.from,
		SessionStartNs: o,
	}
	if c != nil {
		s.GraphTraceMode = c.GraphTraceMode
		if c.GraphTraceMode == "graph" && !launchesWithoutGraphs(rank) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: CUDA graphs were traced whole, so kernels inside graphs are missing; re-record with nsys profile --cuda-graph-trace=node", rank.Source))
		}
	}

	m := &measure{}
	m.run(rank, labels, win, p.order, p.runs, p.sorted, pool)
	m.fill(s, rank)
	if s.DeviceWork == 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("rank %s: no device work inside the window (%s:%s from the session start)",
			s.Rank, fromOrigin(win.Start, o), fromOrigin(win.End, o)))
	}

	s.Iterations = p.iters
	switch {
	case p.opt.Work != nil:
		w := *p.opt.Work
		if w.From == "" {
			w.From = "flag"
		}
		s.Work = &w
	case s.Iterations != nil:
		// A pattern without count groups (or iterations that carry no
		// counts) gives no work to divide by: no per-work figures then.
		if w := s.Iterations.work(); w.Requests > 0 || w.OutputTokens > 0 || w.InputTokens > 0 {
			s.Work = w
		}
	}
	s.applyWork()
	return s, nil
}

// launchesWithoutGraphs reports whether the rank's launch calls were read
// and none of them launched a CUDA graph: then a capture that traced graphs
// whole lost no kernels, and warning about it would be false.
func launchesWithoutGraphs(rank *event.Rank) bool {
	if len(rank.Launches) == 0 || rank.Names == nil {
		return false // unknown: launches were not read
	}
	for i := range rank.Launches {
		if strings.Contains(rank.Names.Name(rank.Launches[i].Name), "GraphLaunch") {
			return false
		}
	}
	return true
}

func share(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (m *measure) fill(s *RankSummary, rank *event.Rank) {
	s.DeviceWork, s.DeviceWorkSumNs, s.DeviceWorkBusyNs = m.all.count, m.all.sum, m.busy
	s.BusyShare = share(m.busy, s.WindowNs)
	s.SumMinusBusyNs = m.all.sum - m.busy
	s.Kernels, s.KernelSumNs, s.KernelBusyNs = m.kernels.count, m.kernels.sum, m.kernelBusy
	s.MultiRegionOverlapNs = m.multi
	s.CommBusyNs, s.NonCommBusyNs = m.commBusy, m.nonCommBusy
	s.Regions = make([]RegionSummary, 0, rules.NumRegions)
	for _, r := range rules.Regions {
		a := m.regions[r]
		s.Regions = append(s.Regions, RegionSummary{Region: r.String(), Count: a.count, SumNs: a.sum, BusyNs: m.regionBusy[r]})
	}
	for meth := Method(0); meth < NumMethods; meth++ {
		a := m.methods[meth]
		s.Coverage.ByMethod = append(s.Coverage.ByMethod, MethodStat{Method: meth.String(), Count: a.count, SumNs: a.sum})
	}
	s.UnmappedTop, s.Shapes = []NameStat{}, []ShapeStat{} // JSON lists, never null
	for id, a := range m.unmapped {
		if a.count > 0 {
			name := ""
			if rank.Names != nil {
				name = rank.Names.Name(uint32(id))
			}
			s.UnmappedTop = append(s.UnmappedTop, NameStat{Name: name, Count: a.count, SumNs: a.sum})
		}
	}
	for i, a := range m.shapes {
		if a.count > 0 {
			sh := rank.Shapes.Shape(uint32(i / rules.NumRegions))
			s.Shapes = append(s.Shapes, ShapeStat{Region: rules.Region(i % rules.NumRegions).String(),
				Grid: sh.Grid, Block: sh.Block, Count: a.count, SumNs: a.sum})
		}
	}
	s.derive()
}
