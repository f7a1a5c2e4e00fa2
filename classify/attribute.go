package classify

import (
	"cmp"
	"slices"
	"sort"

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
// context and stream position (see the package documentation).
func Attribute(rank *event.Rank, set *rules.Set, byName []Label) []Label {
	a := &attributor{rank: rank, set: set, out: make([]Label, len(rank.Work))}
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
	open := false
	for i := range rank.Work {
		w := &rank.Work[i]
		lb := Label{Region: rules.Other, Method: Unmapped, Rule: -1}
		if int(w.Name) < len(byName) {
			lb = byName[w.Name]
		}
		c := a.class(w)
		if c.open() {
			lb = Label{Region: rules.Other, Method: Unmapped, Rule: lb.Rule}
			open = true
		}
		a.out[i] = lb
	}
	if !open {
		return a.out
	}
	// The stream order of the positional walk depends only on the work
	// and its name classes: it is built while host context places work.
	var seq []int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		seq = groupByStream(rank.Work, func(i int) bool {
			c := a.class(&rank.Work[i])
			return c != kNone && c != kUnknown
		})
	}()
	a.byHostContext()
	<-done
	a.byPosition(seq)
	for i := range a.out {
		w := &rank.Work[i]
		if a.out[i].Method == Unmapped && a.class(w).glue() && int(w.Name) < len(byName) {
			a.out[i] = byName[w.Name]
		}
	}
	return a.out
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
	n := 0
	for i := range rk.Work {
		if a.unplaced(i) && rk.Work[i].Correlation != 0 {
			n++
		}
	}
	qs := make([]query, 0, n)
	for i := range rk.Work {
		if !a.unplaced(i) || rk.Work[i].Correlation == 0 {
			continue
		}
		l := lk.find(rk.Work[i].Correlation)
		if l == nil {
			continue
		}
		th, ok := a.thr[l.TID]
		if !ok {
			continue
		}
		qs = append(qs, query{t: l.Start, thr: th, w: uint32(i)})
	}
	a.sweep(qs, ByNVTX)
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
// repeat), or nil.
func (x *launchIndex) find(c uint64) *event.Launch {
	n := len(x.ls)
	if k := x.next; k < n && x.at(k).Correlation == c && (k == 0 || x.at(k-1).Correlation < c) {
		x.next = k + 1
		return x.at(k)
	}
	k := sort.Search(n, func(k int) bool { return x.at(k).Correlation >= c })
	if k == n || x.at(k).Correlation != c {
		return nil
	}
	x.next = k + 1
	return x.at(k)
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
	n := 0
	for i := range rk.Work {
		if rk.Work[i].GraphNode != 0 && a.unplaced(i) {
			n++
		}
	}
	if n == 0 {
		return
	}
	qs := make([]query, 0, n)
	for i := range rk.Work {
		w := &rk.Work[i]
		if w.GraphNode == 0 || !a.unplaced(i) {
			continue
		}
		e := find(w.GraphNode)
		if e == nil {
			continue
		}
		// Follow Original links to the captured node (a clone of a clone
		// is possible when graphs are re-instantiated); bounded.
		for hop := 0; hop < 4 && e.Original != 0 && e.Original != e.Node; hop++ {
			o := find(e.Original)
			if o == nil {
				break
			}
			e = o
		}
		th, ok := a.thr[e.TID]
		if !ok {
			continue
		}
		qs = append(qs, query{t: e.Start, thr: th, w: uint32(i)})
	}
	a.sweep(qs, ByGraph)
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
