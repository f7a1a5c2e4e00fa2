package experiment

import (
	"context"
	"io"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/tokenizer"
)

// LoadTrace is the runs' load when the workload is a trace and neither
// concurrency nor rate is given: every request is sent at its own
// arrival offset (benchmark's trace mode).
const LoadTrace = "trace"

// Trace holds `servecmp workload trace` settings, with its defaults; the
// file is materialised into the output directory.
type Trace struct {
	File      string  `json:"file"` // resolved against the experiment's directory
	Format    string  `json:"format"`
	BlockSize int     `json:"block_size"`
	TimeScale float64 `json:"time_scale"`
	StartS    float64 `json:"start_s"`
	Limit     int     `json:"limit"`
	Seed      uint64  `json:"seed"`
	Vocab     int     `json:"vocab"`
	// Tokenizer, when set (resolved against the experiment's directory),
	// makes the prompts text of exact length under it.
	Tokenizer   string  `json:"tokenizer,omitempty"`
	FixedLength bool    `json:"fixed_length"` // default true
	Temperature float64 `json:"temperature"`
}

// Spec turns the settings into the trace reader's input (without the
// tokenizer, which Materialise loads).
func (t Trace) Spec() workload.TraceSpec {
	temp := t.Temperature
	return workload.TraceSpec{Format: t.Format, BlockSize: t.BlockSize, TimeScale: t.TimeScale, StartS: t.StartS,
		Limit: t.Limit, Seed: t.Seed, Vocab: t.Vocab, FixedLength: t.FixedLength,
		Sampling: workload.Sampling{Temperature: &temp}, RequestSeeds: true}
}

// materialiseTrace writes the trace's workload to WorkloadFile in the
// output directory d unless the file there already holds exactly it (the
// workload is made twice then: once to hash it, once to write it).
func materialiseTrace(ctx context.Context, t Trace, d *atomicfile.Dir) error {
	path := d.Join(WorkloadFile)
	spec := t.Spec()
	if t.Tokenizer != "" {
		tok, err := tokenizer.Load(t.Tokenizer)
		if err != nil {
			return err
		}
		spec.Text = &workload.TextPrompts{Tokenizer: tok}
	}
	tr, err := workload.ReadTrace(ctx, t.File, spec)
	if err != nil {
		return err
	}
	if old, err := HashFile(path); err == nil {
		sha, err := tr.WriteTo(ctx, io.Discard)
		if err != nil || sha == old {
			return err
		}
	}
	return d.WriteFunc(WorkloadFile, func(w io.Writer) error {
		_, err := tr.WriteTo(ctx, w)
		return err
	})
}
