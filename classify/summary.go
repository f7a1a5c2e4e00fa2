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

// DefaultIteration matches the per-step NVTX ranges and record_function
// annotations that vLLM (and engines following its convention) emit around
// each model step, in the three spellings seen in real traces:
//
//	execute_context_1(2048)_generation_3(3)
//	execute_context_1(888_788544)_generation_0(0)                (tokens_sum of squares)
//	execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)
//
// In the last, sq is the number of query tokens (the tokens processed) and
// the rest are attention-cost terms that are not read. Its named groups are
// the ones Summarize reads: ctx_reqs, ctx_tokens, gen_reqs, gen_tokens.
var DefaultIteration = regexp.MustCompile(`execute_(?:\d+_)?context_(?P<ctx_reqs>\d+)\((?:sq)?(?P<ctx_tokens>\d+)[^)]*\)_generation_(?P<gen_reqs>\d+)\((?:sq)?(?P<gen_tokens>\d+)[^)]*\)`)

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
// start order, 16 bytes per item are copied and sorted once. No per-item
// strings or maps; per-name and per-shape counters are slices indexed by id.
func Summarize(c *event.Capture, rank *event.Rank, labels []Label, opt Options) (*RankSummary, error) {
	if len(labels) != len(rank.Work) {
		return nil, fmt.Errorf("classify: %d labels for %d work items", len(labels), len(rank.Work))
	}
	spec := opt.Window
	o := SessionOrigin(c)
	if spec.Explicit {
		spec.Start, spec.End = spec.Start+o, spec.End+o
	}
	win, from, err := resolveWindow(rank, spec, o)
	if err != nil {
		return nil, err
	}
	s := &RankSummary{
		Rank: rank.Label, LabelFrom: rank.LabelFrom, Source: rank.Source, Format: string(rank.Format),
		Device: rank.Device, PID: rank.PID, GPU: rank.GPU, Host: rank.Host, ToolVersion: rank.ToolVersion,
		Process:       rank.Process,
		WindowStartNs: win.Start, WindowEndNs: win.End, WindowNs: win.Len(), WindowFrom: from,
		SessionStartNs: o,
	}
	if c != nil {
		s.GraphTraceMode = c.GraphTraceMode
		if c.GraphTraceMode == "graph" && !launchesWithoutGraphs(rank) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: CUDA graphs were traced whole, so kernels inside graphs are missing; re-record with nsys profile --cuda-graph-trace=node", rank.Source))
		}
	}

	m := newMeasure(rank)
	for i := range rank.Work {
		m.add(&rank.Work[i], labels[i], win)
	}
	m.sweep(rank.Work, labels, win)
	m.fill(s, rank)
	if s.DeviceWork == 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("rank %s: no device work inside the window (%s:%s from the session start)",
			s.Rank, fromOrigin(win.Start, o), fromOrigin(win.End, o)))
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

// span is one piece of device work clipped to the window, packed into 16
// bytes: the start, and the duration (< 2^55 ns, over a year) shifted left
// by 8 above a tag byte holding the region (bits 0-6) and a kernel flag
// (bit 7).
type span struct {
	start int64
	dt    uint64
}

const kernelBit = 0x80

func (s span) end() int64     { return s.start + int64(s.dt>>8) }
func (s span) region() uint8  { return uint8(s.dt) &^ kernelBit }
func (s span) isKernel() bool { return uint8(s.dt)&kernelBit != 0 }
func mkSpan(start, end int64, region uint8, kernel bool) span {
	tag := uint64(region)
	if kernel {
		tag |= kernelBit
	}
	return span{start, uint64(end-start)<<8 | tag}
}

type agg struct{ count, sum int64 }

// measure accumulates one rank's counters and intervals.
type measure struct {
	regions  [rules.NumRegions]agg
	methods  [NumMethods]agg
	kernels  agg
	all      agg
	unmapped []agg // by name id
	shapes   []agg // by shape id * NumRegions + region
	nshapes  int

	streaming bool // work arrives in start order: feed sw directly
	sw        sweeper

	busy, kernelBusy, commBusy, nonCommBusy, multi int64
	regionBusy                                     [rules.NumRegions]int64
}

// newMeasure prepares to measure rank. When its work is already in start
// order, spans go straight to the sweeper as they are counted; otherwise
// sweep puts them in order afterwards.
func newMeasure(rank *event.Rank) *measure {
	m := &measure{}
	m.streaming = slices.IsSortedFunc(rank.Work, func(a, b event.Work) int { return cmp.Compare(a.Start, b.Start) })
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
	if d > 0 && m.streaming {
		m.sw.feed(mkSpan(start, end, uint8(r), isKernel))
	}
}

// sweeper measures, in one pass over spans fed in start order, the union
// of all device work, of kernels, of each region, of non-communication
// work, and the time covered by two or more regions at once.
type sweeper struct {
	all, kern, nonComm interval.Merger
	reg                [rules.NumRegions]interval.Merger
	frontier, last     int64
	started            bool
	multi              int64
}

func (w *sweeper) feed(sp span) {
	if !w.started {
		w.frontier, w.started = sp.start, true
	}
	if sp.start > w.frontier {
		// Nothing fed later starts before sp.start: coverage before it is final.
		w.multi += multiCover(w.frontier, sp.start, &w.reg)
		w.frontier = sp.start
	}
	iv := interval.Interval{Start: sp.start, End: sp.end()}
	r := sp.region()
	w.all.Add(iv)
	w.reg[r].Add(iv)
	if sp.isKernel() {
		w.kern.Add(iv)
	}
	if rules.Region(r) != rules.Communication {
		w.nonComm.Add(iv)
	}
	w.last = max(w.last, iv.End)
}

// sweep finishes the measurement: unless the work was fed in order as it
// was counted, it feeds the sweeper in start order (see feedInOrder), then
// reads the sweeper's totals.
func (m *measure) sweep(work []event.Work, labels []Label, win interval.Interval) {
	if !m.streaming {
		m.feedInOrder(work, labels, win)
	}
	w := &m.sw
	if w.started && w.last > w.frontier {
		w.multi += multiCover(w.frontier, w.last, &w.reg)
	}
	m.busy, m.kernelBusy, m.nonCommBusy, m.multi = w.all.Len(), w.kern.Len(), w.nonComm.Len(), w.multi
	for r := range w.reg {
		m.regionBusy[r] = w.reg[r].Len()
	}
	m.commBusy = m.regionBusy[rules.Communication]
}

// clipSpan is w clipped to win as a span, and whether any time is left.
func clipSpan(w *event.Work, l Label, win interval.Interval) (span, bool) {
	start, end := max(w.Start, win.Start), min(w.End, win.End)
	if end <= start {
		return span{}, false
	}
	r := l.Region
	if r >= rules.NumRegions {
		r = rules.Other
	}
	return mkSpan(start, end, uint8(r), w.Kind == event.Kernel), true
}

// feedInOrder feeds the sweeper the work in start order without copying
// it: a stream runs its work one item at a time, so each stream's items are
// (nearly always) already in start order in the table. It groups item
// indices by stream (4 bytes per item), sorts the rare stream that is out of
// order, and merges the streams with a small heap. Clipping to the window
// keeps the order, since max(start, window start) is monotone.
func (m *measure) feedInOrder(work []event.Work, labels []Label, win interval.Interval) {
	// Bucket of each stream id: a slice for small ids, a map only for the
	// few distinct large ones (looked up per item, never stored per item).
	const direct = 1 << 12
	var small [direct]int32
	for i := range small {
		small[i] = -1
	}
	large := map[uint32]int32{}
	var counts []int
	bucket := func(stream uint32) int32 {
		if stream < direct {
			if small[stream] < 0 {
				small[stream] = int32(len(counts))
				counts = append(counts, 0)
			}
			return small[stream]
		}
		b, ok := large[stream]
		if !ok {
			b = int32(len(counts))
			large[stream] = b
			counts = append(counts, 0)
		}
		return b
	}
	n := 0
	for i := range work {
		if work[i].End > win.Start && work[i].Start < win.End && work[i].End > work[i].Start {
			counts[bucket(work[i].Stream)]++
			n++
		}
	}
	off := make([]int, len(counts)+1)
	for b, c := range counts {
		off[b+1] = off[b] + c
	}
	idx := make([]uint32, n)
	next := slices.Clone(off[:len(counts)])
	for i := range work {
		if work[i].End > win.Start && work[i].Start < win.End && work[i].End > work[i].Start {
			b := bucket(work[i].Stream)
			idx[next[b]] = uint32(i)
			next[b]++
		}
	}
	byStart := func(a, b uint32) int { return cmp.Compare(work[a].Start, work[b].Start) }
	type cursor struct{ pos, end int }
	var heap []cursor
	for b := range counts {
		run := idx[off[b]:off[b+1]]
		if !slices.IsSortedFunc(run, byStart) {
			slices.SortFunc(run, byStart)
		}
		if len(run) > 0 {
			heap = append(heap, cursor{off[b], off[b+1]})
		}
	}
	less := func(i, j int) bool { return work[idx[heap[i].pos]].Start < work[idx[heap[j].pos]].Start }
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(heap) {
				return
			}
			if c+1 < len(heap) && less(c+1, c) {
				c++
			}
			if !less(c, i) {
				return
			}
			heap[i], heap[c] = heap[c], heap[i]
			i = c
		}
	}
	for i := len(heap)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(heap) > 0 {
		k := idx[heap[0].pos]
		if sp, ok := clipSpan(&work[k], labels[k], win); ok {
			m.sw.feed(sp)
		}
		heap[0].pos++
		if heap[0].pos == heap[0].end {
			heap[0] = heap[len(heap)-1]
			heap = heap[:len(heap)-1]
		}
		down(0)
	}
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

// SessionOrigin is the capture time that --window counts from, as the
// reader set it (event.Capture.SessionStart): 0 for an nsys export, the
// first event for a kineto trace. A nil capture has origin 0.
func SessionOrigin(c *event.Capture) int64 {
	if c == nil {
		return 0
	}
	return c.SessionStart
}

// ResolveWindow returns the rank's analysis window and where it came from
// ("capture", "range" or "nvtx"). See WindowSpec. An explicit range is cut
// to the capture span, so that the window length (the denominator of the
// busy share) counts only recorded time; a range outside the span is an
// error, as is a window that skips leave empty.
func ResolveWindow(rank *event.Rank, spec WindowSpec) (interval.Interval, string, error) {
	return resolveWindow(rank, spec, 0)
}

// fromOrigin formats capture time t as seconds from origin ("1.5s").
func fromOrigin(t, origin int64) string {
	return strconv.FormatFloat(float64(t-origin)/1e9, 'f', -1, 64) + "s"
}

// resolveWindow is ResolveWindow; its errors give times in seconds from
// origin, the session start that --window counts from.
func resolveWindow(rank *event.Rank, spec WindowSpec, origin int64) (interval.Interval, string, error) {
	sec := func(t int64) string { return fromOrigin(t, origin) }
	w := interval.Interval{Start: rank.SpanStart, End: rank.SpanEnd}
	from := "capture"
	switch {
	case spec.Explicit:
		var ok bool
		w, ok = interval.Clip(interval.Interval{Start: spec.Start, End: spec.End}, w)
		if !ok {
			return w, "", fmt.Errorf("%s: rank %s: --window %s:%s lies outside the capture, which spans %s:%s from the session start",
				rank.Source, rank.Label, sec(spec.Start), sec(spec.End), sec(rank.SpanStart), sec(rank.SpanEnd))
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
		return w, "", fmt.Errorf("%s: rank %s: the analysis window is empty after --skip-start/--skip-end (%s:%s from the session start)",
			rank.Source, rank.Label, sec(w.Start), sec(w.End))
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
	// The prefill/decode split needs ctx_tokens, the token histogram some
	// token count; a pattern without them only counts iterations.
	hasCtx := re.SubexpIndex("ctx_tokens") >= 0
	hasTokens := hasCtx || re.SubexpIndex("gen_tokens") >= 0
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
		switch {
		case !hasCtx:
		case v.ctxTokens > 0:
			it.Prefill.add(v)
		default:
			it.Decode.add(v)
		}
		if hasTokens {
			hist[tokenBucket(v.ctxTokens+v.genTokens)]++
		}
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
