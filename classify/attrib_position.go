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

func (a *attributor) byPosition() {
	rk := a.rank
	seq := make([]int32, 0, len(rk.Work))
	for i := range rk.Work {
		c := a.class(&rk.Work[i])
		if c == kNone || c == kUnknown {
			continue
		}
		seq = append(seq, int32(i))
	}
	seq = groupByStream(rk.Work, seq)
	next := make([]uint8, len(seq))
	for lo := 0; lo < len(seq); {
		hi := lo + 1
		for hi < len(seq) && rk.Work[seq[hi]].Stream == rk.Work[seq[lo]].Stream {
			hi++
		}
		a.positionStream(seq[lo:hi], next[lo:hi])
		lo = hi
	}
}

func (a *attributor) place(i int32, r rules.Region) {
	if a.unplaced(int(i)) {
		a.out[i] = Label{Region: r, Method: ByPosition, Rule: a.out[i].Rule}
	}
}

// positionStream places the ambiguous work of one stream; seq is in start
// order and next is scratch space of the same length.
func (a *attributor) positionStream(seq []int32, next []uint8) {
	anchored := false
	s := sEnd
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
	if !anchored {
		return
	}

	const none = rules.Region(255)
	blk := none
	afterCore := false
	gemmsAfterCore := 0
	lastGemm := none
	prevComm := false  // the last item that was not a copy is a collective
	prevEmbed := false // the last item that was not glue is an embedding
	for j, i := range seq {
		c := a.class(&a.rank.Work[i])
		if c == kCopy && prevComm {
			a.place(i, rules.Communication)
			continue
		}
		if c == kElementwise && prevEmbed {
			a.place(i, rules.IO)
			continue
		}
		if c != kCopy {
			prevComm = c == kComm
		}
		if c != kCopy && c != kElementwise {
			prevEmbed = a.embedding(i)
		}
		nr, nok := sRegion(next[j])
		if !nok {
			nr = none
		}
		switch c {
		case kAtt:
			blk, afterCore, gemmsAfterCore = rules.Attention, true, 0
		case kFFN:
			blk, afterCore = rules.FFN, false
		case kEmb, kSamp:
			blk, afterCore = rules.IO, false
		case kComm:
			blk, afterCore = nr, false
		case kNorm:
			if a.placedByHost(i) {
				blk, afterCore = a.out[i].Region, false
				break
			}
			r := nr
			if r == none && (blk == rules.FFN || blk == rules.IO) {
				r = rules.IO // final norm at the end of the window
			}
			if r != none {
				a.place(i, r)
			}
			blk, afterCore = r, false
		case kGemm:
			if a.placedByHost(i) {
				// A GEMM placed by host context tells the block.
				lastGemm = a.out[i].Region
				if lastGemm != blk {
					blk, afterCore = lastGemm, false
				}
				if afterCore {
					gemmsAfterCore++
				}
				continue
			}
			r := none
			switch {
			case blk == rules.Attention && afterCore:
				if gemmsAfterCore == 0 || next[j] == sAtt || nr == none {
					r = rules.Attention
				} else {
					r = nr
				}
				gemmsAfterCore++
			case blk != none:
				r = blk
			default:
				r = nr
			}
			if r != none {
				a.place(i, r)
			}
			lastGemm = r
			continue
		case kSplitK:
			if lastGemm != none {
				a.place(i, lastGemm)
			}
			continue
		case kGather:
			if blk == rules.IO {
				a.place(i, rules.IO)
			}
		case kCopy, kElementwise:
			if blk != none && blk == nr {
				a.place(i, blk)
			}
		}
		if c != kQuant && c != kWorkspace {
			lastGemm = none
		}
	}

	// Consumers: walk backwards; quantisation, workspace and gather work
	// takes the region of what comes right after it.
	cons, consGemm := none, false
	nextComm := false // the next item that is not a copy is a collective
	for j := len(seq) - 1; j >= 0; j-- {
		i := seq[j]
		c := a.class(&a.rank.Work[i])
		if c == kCopy {
			if nextComm {
				a.place(i, rules.Communication)
			}
			cons = none
			continue
		}
		nextComm = c == kComm
		switch c {
		case kGemm:
			cons, consGemm = none, true
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
			if cons != none && (c == kQuant || consGemm) {
				a.place(i, cons)
			}
			cons = none
			if a.out[i].Method != Unmapped {
				cons = a.out[i].Region
			}
		case kSplitK:
		default:
			cons = none
		}
	}
}

// groupByStream reorders seq (indices into work, ascending) by stream, then
// start, then index. Streams are few, so this is a counting pass; each
// stream's run is sorted only when its starts are not already in order
// (exports usually are).
func groupByStream(work []event.Work, seq []int32) []int32 {
	pos := map[uint32]int{}
	var streams []uint32
	for _, i := range seq {
		st := work[i].Stream
		if _, ok := pos[st]; !ok {
			pos[st] = 0
			streams = append(streams, st)
		}
		pos[st]++
	}
	slices.Sort(streams)
	off := 0
	for _, st := range streams {
		n := pos[st]
		pos[st] = off
		off += n
	}
	out := make([]int32, len(seq))
	for _, i := range seq {
		st := work[i].Stream
		out[pos[st]] = i
		pos[st]++
	}
	for lo := 0; lo < len(out); {
		hi := lo + 1
		sorted := true
		for hi < len(out) && work[out[hi]].Stream == work[out[lo]].Stream {
			if work[out[hi]].Start < work[out[hi-1]].Start {
				sorted = false
			}
			hi++
		}
		if !sorted {
			slices.SortFunc(out[lo:hi], func(x, y int32) int {
				if c := cmp.Compare(work[x].Start, work[y].Start); c != 0 {
					return c
				}
				return cmp.Compare(x, y)
			})
		}
		lo = hi
	}
	return out
}
