package flagopts

import (
	"context"
	"io"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
	"github.com/servecmp/servecmp/tokenizer"
)

// Trace writes a trace replay workload (workload trace) to o.Path: token-id
// prompts, or text under o.Tokenizer with prompt "text" (the default with
// a tokenizer). A wrong flag (the output, --prompt, spec's settings) is a
// usage error; a bad trace or tokenizer another error. The summary goes to
// log, then warnings to warn.
func (o *Output) Trace(ctx context.Context, stdout, log io.Writer, path string, spec workload.TraceSpec, prompt string, warn func(...string)) error {
	if err := o.Validate(path); err != nil {
		return err
	}
	switch {
	case prompt != "" && prompt != "ids" && prompt != "tokens" && prompt != "text":
		return cli.Usagef("--prompt %q: want ids or text", prompt)
	case prompt == "text" && o.Tokenizer == "":
		return cli.Usagef("--prompt text needs --tokenizer FILE")
	case prompt != "text" && prompt != "" && o.Tokenizer != "":
		return cli.Usagef("--prompt ids makes token-id prompts; --tokenizer applies to --prompt text")
	}
	if err := spec.Validate(); err != nil {
		return &cli.UsageError{Err: err}
	}
	spec.FixedLength, spec.Sampling, spec.RequestSeeds = o.FixedLength, o.Sampling(), o.RequestSeeds
	if o.Tokenizer != "" {
		tok, err := tokenizer.Load(o.Tokenizer)
		if err != nil {
			return err
		}
		spec.Text = &workload.TextPrompts{Tokenizer: tok, Kind: workload.KindText}
	}
	tr, err := workload.ReadTrace(ctx, path, spec)
	if err != nil {
		return err
	}
	return tr.Emit(ctx, o.Path, stdout, log, warn)
}
