package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/tokenizer"
)

// Output holds what every workload-writing command shares: where the file
// goes, whether it may replace one, the shape of every request and the
// tokenizer file. Its methods run the commands; a wrong flag is a
// FlagError, any other error a failure.
type Output struct {
	Path         string // the file to write, or Stdout (required)
	Force        bool   // replace an existing file (CheckNew)
	FixedLength  bool
	Temperature  float64 // always sent
	TopP         float64 // sent only when Set("top-p")
	TopK         int     // sent only when Set("top-k")
	RequestSeeds bool
	// Tokenizer is a tokenizer.json or GGUF file, or "".
	Tokenizer string
	// Set reports whether an option was given, by its flag name; nil:
	// none was.
	Set func(name string) bool
}

func (o *Output) set(name string) bool { return o.Set != nil && o.Set(name) }

// Sampling is the sampling every request carries: the temperature, and
// top_p and top_k when given.
func (o *Output) Sampling() Sampling {
	t := o.Temperature
	s := Sampling{Temperature: &t}
	if o.set("top-p") {
		p := o.TopP
		s.TopP = &p
	}
	if o.set("top-k") {
		k := o.TopK
		s.TopK = &k
	}
	return s
}

// Check refuses a missing output path and one that cannot be written or
// names one of inputs (FlagErrors), then an existing file without Force.
func (o *Output) Check(inputs ...string) error {
	if o.Path == "" {
		return FlagError("--out is required")
	}
	if o.Path != Stdout {
		if err := atomicfile.Check("--out", o.Path, inputs...); err != nil {
			return FlagError(err.Error())
		}
	}
	return CheckNew(o.Path, o.Force)
}

// Random writes a random workload (workload random): spec with the
// output's request shape, its prompts text or chat under the tokenizer
// as prompt and templateFile ask (TextPromptsFor). The workload goes to
// o.Path, the summary line to stdout (log when the workload is stdout).
func (o *Output) Random(ctx context.Context, stdout, log io.Writer, spec RandomSpec, prompt, templateFile string) error {
	if err := o.Check(); err != nil {
		return err
	}
	spec.FixedLength, spec.Sampling, spec.RequestSeeds = o.FixedLength, o.Sampling(), o.RequestSeeds
	var err error
	if spec.Text, err = TextPromptsFor(o.Tokenizer, prompt, templateFile); err != nil {
		return err
	}
	reqs, err := RandomContext(ctx, spec)
	if ctx.Err() != nil {
		return errors.New("interrupted: nothing written")
	}
	if err != nil {
		return FlagError(err.Error())
	}
	return EmitWithHeader(o.Path, stdout, log, spec.Header(), reqs)
}

// ImportJSONL imports the JSONL file path (workload from-jsonl).
func (o *Output) ImportJSONL(stdout, log io.Writer, path string, opts ImportOptions) error {
	bad := opts.Validate()
	if bad != nil {
		bad = FlagError("--output-len: " + bad.Error())
	}
	return o.importFile(stdout, log, path, &opts, bad, func() ([]Request, ImportStats, error) { return FromJSONLFile(path, opts) }, nil)
}

// ImportShareGPT imports the ShareGPT file path (workload sharegpt),
// giving warn the shortfall when fewer conversations were usable than
// asked for.
func (o *Output) ImportShareGPT(stdout, log io.Writer, path string, opts ShareGPTOptions, warn func(...string)) error {
	bad := opts.Validate()
	if bad != nil {
		bad = FlagError("--output-len, --num, --min-len, --max-input-len, --max-total-len: " + bad.Error())
	}
	read := func() ([]Request, ImportStats, error) { return ShareGPTFile(path, opts) }
	return o.importFile(stdout, log, path, &opts.ImportOptions, bad, read, func(st ImportStats) {
		if w := opts.Shortfall(st); w != "" {
			warn(w)
		}
	})
}

// ImportDataset imports the dataset file path (workload dataset).
func (o *Output) ImportDataset(stdout, log io.Writer, path string, opts DatasetOptions) error {
	var bad error
	if opts.OutputLen < 0 || opts.Num < 0 {
		bad = FlagError("--output-len and --num must be >= 0")
	}
	return o.importFile(stdout, log, path, &opts.ImportOptions, bad, func() ([]Request, ImportStats, error) { return Dataset(path, opts) }, nil)
}

// importFile is the run of an import: it sets the output's request shape
// in opts, checks the output and then bad, loads the tokenizer into
// opts, reads, reports the stats on log, calls after (when not nil) with
// them and writes the workload.
func (o *Output) importFile(stdout, log io.Writer, path string, opts *ImportOptions, bad error,
	read func() ([]Request, ImportStats, error), after func(ImportStats)) error {
	opts.FixedLength, opts.Sampling, opts.RequestSeeds = o.FixedLength, o.Sampling(), o.RequestSeeds
	if err := o.Check(path); err != nil {
		return err
	}
	if bad != nil {
		return bad
	}
	if o.Tokenizer != "" {
		tok, err := tokenizer.Load(o.Tokenizer)
		if err != nil {
			return err
		}
		opts.Tokenizer = tok
	}
	reqs, st, err := read()
	if err != nil {
		return err
	}
	fmt.Fprintln(log, strings.Join(st.Report(), "\n"))
	if after != nil {
		after(st)
	}
	return EmitWithHeader(o.Path, stdout, log, opts.Header(), reqs)
}
