package classify

import (
	"cmp"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/rules"
)

// kclass is the structural kind of a name, derived from its rule.
type kclass uint8

const (
	kNone kclass = iota // trusted name that is not a layer anchor (other, io glue)
	kAtt                // attention kernel (core, RoPE, KV cache...)
	kFFN                // activation, MoE routing/experts, other ffn kernels
	kComm               // communication
	kEmb                // embedding
	kSamp               // sampling
	kGemm               // ambiguous classes from here on
	kNorm
	kQuant
	kSplitK
	kWorkspace
	kGather
	kCopy
	kElementwise
	kUnknown // no name rule
)

// glue reports whether c is generic work (copies, fills, workspace, index
// gathers, elementwise) whose name rule's own region is an honest default
// when no context places it.
func (c kclass) glue() bool { return c >= kWorkspace && c <= kElementwise }

// open reports whether context may re-home work of class c.
func (c kclass) open() bool { return c >= kGemm }

// kindOfClass is the structural kind of each rule class; a rule without a
// class (kNone here) takes its kind from its region.
var kindOfClass = [...]kclass{
	rules.Gemm: kGemm, rules.Norm: kNorm, rules.Quant: kQuant, rules.SplitK: kSplitK,
	rules.Workspace: kWorkspace, rules.Gather: kGather, rules.Copy: kCopy, rules.Elementwise: kElementwise,
	rules.AttnCore: kAtt, rules.Comm: kComm, rules.Act: kFFN, rules.MoE: kFFN, rules.Embed: kEmb, rules.Sample: kSamp,
}

// classOf maps a name label to its structural kind.
func classOf(set *rules.Set, lb Label) kclass {
	if lb.Rule < 0 || set == nil || int(lb.Rule) >= len(set.Rules) {
		if lb.Method == ByName {
			return regionClass(lb.Region)
		}
		return kUnknown
	}
	r := &set.Rules[lb.Rule]
	if int(r.Class) < len(kindOfClass) && kindOfClass[r.Class] != kNone {
		return kindOfClass[r.Class]
	}
	return regionClass(r.Region)
}

func regionClass(r rules.Region) kclass {
	switch r {
	case rules.Attention:
		return kAtt
	case rules.FFN:
		return kFFN
	case rules.Communication:
		return kComm
	}
	return kNone
}

// attributor holds the per-rank state of one Attribute call.
type attributor struct {
	rank *event.Rank
	set  *rules.Set
	pool *Pool
	cls  []kclass // by name id
	out  []Label
	nvtx []int32 // nvtx rule by range text id; -2 = not yet matched
	thr  map[int64]uint32
	rng  []int32 // range indices sorted by (thread, start, -end)
	rthr []uint32
	nvOK bool // the set has nvtx rules
}

// Attribute returns one Label per rank.Work item (same index), starting
// from byName, the name-rule label of each name id (index = event.Names
// id), and placing ambiguous work by NVTX ranges, CUDA-graph capture
// context and stream position (see the package documentation). It is
// AttributeWith without a pool.
func Attribute(rank *event.Rank, set *rules.Set, byName []Label) []Label {
	return AttributeWith(rank, set, byName, nil)
}

// AttributeWith is Attribute with the goroutines pool lends: the work is
// cut into pieces (by index, by stream and, within a stream, at attention
// kernels, where the positional walk's state is known), and the labels do
// not depend on how many goroutines took them.
func AttributeWith(rank *event.Rank, set *rules.Set, byName []Label, pool *Pool) []Label {
	a := newAttributor(rank, set, byName, pool)
	a.run(byName, nil)
	return a.out
}

func newAttributor(rank *event.Rank, set *rules.Set, byName []Label, pool *Pool) *attributor {
	a := &attributor{rank: rank, set: set, pool: pool, out: make([]Label, len(rank.Work))}
	nnames := len(byName)
	if rank.Names != nil && rank.Names.Len() > nnames {
		nnames = rank.Names.Len()
	}
	a.cls = make([]kclass, nnames)
	for id := range a.cls {
		lb := Label{Region: rules.Other, Method: Unmapped, Rule: -1}
		if id < len(byName) {
			lb = byName[id]
		}
		a.cls[id] = classOf(set, lb)
	}
	return a
}

// run labels the work. The stream order of the positional walk depends
// only on the work and its name classes: it is built while host context
// places work, and beside (when not nil), work that needs no labels, is
// done alongside both.
func (a *attributor) run(byName []Label, beside func()) {
	rank := a.rank
	open := a.nameLabels(byName)
	var seq []int32
	a.pool.each(3, func(k int) {
		switch {
		case k == 0 && beside != nil:
			beside()
		case k == 1 && open:
			seq = groupByStream(rank.Work, func(i int) bool {
				c := a.class(&rank.Work[i])
				return c != kNone && c != kUnknown
			})
		case k == 2 && open:
			a.byHostContext()
		}
	})
	if !open {
		return
	}
	a.byPosition(seq)
	a.eachPiece(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			w := &rank.Work[i]
			if a.out[i].Method == Unmapped && a.class(w).glue() && int(w.Name) < len(byName) {
				a.out[i] = byName[w.Name]
			}
		}
	})
}

// eachPiece calls f(lo, hi) over the work indices cut into pieces, on the
// goroutines the pool lends.
func (a *attributor) eachPiece(f func(lo, hi int)) {
	n := len(a.rank.Work)
	parts := a.pool.pieces(n)
	a.pool.each(parts, func(k int) { f(bounds(k, parts, n)) })
}

// nameLabels sets every work item's label from its name, work open to
// context left Unmapped, and reports whether any work is open to context.
func (a *attributor) nameLabels(byName []Label) bool {
	var open atomic.Bool
	a.eachPiece(func(lo, hi int) {
		any := false
		for i := lo; i < hi; i++ {
			w := &a.rank.Work[i]
			lb := Label{Region: rules.Other, Method: Unmapped, Rule: -1}
			if int(w.Name) < len(byName) {
				lb = byName[w.Name]
			}
			if a.class(w).open() {
				lb = Label{Region: rules.Other, Method: Unmapped, Rule: lb.Rule}
				any = true
			}
			a.out[i] = lb
		}
		if any {
			open.Store(true)
		}
	})
	return open.Load()
}

func (a *attributor) class(w *event.Work) kclass {
	if int(w.Name) < len(a.cls) {
		return a.cls[w.Name]
	}
	return kUnknown
}

// unplaced reports whether work i is open to context and not yet placed.
func (a *attributor) unplaced(i int) bool {
	return a.out[i].Method == Unmapped && a.class(&a.rank.Work[i]).open()
}

// ---- methods 1 and 2: host ranges ----

// query asks which ranges were open on thread thr at time t, for work w.
type query struct {
	t   int64
	thr uint32
	w   uint32
}

func (a *attributor) byHostContext() {
	rk := a.rank
	if len(rk.Ranges) == 0 || a.set == nil {
		return
	}
	a.prepareRanges()
	if !a.nvOK {
		return
	}
	// Capture-time context first: it is per graph node, while the launch
	// of a graph replay is one call for all its nodes.
	a.byGraphNodes()
	a.byLaunch()
}

// byLaunch places unplaced work by the ranges open on its launching thread
// when the launch call started (method 1).
func (a *attributor) byLaunch() {
	rk := a.rank
	if len(rk.Launches) == 0 {
		return
	}
	lk := newLaunchIndex(rk.Launches)
	a.placeByRanges(ByNVTX, func(i int) bool { return rk.Work[i].Correlation != 0 }, func() func(i int) (query, bool) {
		x := *lk // a cursor of its own
		lastTID, lastThr, lastOK := int64(0), uint32(0), false
		known := false
		return func(i int) (query, bool) {
			l := x.find(rk.Work[i].Correlation)
			if l == nil {
				return query{}, false
			}
			if !known || l.TID != lastTID {
				lastThr, lastOK = a.thr[l.TID]
				lastTID, known = l.TID, true
			}
			return query{t: l.Start, thr: lastThr, w: uint32(i)}, lastOK
		}
	})
}

// placeByRanges asks, for every unplaced work item i that want accepts, the
// query that a function made by mk gives (none when it says so), and
// places the work by the ranges open then (method m). The work is cut
// into pieces, each with a function of its own and its own sweep: the
// ranges open on a thread at a time do not depend on the queries asked
// before (see sweep), so the pieces give what one sweep over all the
// queries gives.
func (a *attributor) placeByRanges(m Method, want func(i int) bool, mk func() func(i int) (query, bool)) {
	for _, i := range a.rng { // the rules of the range texts, before the sweeps read them
		a.ruleOfText(a.rank.Ranges[i].Text)
	}
	a.eachPiece(func(lo, hi int) {
		c := 0
		for i := lo; i < hi; i++ {
			if a.unplaced(i) && want(i) {
				c++
			}
		}
		if c == 0 {
			return
		}
		q, qs := mk(), make([]query, 0, c)
		for i := lo; i < hi; i++ {
			if a.unplaced(i) && want(i) {
				if x, ok := q(i); ok {
					qs = append(qs, x)
				}
			}
		}
		a.sweep(qs, m)
	})
}

// launchIndex finds a launch by correlation id. Readers usually give the
// launches in correlation order and the work in nearly the same order:
// then it searches the launches themselves, trying the one after the last
// found first; otherwise it sorts an index (4 bytes per launch).
type launchIndex struct {
	ls    []event.Launch
	order []int32 // launch indices by correlation; nil when ls is in order
	next  int     // position after the last one found
}

func newLaunchIndex(ls []event.Launch) *launchIndex {
	x := &launchIndex{ls: ls}
	if slices.IsSortedFunc(ls, func(p, q event.Launch) int { return cmp.Compare(p.Correlation, q.Correlation) }) {
		return x
	}
	x.order = make([]int32, len(ls))
	for i := range x.order {
		x.order[i] = int32(i)
	}
	slices.SortFunc(x.order, func(p, q int32) int { return cmp.Compare(ls[p].Correlation, ls[q].Correlation) })
	return x
}

func (x *launchIndex) at(k int) *event.Launch {
	if x.order != nil {
		return &x.ls[x.order[k]]
	}
	return &x.ls[k]
}

// find returns the launch with correlation id c (the first one when ids
// repeat), or nil. It searches from the position after the last one found,
// in steps that double (1, 2, 4... launches away) before halving: work in
// nearly correlation order costs a few comparisons near the last find, not
// a search of all the launches.
func (x *launchIndex) find(c uint64) *event.Launch {
	k := x.lowerBound(c)
	if k == len(x.ls) || x.at(k).Correlation != c {
		return nil
	}
	x.next = k + 1
	return x.at(k)
}

// lowerBound returns the first position k whose launch's correlation is at
// least c (len(x.ls) when none), searching outwards from x.next.
func (x *launchIndex) lowerBound(c uint64) int {
	n, h := len(x.ls), min(x.next, len(x.ls))
	// The answer lies in (lo, hi]: positions <= lo hold less than c,
	// positions >= hi at least c (lo -1 and hi n when unknown).
	lo, hi := -1, n
	if h < n && x.at(h).Correlation < c {
		lo = h
		for step := 1; ; step *= 2 {
			k := lo + step
			if k >= n {
				break
			}
			if x.at(k).Correlation >= c {
				hi = k
				break
			}
			lo = k
		}
	} else {
		hi = h
		for step := 1; ; step *= 2 {
			k := hi - step
			if k < 0 {
				break
			}
			if x.at(k).Correlation < c {
				lo = k
				break
			}
			hi = k
		}
	}
	return lo + 1 + sort.Search(hi-lo-1, func(k int) bool { return x.at(lo+1+k).Correlation >= c })
}

// byGraphNodes places unplaced graph-replayed work by the ranges open when
// its node was captured (method 2).
func (a *attributor) byGraphNodes() {
	rk := a.rank
	if len(rk.GraphNodes) == 0 {
		return
	}
	byNode := make([]int32, len(rk.GraphNodes))
	for i := range byNode {
		byNode[i] = int32(i)
	}
	slices.SortFunc(byNode, func(x, y int32) int {
		return cmp.Compare(rk.GraphNodes[x].Node, rk.GraphNodes[y].Node)
	})
	find := func(node int64) *event.GraphNode {
		k, ok := slices.BinarySearchFunc(byNode, node, func(x int32, n int64) int {
			return cmp.Compare(rk.GraphNodes[x].Node, n)
		})
		if !ok {
			return nil
		}
		return &rk.GraphNodes[byNode[k]]
	}
	a.placeByRanges(ByGraph, func(i int) bool { return rk.Work[i].GraphNode != 0 }, func() func(i int) (query, bool) {
		return func(i int) (query, bool) {
			e := find(rk.Work[i].GraphNode)
			if e == nil {
				return query{}, false
			}
			// Follow Original links to the captured node (a clone of a
			// clone is possible when graphs are re-instantiated); bounded.
			for hop := 0; hop < 4 && e.Original != 0 && e.Original != e.Node; hop++ {
				o := find(e.Original)
				if o == nil {
					break
				}
				e = o
			}
			th, ok := a.thr[e.TID]
			return query{t: e.Start, thr: th, w: uint32(i)}, ok
		}
	})
}

// prepareRanges numbers the threads that have ranges, sorts the ranges for
// the sweep and sets nvOK when the rule set has any nvtx rule.
func (a *attributor) prepareRanges() {
	for i := range a.set.Rules {
		if a.set.Rules[i].NVTX != nil {
			a.nvOK = true
			break
		}
	}
	if !a.nvOK {
		return
	}
	rk := a.rank
	a.thr = map[int64]uint32{}
	a.rng = make([]int32, 0, len(rk.Ranges))
	for i := range rk.Ranges {
		r := &rk.Ranges[i]
		if r.End < r.Start {
			continue
		}
		if _, ok := a.thr[r.TID]; !ok {
			a.thr[r.TID] = uint32(len(a.thr))
		}
		a.rng = append(a.rng, int32(i))
	}
	slices.SortFunc(a.rng, func(x, y int32) int {
		rx, ry := &rk.Ranges[x], &rk.Ranges[y]
		tx, ty := a.thr[rx.TID], a.thr[ry.TID]
		switch {
		case tx != ty:
			return cmp.Compare(tx, ty)
		case rx.Start != ry.Start:
			return cmp.Compare(rx.Start, ry.Start)
		}
		return cmp.Compare(ry.End, rx.End) // outer range first
	})
	a.rthr = make([]uint32, len(a.rng))
	for k, i := range a.rng {
		a.rthr[k] = a.thr[rk.Ranges[i].TID]
	}
	n := 0
	if rk.Names != nil {
		n = rk.Names.Len()
	}
	a.nvtx = make([]int32, n)
	for i := range a.nvtx {
		a.nvtx[i] = -2
	}
}

// ruleOfText returns the nvtx rule matching range text id, cached per id.
func (a *attributor) ruleOfText(id uint32) int32 {
	if int(id) >= len(a.nvtx) {
		if a.rank.Names == nil {
			return -1
		}
		return int32(a.set.MatchNVTX(a.rank.Names.Name(id)))
	}
	if r := a.nvtx[id]; r != -2 {
		return r
	}
	r := int32(-1)
	if id != 0 {
		r = int32(a.set.MatchNVTX(a.rank.Names.Name(id)))
	}
	a.nvtx[id] = r
	return r
}

// frame is an open range on the sweep's stack: its end and the nvtx rule of
// the innermost matching range from it outwards (-1 none).
type frame struct {
	end  int64
	rule int32
}

// sweep walks each thread once, in time order, with a stack of open
// ranges, and places every query whose open ranges match an nvtx rule.
// The stack when a query at time t is met holds what it would hold had
// no query come before: the frames that a query pops (those ending by t)
// would be popped by the next range pushed (starting after t) or the next
// query (at t or later) anyway, from the top down, in the same order.
// So the queries may be cut into sets swept apart, each from the start of
// its threads' ranges. ruleOfText must know every range text first when
// sets are swept at once.
func (a *attributor) sweep(qs []query, m Method) {
	if len(qs) == 0 {
		return
	}
	byThreadTime := func(x, y query) int {
		if x.thr != y.thr {
			return cmp.Compare(x.thr, y.thr)
		}
		return cmp.Compare(x.t, y.t)
	}
	// The order among equal (thread, time) queries does not change what
	// they are given.
	if !naturalSort(qs, byThreadTime) {
		slices.SortFunc(qs, byThreadTime)
	}
	rk := a.rank
	var stack []frame
	ri := 0
	cur := uint32(1<<32 - 1)
	for _, q := range qs {
		if q.thr != cur {
			cur = q.thr
			stack = stack[:0]
			for ri < len(a.rng) && a.rthr[ri] < cur {
				ri++
			}
			// Ranges of an earlier thread were passed; a sorted query list
			// never returns to them.
		}
		for ri < len(a.rng) && a.rthr[ri] == cur && rk.Ranges[a.rng[ri]].Start <= q.t {
			r := &rk.Ranges[a.rng[ri]]
			for len(stack) > 0 && stack[len(stack)-1].end <= r.Start {
				stack = stack[:len(stack)-1]
			}
			rule := a.ruleOfText(r.Text)
			if rule < 0 && len(stack) > 0 {
				rule = stack[len(stack)-1].rule
			}
			stack = append(stack, frame{end: r.End, rule: rule})
			ri++
		}
		for len(stack) > 0 && stack[len(stack)-1].end <= q.t {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			continue
		}
		rule := stack[len(stack)-1].rule
		if rule < 0 || int(rule) >= len(a.set.Rules) {
			continue
		}
		if !a.unplaced(int(q.w)) {
			continue
		}
		a.out[q.w] = Label{Region: a.set.Rules[rule].Region, Method: m, Rule: rule}
	}
}
