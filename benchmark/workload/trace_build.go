package workload

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
)

// traceReq is one request kept from a trace.
type traceReq struct {
	line     int
	offsetS  float64
	in, out  int
	first, n int32 // its blocks: arena[first : first+n]
}

// builtTrace is a trace read and checked, ready to be written.
type builtTrace struct {
	spec    TraceSpec
	name    string
	reqs    []traceReq
	arena   []int32
	tree    *blockTree
	read    int   // lines read
	prompt  int64 // prompt tokens of the requests kept
	reused  int64 // of which an earlier kept request sent first
	sha     string
	ignored []string
}

// windowState follows the arrival order and the --start/--limit window.
type windowState struct {
	started   bool
	t0, prev  int64
	prevLine  int
	startNs   int64
	scale     float64
	where     func(int) string
	limit     int
	kept      int
	reachedAt bool
}

// buildTrace reads the trace at path, keeps the requests spec's window
// asks for, checks every bound and builds their blocks, whose first
// tokens are drawn from [FirstTokenID, heads).
func buildTrace(ctx context.Context, path string, spec TraceSpec, heads int) (*builtTrace, error) {
	tf, err := openTrace(path, spec.Format)
	if err != nil {
		return nil, err
	}
	defer tf.close()
	bt := &builtTrace{spec: spec, name: path, tree: newBlockTree(spec.Seed, heads)}
	w := windowState{startNs: int64(math.Round(spec.StartS * 1e9)), scale: spec.TimeScale, where: tf.src.where, limit: spec.Limit}
	for {
		if bt.read%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		tl, err := tf.src.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		bt.read++
		off, keep, err := w.admit(&tl)
		if err != nil {
			return nil, err
		}
		if w.reachedAt {
			break
		}
		if keep {
			if err := bt.add(&tl, off, tf.src.where); err != nil {
				return nil, err
			}
		}
	}
	if len(bt.reqs) == 0 {
		if bt.read == 0 {
			return nil, fmt.Errorf("%s: no requests", path)
		}
		return nil, fmt.Errorf("%s: no request at or after --start %gs (%d lines read)", path, spec.StartS, bt.read)
	}
	bt.ignored = tf.src.ignored()
	if bt.sha, err = tf.finish(); err != nil {
		return nil, err
	}
	return bt, nil
}

// admit checks a line's place in time and reports its arrival offset
// and whether it lies in the window; reachedAt is set once the limit is
// reached (the line is then not kept).
func (w *windowState) admit(tl *traceLine) (float64, bool, error) {
	if !w.started {
		w.started, w.t0, w.prev, w.prevLine = true, tl.tsNs, tl.tsNs, tl.line
	}
	if tl.tsNs < w.prev {
		return 0, false, fmt.Errorf("%s: the timestamp goes back %.3f ms from %s's: a trace must be in arrival order (sort it by timestamp first)",
			w.where(tl.line), float64(w.prev-tl.tsNs)/1e6, w.where(w.prevLine))
	}
	w.prev, w.prevLine = tl.tsNs, tl.line
	rel := tl.tsNs - w.t0 - w.startNs
	if rel < 0 {
		return 0, false, nil
	}
	if w.limit > 0 && w.kept == w.limit {
		w.reachedAt = true
		return 0, false, nil
	}
	off := float64(rel) / 1e9 * w.scale
	if off > MaxArrivalOffsetS {
		return 0, false, fmt.Errorf("%s: arrives %.0f s after the first request at --time-scale %g, later than the longest replay (%d s): use --limit or a smaller --time-scale",
			w.where(tl.line), off, w.scale, MaxArrivalOffsetS)
	}
	w.kept++
	return off, true, nil
}

// add keeps one request: its blocks, its prefix reuse and the bounds on
// the whole.
func (bt *builtTrace) add(tl *traceLine, off float64, where func(int) string) error {
	bs := bt.spec.BlockSize
	nb := ceilDiv(tl.in, bs)
	if tl.hasIDs && len(tl.ids) != nb {
		return fmt.Errorf("%s: %d hash ids, but input_length %d needs ⌈%d/%d⌉ = %d (give --block-size when the trace used another block)",
			where(tl.line), len(tl.ids), tl.in, tl.in, bs, nb)
	}
	if bt.prompt+int64(tl.in) > MaxRandomTokens || len(bt.arena)+nb > MaxTraceBlocks {
		return fmt.Errorf("%s: the requests up to here hold more than %d prompt tokens or %d blocks: use --limit", where(tl.line), MaxRandomTokens, MaxTraceBlocks)
	}
	r := traceReq{line: tl.line, offsetS: off, in: tl.in, out: tl.out, first: int32(len(bt.arena)), n: int32(nb)}
	parent := int32(-1)
	for j := range nb {
		var n int32
		if tl.hasIDs {
			var err error
			if n, err = bt.tree.node(tl.ids[j], parent, tl.line); err != nil {
				return fmt.Errorf("%s: hash_ids[%d]: %v", where(tl.line), j, err)
			}
		} else {
			n = bt.tree.newNode(int64(tl.line)<<24|int64(j), parent, tl.line)
		}
		bt.arena = append(bt.arena, n)
		parent = n
	}
	bt.reused += int64(bt.tree.reuse(bt.arena[r.first:], tl.in, bs))
	bt.prompt += int64(tl.in)
	bt.reqs = append(bt.reqs, r)
	return nil
}

// share is the implied prefix reuse share.
func (bt *builtTrace) share() float64 {
	if bt.prompt == 0 {
		return 0
	}
	return float64(bt.reused) / float64(bt.prompt)
}

// source is the header's record of the trace.
func (bt *builtTrace) source() *TraceSource {
	s := bt.spec
	ts := &TraceSource{File: filepath.Base(bt.name), SHA256: bt.sha, Format: s.Format, BlockSize: s.BlockSize,
		TimeScale: s.TimeScale, StartS: s.StartS, Limit: s.Limit, Seed: s.Seed, ImpliedPrefixReuseShare: bt.share()}
	if s.Text == nil {
		ts.Vocab = s.Vocab
	}
	return ts
}
