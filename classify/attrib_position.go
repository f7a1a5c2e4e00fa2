package classify

import (
	"cmp"
	"slices"

	"github.com/servecmp/servecmp/event"

	"github.com/servecmp/servecmp/rules"
)

// Method 3: position on the stream.
//
// Work is taken per stream in start order. Anchors give the structure of a
// layer: attention kernels (core, RoPE, KV cache), communication,
// activation and MoE kernels, embedding and sampling; ambiguous work already
// placed by host context counts as an anchor of its region. The walk keeps
// the block the stream is in:
//
//   - a norm feeds the block of the next structural anchor (communication
//     skipped): attention → input norm, ffn → post-attention norm,
//     sampling/embedding/end after a layer → final norm (io);
//   - communication hands the stream to the block of the next anchor;
//   - a GEMM inside the attention block before the core is attention (QKV);
//     the first GEMM after the core is attention (O projection), later ones
//     take the next anchor's block; a GEMM in the ffn block is ffn; a GEMM
//     after the final norm is io (LM head);
//   - a split-K reduction goes with the GEMM it follows; a quantisation
//     kernel goes with the consumer right after it (a GEMM or an
//     attention/ffn kernel), a workspace memset or a gather with the GEMM
//     right after it; a gather inside the io block is io;
//   - copies next to a collective (staging buffers of a symmetric-memory or
//     custom all-reduce; only copies in between) are communication;
//     elementwise kernels right after an embedding lookup (the masked fill
//     of a vocabulary-parallel embedding; only glue in between) are io;
//   - otherwise a copy or elementwise kernel inside a block (the block
//     before it and the next anchor's block agree) takes that block.
//
// A stream without anchors (a side stream) places nothing.

// Structural kinds seen ahead of an item.
const (
	sEnd uint8 = iota
	sAtt
	sFFN
	sIO
)

func sRegion(s uint8) (rules.Region, bool) {
	switch s {
	case sAtt:
		return rules.Attention, true
	case sFFN:
		return rules.FFN, true
	case sIO:
		return rules.IO, true
	}
	return rules.Other, false
}

// placedByHost reports whether work i was placed by NVTX or graph context.
func (a *attributor) placedByHost(i int32) bool {
	m := a.out[i].Method
	return m == ByNVTX || m == ByGraph
}

// structural returns the structural kind of work i (sEnd when none).
func (a *attributor) structural(i int32) uint8 {
	switch c := a.class(&a.rank.Work[i]); c {
	case kAtt:
		return sAtt
	case kFFN:
		return sFFN
	case kSamp, kEmb:
		return sIO
	case kGemm, kNorm:
		if a.placedByHost(i) {
			switch a.out[i].Region {
			case rules.Attention:
				return sAtt
			case rules.FFN:
				return sFFN
			case rules.IO:
				return sIO
			}
		}
	}
	return sEnd
}

// embedding reports whether work i is an embedding lookup: an embed-class
// kernel, or a gather whose name rule puts it in io.
func (a *attributor) embedding(i int32) bool {
	switch a.class(&a.rank.Work[i]) {
	case kEmb:
		return true
	case kGather:
		r := a.out[i].Rule
		return a.set != nil && r >= 0 && int(r) < len(a.set.Rules) && a.set.Rules[r].Region == rules.IO &&
			(a.out[i].Method == Unmapped || a.out[i].Region == rules.IO)
	}
	return false
}

// byPosition places work by its position on its stream; seq is the work
// that has a structural class, by stream and start (see groupByStream).
// Streams are walked apart, and a long stream in segments that start at
// an attention kernel (see segments), on the goroutines the pool lends.
func (a *attributor) byPosition(seq []int32) {
	next := make([]uint8, len(seq))
	target := len(seq)
	if parts := a.pool.pieces(len(seq)); parts > 1 {
		target = len(seq) / parts
	}
	segs := a.segments(seq, max(target, 1))
	a.pool.each(len(segs), func(k int) {
		g := segs[k]
		a.positionSegment(seq[g.lo:g.hi], next[g.lo:g.hi], g)
	})
}

// segment is seq[lo:hi], a part of one stream's walk: the whole stream,
// or a part that ends where an attention kernel starts the next one
// (last is false then). Walking an attention kernel sets the whole state
// of the forward walk and of the backward one, whatever it was before:
// the segments give the walk of the whole stream, each on its own.
type segment struct {
	lo, hi int
	last   bool // the stream's last (or only) segment
	whole  bool // the stream's only segment
}

// segments cuts seq into its streams, and each stream at attention
// kernels into segments of at least target items.
func (a *attributor) segments(seq []int32, target int) []segment {
	rk := a.rank
	var out []segment
	for lo := 0; lo < len(seq); {
		hi := lo + 1
		for hi < len(seq) && rk.Work[seq[hi]].Stream == rk.Work[seq[lo]].Stream {
			hi++
		}
		start := lo
		for j := lo + target; j < hi; j++ {
			if a.class(&rk.Work[seq[j]]) == kAtt {
				out = append(out, segment{lo: start, hi: j})
				start = j
				j += target - 1
			}
		}
		out = append(out, segment{lo: start, hi: hi, last: true, whole: start == lo})
		lo = hi
	}
	return out
}

func (a *attributor) place(i int32, r rules.Region) {
	if a.unplaced(int(i)) {
		a.out[i] = Label{Region: r, Method: ByPosition, Rule: a.out[i].Rule}
	}
}

// positionSegment places the ambiguous work of one segment of a stream
// (see segment); seq is in start order and next is scratch space of the
// same length. A stream without any anchor (structural work or a
// collective) is left alone; one cut in segments has attention kernels.
func (a *attributor) positionSegment(seq []int32, next []uint8, g segment) {
	after := sEnd // the structural kind of the first anchor after seq
	if !g.last {
		after = sAtt
	}
	if !a.lookAhead(seq, next, after) && g.whole {
		return
	}
	st := walk{blk: noRegion, lastGemm: noRegion}
	for j, i := range seq {
		a.forward(&st, i, next[j])
	}
	a.consumers(seq, !g.last)
}

// noRegion marks "no region known" in the positional walk.
const noRegion = rules.Region(255)

// lookAhead fills next[j] with the structural kind of the first anchor
// after seq[j] (after, for the last) and reports whether seq has any
// anchor at all.
func (a *attributor) lookAhead(seq []int32, next []uint8, after uint8) bool {
	anchored := false
	s := after
	for j := len(seq) - 1; j >= 0; j-- {
		next[j] = s
		if k := a.structural(seq[j]); k != sEnd {
			s = k
			anchored = true
		}
		if a.class(&a.rank.Work[seq[j]]) == kComm {
			anchored = true
		}
	}
	return anchored
}

// walk is the state of the forward walk over one stream.
type walk struct {
	blk            rules.Region // the block being walked (noRegion: unknown)
	afterCore      bool         // inside an attention block, after its core kernel
	gemmsAfterCore int          // GEMMs seen since the attention core
	lastGemm       rules.Region // region of the GEMM just before (split-K and quant follow it)
	prevComm       bool         // the last item that was not a copy is a collective
	prevEmbed      bool         // the last item that was not glue is an embedding
}

// forward places item i from the blocks around it; nx is the structural
// kind of the next anchor after it.
func (a *attributor) forward(st *walk, i int32, nx uint8) {
	c := a.class(&a.rank.Work[i])
	if c == kCopy && st.prevComm {
		a.place(i, rules.Communication)
		return
	}
	if c == kElementwise && st.prevEmbed {
		a.place(i, rules.IO)
		return
	}
	if c != kCopy {
		st.prevComm = c == kComm
	}
	if c != kCopy && c != kElementwise {
		st.prevEmbed = a.embedding(i)
	}
	nr, nok := sRegion(nx)
	if !nok {
		nr = noRegion
	}
	switch c {
	case kAtt:
		st.blk, st.afterCore, st.gemmsAfterCore = rules.Attention, true, 0
	case kFFN:
		st.blk, st.afterCore = rules.FFN, false
	case kEmb, kSamp:
		st.blk, st.afterCore = rules.IO, false
	case kComm:
		st.blk, st.afterCore = nr, false
	case kNorm:
		a.forwardNorm(st, i, nr)
	case kGemm:
		a.forwardGemm(st, i, nx, nr)
		return
	case kSplitK:
		if st.lastGemm != noRegion {
			a.place(i, st.lastGemm)
		}
		return
	case kGather:
		if st.blk == rules.IO {
			a.place(i, rules.IO)
		}
	case kCopy, kElementwise:
		if st.blk != noRegion && st.blk == nr {
			a.place(i, st.blk)
		}
	}
	if c != kQuant && c != kWorkspace {
		st.lastGemm = noRegion
	}
}

// forwardNorm places a norm: it opens the block of the next anchor (a
// final norm at the end of the window closes an ffn or io block).
func (a *attributor) forwardNorm(st *walk, i int32, nr rules.Region) {
	if a.placedByHost(i) {
		st.blk, st.afterCore = a.out[i].Region, false
		return
	}
	r := nr
	if r == noRegion && (st.blk == rules.FFN || st.blk == rules.IO) {
		r = rules.IO // final norm at the end of the window
	}
	if r != noRegion {
		a.place(i, r)
	}
	st.blk, st.afterCore = r, false
}

// forwardGemm places a GEMM: in an attention block the first GEMM after
// the core (the output projection) stays in attention, later ones go to
// the next block; elsewhere it takes the current block, or the next one.
func (a *attributor) forwardGemm(st *walk, i int32, nx uint8, nr rules.Region) {
	if a.placedByHost(i) {
		// A GEMM placed by host context tells the block.
		st.lastGemm = a.out[i].Region
		if st.lastGemm != st.blk {
			st.blk, st.afterCore = st.lastGemm, false
		}
		if st.afterCore {
			st.gemmsAfterCore++
		}
		return
	}
	r := noRegion
	switch {
	case st.blk == rules.Attention && st.afterCore:
		if st.gemmsAfterCore == 0 || nx == sAtt || nr == noRegion {
			r = rules.Attention
		} else {
			r = nr
		}
		st.gemmsAfterCore++
	case st.blk != noRegion:
		r = st.blk
	default:
		r = nr
	}
	if r != noRegion {
		a.place(i, r)
	}
	st.lastGemm = r
}

// consumers walks backwards: quantisation, workspace and gather work takes
// the region of what comes right after it, and a copy right before a
// collective is communication. beforeAtt says that an attention kernel
// comes right after seq (seq is a segment that ends there).
func (a *attributor) consumers(seq []int32, beforeAtt bool) {
	cons, consGemm := noRegion, false
	if beforeAtt {
		cons = rules.Attention // as walking that kernel leaves it
	}
	nextComm := false // the next item that is not a copy is a collective
	for j := len(seq) - 1; j >= 0; j-- {
		i := seq[j]
		c := a.class(&a.rank.Work[i])
		if c == kCopy {
			if nextComm {
				a.place(i, rules.Communication)
			}
			cons = noRegion
			continue
		}
		nextComm = c == kComm
		switch c {
		case kGemm:
			cons, consGemm = noRegion, true
			if a.out[i].Method != Unmapped {
				cons = a.out[i].Region
			}
		case kAtt:
			cons, consGemm = rules.Attention, false
		case kFFN:
			cons, consGemm = rules.FFN, false
		case kQuant, kWorkspace, kGather:
			// A quantisation kernel feeds a GEMM or an attention/ffn
			// kernel; a workspace memset or a gather feeds a GEMM.
			if cons != noRegion && (c == kQuant || consGemm) {
				a.place(i, cons)
			}
			cons = noRegion
			if a.out[i].Method != Unmapped {
				cons = a.out[i].Region
			}
		case kSplitK:
		default:
			cons = noRegion
		}
	}
}

// groupByStream returns the indices of the work that keep accepts, by
// stream, then start, then index. Streams are few, so this is a counting
// pass; each stream's run is already in start order or a few ordered runs
// (its kernels, copies, memsets), merged in linear time (see sortByStart).
func groupByStream(work []event.Work, keep func(i int) bool) []int32 {
	var bk streamBuckets
	bk.init()
	var counts []int
	n := 0
	for i := range work {
		if !keep(i) {
			continue
		}
		b := bk.of(work[i].Stream)
		if int(b) == len(counts) {
			counts = append(counts, 0)
		}
		counts[b]++
		n++
	}
	// Offsets of the buckets in stream order.
	order := make([]int32, len(counts))
	for b := range order {
		order[b] = int32(b)
	}
	slices.SortFunc(order, func(x, y int32) int { return cmp.Compare(bk.streams[x], bk.streams[y]) })
	pos := make([]int, len(counts))
	off := 0
	for _, b := range order {
		pos[b] = off
		off += counts[b]
	}
	out := make([]int32, n)
	for i := range work {
		if keep(i) {
			b := bk.of(work[i].Stream)
			out[pos[b]] = int32(i)
			pos[b]++
		}
	}
	streams := make([]int, 0, len(order)+1)
	for _, b := range order {
		streams = append(streams, pos[b]-counts[b])
	}
	return mergeStreams(work, out, append(streams, len(out)))
}

// mergeStreams returns the work of s (indices into work, grouped by
// stream, streams[b] where stream b starts, each stream in table order)
// with each stream in (start, index) order: the streams' ascending runs
// merged, into a new slice when there are any to merge.
func mergeStreams(work []event.Work, s []int32, streams []int) []int32 {
	bounds := streamRunBounds(work, s, streams)
	if len(bounds) == len(streams) {
		return s // one run a stream
	}
	out := make([]int32, len(s))
	j := 0
	for b := 0; b+1 < len(streams); b++ {
		lo, hi := streams[b], streams[b+1]
		k := j
		for k < len(bounds) && bounds[k] < hi {
			k++
		}
		if lo == hi {
			continue
		}
		dst := out[lo:lo]
		rm := newRunMerge(work, s, bounds[j:k+1])
		for batch := rm.next(); batch != nil; batch = rm.next() {
			dst = append(dst, batch...)
		}
		j = k
	}
	return out
}
