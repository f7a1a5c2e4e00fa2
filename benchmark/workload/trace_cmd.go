package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/tokenizer"
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

// ReadTrace reads the trace at path as spec says (a wrong setting is a
// FlagError) and checks every line and bound, before anything is
// written.
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

// Trace writes a trace replay workload (workload trace) to o.Path: token-id
// prompts, or text under o.Tokenizer with prompt "text" (the default with
// a tokenizer). The summary goes to log, then warnings to warn.
func (o *Output) Trace(ctx context.Context, stdout, log io.Writer, path string, spec TraceSpec, prompt string, warn func(...string)) error {
	if err := o.Check(path); err != nil {
		return err
	}
	switch {
	case prompt != "" && prompt != "ids" && prompt != "tokens" && prompt != "text":
		return FlagError(fmt.Sprintf("--prompt %q: want ids or text", prompt))
	case prompt == "text" && o.Tokenizer == "":
		return FlagError("--prompt text needs --tokenizer FILE")
	case prompt != "text" && prompt != "" && o.Tokenizer != "":
		return FlagError("--prompt ids makes token-id prompts; --tokenizer applies to --prompt text")
	}
	spec.FixedLength, spec.Sampling, spec.RequestSeeds = o.FixedLength, o.Sampling(), o.RequestSeeds
	if o.Tokenizer != "" {
		tok, err := tokenizer.Load(o.Tokenizer)
		if err != nil {
			return err
		}
		spec.Text = &TextPrompts{Tokenizer: tok, Kind: KindText}
	}
	tr, err := ReadTrace(ctx, path, spec)
	if err != nil {
		return err
	}
	fill := func(w io.Writer) error {
		_, err := tr.WriteTo(ctx, w)
		return err
	}
	if o.Path == Stdout {
		err = fill(stdout)
	} else {
		err = atomicfile.WriteFunc(o.Path, fill)
	}
	if ctx.Err() != nil {
		return errors.New("interrupted: nothing written")
	}
	if err != nil {
		return err
	}
	st := tr.Stats
	fmt.Fprintln(log, strings.Join(st.Report(), "\n"))
	warn(st.Warnings()...)
	where, to := o.Path, stdout
	if o.Path == Stdout {
		where, to = "(stdout)", log
	}
	_, err = fmt.Fprintf(to, "workload: %d requests  sha256 %s  %s\n", st.Kept, st.SHA256, where)
	return err
}
