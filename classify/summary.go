package classify

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/interval"
	"github.com/servecmp/servecmp/rules"
)

// DefaultIteration matches the per-step NVTX ranges that vLLM (and engines
// following its convention) emit around each model step. Its named groups
// are the ones Summarize reads: ctx_reqs, ctx_tokens, gen_reqs, gen_tokens.
var DefaultIteration = regexp.MustCompile(`execute_context_(?P<ctx_reqs>\d+)\((?P<ctx_tokens>\d+)\)_generation_(?P<gen_reqs>\d+)\((?P<gen_tokens>\d+)\)`)

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
// Summarize allocates O(len(rank.Work)) once for the sort and keeps no
// per-item strings or maps.
func Summarize(c *event.Capture, rank *event.Rank, labels []Label, opt Options) (*RankSummary, error) {
	if len(labels) != len(rank.Work) {
		return nil, fmt.Errorf("classify: %d labels for %d work items", len(labels), len(rank.Work))
	}
	win, from, err := ResolveWindow(rank, opt.Window)
	if err != nil {
		return nil, err
	}
	s := &RankSummary{
		Rank: rank.Label, LabelFrom: rank.LabelFrom, Source: rank.Source, Format: rank.Format,
		Device: rank.Device, PID: rank.PID, GPU: rank.GPU, Host: rank.Host, ToolVersion: rank.ToolVersion,
		Process:       rank.Process,
		WindowStartNs: win.Start, WindowEndNs: win.End, WindowNs: win.Len(), WindowFrom: from,
	}
	if c != nil {
		s.GraphTraceMode = c.GraphTraceMode
		if c.GraphTraceMode == "graph" {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: CUDA graphs were traced whole, so kernels inside graphs are missing; re-record with nsys profile --cuda-graph-trace=node", rank.Source))
		}
		for _, w := range c.Warnings {
			s.Warnings = append(s.Warnings, rank.Source+": "+w)
		}
	}

	m := newMeasure(rank)
	for i := range rank.Work {
		m.add(&rank.Work[i], labels[i], win)
	}
	m.sweep()
	m.fill(s, rank)
	if s.DeviceWork == 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("rank %s: no device work inside the window [%d, %d) ns", s.Rank, win.Start, win.End))
	}

	pat := opt.Iteration
	if pat == nil {
		pat = DefaultIteration
	}
	s.Iterations = countIterations(rank, pat, win)
	switch {
	case opt.Work != nil:
		w := *opt.Work
		w.From = "flag"
		s.Work = &w
	case s.Iterations != nil:
		s.Work = s.Iterations.work()
	}
	s.applyWork()
	return s, nil
}

// span is one piece of device work clipped to the window.
type span struct {
	start, end int64
	region     uint8
	kernel     bool
}

type agg struct{ count, sum int64 }

// measure accumulates one rank's counters and intervals.
type measure struct {
	spans    []span
	regions  [rules.NumRegions]agg
	methods  [NumMethods]agg
	kernels  agg
	all      agg
	unmapped []agg // by name id
	shapes   []agg // by shape id * NumRegions + region
	nshapes  int

	busy, kernelBusy, commBusy, nonCommBusy, multi int64
	regionBusy                                     [rules.NumRegions]int64
}

func newMeasure(rank *event.Rank) *measure {
	m := &measure{spans: make([]span, 0, len(rank.Work))}
	if rank.Shapes != nil {
		m.nshapes = rank.Shapes.Len()
		m.shapes = make([]agg, m.nshapes*rules.NumRegions)
	}
	return m
}

func (m *measure) add(w *event.Work, l Label, win interval.Interval) {
	var d int64
	start, end := max(w.Start, win.Start), min(w.End, win.End)
	switch {
	case end > start:
		d = end - start
	case w.End <= w.Start && w.Start >= win.Start && w.Start < win.End:
		// zero-length item inside the window: counted, no time
	default:
		return
	}
	r := l.Region
	if r >= rules.NumRegions {
		r = rules.Other
	}
	meth := l.Method
	if meth >= NumMethods {
		meth = Unmapped
	}
	m.all.count++
	m.all.sum += d
	m.regions[r].count++
	m.regions[r].sum += d
	m.methods[meth].count++
	m.methods[meth].sum += d
	isKernel := w.Kind == event.Kernel
	if isKernel {
		m.kernels.count++
		m.kernels.sum += d
	}
	if meth == Unmapped {
		if int(w.Name) >= len(m.unmapped) {
			m.unmapped = slices.Grow(m.unmapped, int(w.Name)+1-len(m.unmapped))
			m.unmapped = m.unmapped[:cap(m.unmapped)]
		}
		m.unmapped[w.Name].count++
		m.unmapped[w.Name].sum += d
	}
	if w.Shape != 0 && int(w.Shape) < m.nshapes {
		a := &m.shapes[int(w.Shape)*rules.NumRegions+int(r)]
		a.count++
		a.sum += d
	}
	if d > 0 {
		m.spans = append(m.spans, span{start, end, uint8(r), isKernel})
	}
}

// sweep sorts the spans once and measures, in one pass, the union of all
// device work, of kernels, of each region, of non-communication work, and
// the time covered by two or more regions at once.
func (m *measure) sweep() {
	slices.SortFunc(m.spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var all, kern, nonComm interval.Merger
	var reg [rules.NumRegions]interval.Merger
	frontier := int64(0)
	if len(m.spans) > 0 {
		frontier = m.spans[0].start
	}
	var last int64
	for i := range m.spans {
		sp := &m.spans[i]
		if sp.start > frontier {
			m.multi += multiCover(frontier, sp.start, &reg)
			frontier = sp.start
		}
		iv := interval.Interval{Start: sp.start, End: sp.end}
		all.Add(iv)
		reg[sp.region].Add(iv)
		if sp.kernel {
			kern.Add(iv)
		}
		if rules.Region(sp.region) != rules.Communication {
			nonComm.Add(iv)
		}
		last = max(last, sp.end)
	}
	if len(m.spans) > 0 && last > frontier {
		m.multi += multiCover(frontier, last, &reg)
	}
	m.busy, m.kernelBusy, m.nonCommBusy = all.Len(), kern.Len(), nonComm.Len()
	for r := range reg {
		m.regionBusy[r] = reg[r].Len()
	}
	m.commBusy = m.regionBusy[rules.Communication]
}

// multiCover returns the length of the instants in [from, to) covered by at
// least two regions, given each region's current merged interval. Every
// earlier merged interval of a region ends before from, so these are the
// only coverage there.
func multiCover(from, to int64, reg *[rules.NumRegions]interval.Merger) int64 {
	var seg [rules.NumRegions]interval.Interval
	n := 0
	for r := range reg {
		cur, ok := reg[r].Current()
		if !ok {
			continue
		}
		if iv, ok := interval.Clip(cur, interval.Interval{Start: from, End: to}); ok {
			seg[n] = iv
			n++
		}
	}
	if n < 2 {
		return 0
	}
	var pts [2 * rules.NumRegions]int64
	k := 0
	for _, iv := range seg[:n] {
		pts[k], pts[k+1] = iv.Start, iv.End
		k += 2
	}
	p := pts[:k]
	slices.Sort(p)
	var out int64
	for i := 0; i+1 < len(p); i++ {
		a, b := p[i], p[i+1]
		if b <= a {
			continue
		}
		c := 0
		for _, iv := range seg[:n] {
			if iv.Start <= a && b <= iv.End {
				c++
			}
		}
		if c >= 2 {
			out += b - a
		}
	}
	return out
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

// ResolveWindow returns the rank's analysis window and where it came from
// ("capture", "range" or "nvtx"). See WindowSpec. An explicit range is cut
// to the capture span, so that the window length (the denominator of the
// busy share) counts only recorded time; a range outside the span is an
// error, as is a window that skips leave empty.
func ResolveWindow(rank *event.Rank, spec WindowSpec) (interval.Interval, string, error) {
	w := interval.Interval{Start: rank.SpanStart, End: rank.SpanEnd}
	from := "capture"
	switch {
	case spec.Explicit:
		var ok bool
		w, ok = interval.Clip(interval.Interval{Start: spec.Start, End: spec.End}, w)
		if !ok {
			return w, "", fmt.Errorf("%s: rank %s: --window [%d, %d) ns lies outside the capture span [%d, %d) ns",
				rank.Source, rank.Label, spec.Start, spec.End, rank.SpanStart, rank.SpanEnd)
		}
		from = "range"
	case spec.NVTX != nil:
		var found bool
		w, found = nvtxWindow(rank, spec.NVTX)
		if !found {
			return w, "", fmt.Errorf("%s: rank %s: no NVTX range or annotation matches --window-nvtx %q", rank.Source, rank.Label, spec.NVTX)
		}
		from = "nvtx"
	}
	w.Start += spec.SkipStart
	w.End -= spec.SkipEnd
	if w.End <= w.Start {
		return w, "", fmt.Errorf("%s: rank %s: the analysis window is empty ([%d, %d) ns after skips)", rank.Source, rank.Label, w.Start, w.End)
	}
	return w, from, nil
}

func nvtxWindow(rank *event.Rank, re *regexp.Regexp) (interval.Interval, bool) {
	match := map[uint32]bool{} // by text id, not by row
	var w interval.Interval
	found := false
	for i := range rank.Ranges {
		r := &rank.Ranges[i]
		if r.Kind != event.NVTX && r.Kind != event.Annotation {
			continue
		}
		ok, seen := match[r.Text]
		if !seen {
			ok = rank.Names != nil && re.MatchString(rank.Names.Name(r.Text))
			match[r.Text] = ok
		}
		if !ok {
			continue
		}
		if !found {
			w, found = interval.Interval{Start: r.Start, End: r.End}, true
			continue
		}
		w.Start, w.End = min(w.Start, r.Start), max(w.End, r.End)
	}
	return w, found
}

// iterVals are the counts parsed from one iteration range text.
type iterVals struct{ ctxReqs, ctxTokens, genReqs, genTokens int64 }

func parseIter(re *regexp.Regexp, text string) (iterVals, bool) {
	sub := re.FindStringSubmatch(text)
	if sub == nil {
		return iterVals{}, false
	}
	var v iterVals
	for i, name := range re.SubexpNames() {
		var dst *int64
		switch name {
		case "ctx_reqs":
			dst = &v.ctxReqs
		case "ctx_tokens":
			dst = &v.ctxTokens
		case "gen_reqs":
			dst = &v.genReqs
		case "gen_tokens":
			dst = &v.genTokens
		default:
			continue
		}
		if sub[i] == "" {
			continue
		}
		n, err := strconv.ParseInt(sub[i], 10, 64)
		if err != nil || n < 0 {
			return iterVals{}, false
		}
		*dst = n
	}
	return v, true
}

// countIterations reads the iteration ranges that start inside the window;
// nil when none match.
func countIterations(rank *event.Rank, re *regexp.Regexp, win interval.Interval) *Iterations {
	type cached struct {
		v  iterVals
		ok bool
	}
	cache := map[uint32]cached{} // by text id
	it := &Iterations{Pattern: re.String()}
	var hist [65]int64
	for i := range rank.Ranges {
		r := &rank.Ranges[i]
		if (r.Kind != event.NVTX && r.Kind != event.Annotation) || r.Start < win.Start || r.Start >= win.End {
			continue
		}
		c, seen := cache[r.Text]
		if !seen {
			if rank.Names != nil {
				c.v, c.ok = parseIter(re, rank.Names.Name(r.Text))
			}
			cache[r.Text] = c
		}
		if !c.ok {
			continue
		}
		v := c.v
		it.Count++
		it.CtxRequests += v.ctxReqs
		it.CtxTokens += v.ctxTokens
		it.GenRequests += v.genReqs
		it.GenTokens += v.genTokens
		tok := v.ctxTokens + v.genTokens
		if v.ctxTokens > 0 {
			it.Prefill.add(v)
		} else {
			it.Decode.add(v)
		}
		hist[tokenBucket(tok)]++
	}
	if it.Count == 0 {
		return nil
	}
	for b, n := range hist {
		if n > 0 {
			lo, hi := bucketBounds(b)
			it.TokensHistogram = append(it.TokensHistogram, Bucket{Lo: lo, Hi: hi, Count: n})
		}
	}
	return it
}

// tokenBucket is 0 for 0 tokens and k+1 for tokens in [2^k, 2^(k+1)).
func tokenBucket(n int64) int {
	if n <= 0 {
		return 0
	}
	b := 0
	for n > 0 {
		n >>= 1
		b++
	}
	return b
}

func bucketBounds(b int) (lo, hi int64) {
	if b == 0 {
		return 0, 1
	}
	if b >= 64 {
		return 1 << 62, 1<<63 - 1
	}
	return 1 << (b - 1), 1 << b
}

func (m *IterMix) add(v iterVals) {
	m.Iterations++
	m.CtxRequests += v.ctxReqs
	m.CtxTokens += v.ctxTokens
	m.GenRequests += v.genReqs
	m.GenTokens += v.genTokens
}

// work derives completed work from the iterations: requests are the
// summed ctx_reqs (each request is prefilled once), input tokens the summed
// ctx_tokens, and output tokens the summed gen_tokens plus ctx_reqs, since
// each prefill emits a request's first token. With chunked prefill a request
// is counted once per chunk, so requests and output tokens are then upper
// bounds.
func (it *Iterations) work() *Work {
	return &Work{Requests: it.CtxRequests, InputTokens: it.CtxTokens, OutputTokens: it.GenTokens + it.CtxRequests, From: "iterations"}
}

// ParseWork parses "requests=N,output_tokens=M,input_tokens=K" (any subset,
// any order, at least one key).
func ParseWork(s string) (*Work, error) {
	w := &Work{}
	if s == "" {
		return nil, errors.New("empty work")
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("work %q: want key=value", kv)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("work %q: value must be a non-negative integer", kv)
		}
		if seen[k] {
			return nil, fmt.Errorf("work: %s given twice", k)
		}
		seen[k] = true
		switch k {
		case "requests":
			w.Requests = n
		case "output_tokens":
			w.OutputTokens = n
		case "input_tokens":
			w.InputTokens = n
		default:
			return nil, fmt.Errorf("work: unknown key %q (want requests, output_tokens, input_tokens)", k)
		}
	}
	return w, nil
}
