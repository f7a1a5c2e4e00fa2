package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/servecmp/servecmp/internal/atomicfile"
)

// TraceStats tells what a trace replay workload holds.
type TraceStats struct {
	Read, Kept   int     // trace lines (rows) read and requests kept
	SpanS        float64 // the last arrival offset, seconds
	TimeScale    float64
	PromptTokens int64
	// ImpliedShare is the header's implied_prefix_reuse_share.
	ImpliedShare float64
	Ignored      []string // keys or columns of the trace that were not used
	// HeadClashes counts blocks whose first token repeats that of another
	// block after the same prefix (more such blocks than token ids):
	// those prompts share one token more than the trace implies.
	HeadClashes int
	SHA256      string // of the workload written
}

// Report is the summary printed after a trace was read, one line each.
func (s TraceStats) Report() []string {
	out := []string{fmt.Sprintf("workload: read %d trace lines, kept %d arriving over %.1f s (time scale %g); implied prefix reuse %.1f%% of %d prompt tokens",
		s.Read, s.Kept, s.SpanS, s.TimeScale, 100*s.ImpliedShare, s.PromptTokens)}
	if len(s.Ignored) > 0 {
		out = append(out, "workload: ignored keys: "+strings.Join(s.Ignored, ", "))
	}
	return out
}

// Warnings are what the user must know about the prompts made.
func (s TraceStats) Warnings() []string {
	if s.HeadClashes == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d prompt blocks start with the same token as another block after the same prefix (more distinct blocks follow one prefix than --vocab has token ids): those prompts share one token more than the trace implies; raise --vocab to the model's vocabulary size", s.HeadClashes)}
}

// TraceWorkload is a trace read and checked, ready to be written.
type TraceWorkload struct {
	Stats TraceStats // SHA256 is set by WriteTo
	tw    *traceWriter
}

// ReadTrace reads the trace at path as spec says (a wrong setting is an
// error naming its flag, as Validate gives) and checks every line and
// bound, before anything is written.
func ReadTrace(ctx context.Context, path string, spec TraceSpec) (*TraceWorkload, error) {
	if err := spec.fill(); err != nil {
		return nil, err
	}
	var tt *traceText
	heads := spec.Vocab
	if spec.Text != nil {
		spec.Text.Kind = KindText
		var err error
		if err = spec.Text.check(); err == nil {
			tt, err = newTraceText(spec.Text)
		}
		if err != nil {
			return nil, err
		}
		heads = FirstTokenID + tt.markers()
	}
	bt, err := buildTrace(ctx, path, spec, heads)
	if err != nil {
		return nil, err
	}
	tw := &traceWriter{bt: bt, text: tt}
	if tt == nil {
		tw.digitTable(spec.Vocab)
	}
	if t := spec.Sampling.Temperature; spec.RequestSeeds && t != nil && *t > 0 {
		sr := rand.New(rand.NewPCG(spec.Seed, streamSeeds))
		tw.seeds = make([]int64, len(bt.reqs))
		for i := range tw.seeds {
			tw.seeds[i] = int64(sr.Uint64() >> 1)
		}
	}
	if tt != nil {
		tt.bt = bt
	}
	st := TraceStats{Read: bt.read, Kept: len(bt.reqs), SpanS: bt.reqs[len(bt.reqs)-1].offsetS, TimeScale: spec.TimeScale,
		PromptTokens: bt.prompt, ImpliedShare: bt.share(), Ignored: bt.ignored, HeadClashes: bt.tree.clashes}
	return &TraceWorkload{Stats: st, tw: tw}, nil
}

// WriteTo writes the workload to w and returns the sha256 of the bytes,
// a pure function of the trace's bytes and the spec.
func (t *TraceWorkload) WriteTo(ctx context.Context, w io.Writer) (string, error) {
	sha, err := t.tw.write(ctx, w)
	t.Stats.SHA256 = sha
	return sha, err
}

// Emit writes the workload to path (atomically), or to stdout when path
// is Stdout, then the summary to log, the warnings to warn and the
// workload's line (count, sha256, path) to stdout (to log when the
// workload went to stdout), as EmitWithHeader does. A cancelled ctx
// writes nothing.
func (t *TraceWorkload) Emit(ctx context.Context, path string, stdout, log io.Writer, warn func(...string)) error {
	fill := func(w io.Writer) error {
		_, err := t.WriteTo(ctx, w)
		return err
	}
	var err error
	if path == Stdout {
		err = fill(stdout)
	} else {
		err = atomicfile.WriteFunc(path, fill)
	}
	if ctx.Err() != nil {
		return errors.New("interrupted: nothing written")
	}
	if err != nil {
		return err
	}
	st := t.Stats
	fmt.Fprintln(log, strings.Join(st.Report(), "\n"))
	warn(st.Warnings()...)
	where, to := path, stdout
	if path == Stdout {
		where, to = "(stdout)", log
	}
	_, err = fmt.Fprintf(to, "workload: %d requests  sha256 %s  %s\n", st.Kept, st.SHA256, where)
	return err
}
