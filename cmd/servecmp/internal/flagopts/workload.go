package flagopts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/tokenizer"
)

// Output holds the flags every workload-writing command shares: where the
// file goes, whether it may replace one, the shape of every request and
// the tokenizer file. Its methods run the commands; a wrong flag is a
// usage error, any other error a failure.
type Output struct {
	Path         string // the file to write, or workload.Stdout (required)
	Force        bool   // replace an existing file (workload.CheckNew)
	FixedLength  bool
	Temperature  float64 // always sent
	TopP         float64 // sent only when Set("top-p")
	TopK         int     // sent only when Set("top-k")
	RequestSeeds bool
	// Tokenizer is a tokenizer.json or GGUF file, or "".
	Tokenizer string
	// Changed reports whether a flag was given, by its name; nil: none
	// was.
	Changed func(name string) bool
}

func (o *Output) changed(name string) bool { return o.Changed != nil && o.Changed(name) }

// Sampling is the sampling every request carries: the temperature, and
// top_p and top_k when given.
func (o *Output) Sampling() workload.Sampling {
	t := o.Temperature
	s := workload.Sampling{Temperature: &t}
	if o.changed("top-p") {
		p := o.TopP
		s.TopP = &p
	}
	if o.changed("top-k") {
		k := o.TopK
		s.TopK = &k
	}
	return s
}

// Validate refuses a missing output path and one that cannot be written
// or names one of inputs (usage errors), then an existing file without
// Force.
func (o *Output) Validate(inputs ...string) error {
	if o.Path == "" {
		return cli.Usagef("--out is required")
	}
	if o.Path != workload.Stdout {
		if err := atomicfile.CheckWritable("--out", o.Path, inputs...); err != nil {
			return &cli.UsageError{Err: err}
		}
	}
	return workload.CheckNew(o.Path, o.Force)
}

// Random writes a random workload (workload random): spec with the
// output's request shape, its prompts text or chat under the tokenizer
// as prompt and templateFile ask (TextPromptsFor). The workload goes to
// o.Path, the summary line to stdout (log when the workload is stdout).
func (o *Output) Random(ctx context.Context, stdout, log io.Writer, spec workload.RandomSpec, prompt, templateFile string) error {
	if err := o.Validate(o.Tokenizer, templateFile); err != nil {
		return err
	}
	spec.FixedLength, spec.Sampling, spec.RequestSeeds = o.FixedLength, o.Sampling(), o.RequestSeeds
	var err error
	if spec.Text, err = TextPromptsFor(o.Tokenizer, prompt, templateFile); err != nil {
		return err
	}
	reqs, err := workload.RandomContext(ctx, spec)
	if ctx.Err() != nil {
		return errors.New("interrupted: nothing written")
	}
	if err != nil {
		return &cli.UsageError{Err: err}
	}
	return workload.EmitWithHeader(o.Path, stdout, log, spec.Header(), reqs)
}

// ImportJSONL imports the JSONL file path (workload from-jsonl).
func (o *Output) ImportJSONL(stdout, log io.Writer, path string, opts workload.ImportOptions) error {
	bad := opts.Validate()
	if bad != nil {
		bad = cli.Usagef("--output-len: %v", bad)
	}
	return o.importFile(stdout, log, path, &opts, bad, func() ([]workload.Request, workload.ImportStats, error) { return workload.FromJSONLFile(path, opts) }, nil)
}

// ImportShareGPT imports the ShareGPT file path (workload sharegpt),
// giving warn the shortfall when fewer conversations were usable than
// asked for.
func (o *Output) ImportShareGPT(stdout, log io.Writer, path string, opts workload.ShareGPTOptions, warn func(...string)) error {
	bad := opts.Validate()
	if bad != nil {
		bad = cli.Usagef("--output-len, --num, --min-len, --max-input-len, --max-total-len: %v", bad)
	}
	read := func() ([]workload.Request, workload.ImportStats, error) { return workload.ShareGPTFile(path, opts) }
	return o.importFile(stdout, log, path, &opts.ImportOptions, bad, read, func(st workload.ImportStats) {
		if w := opts.Shortfall(st); w != "" {
			warn(w)
		}
	})
}

// ImportDataset imports the dataset file path (workload dataset).
func (o *Output) ImportDataset(stdout, log io.Writer, path string, opts workload.DatasetOptions) error {
	var bad error
	if opts.OutputLen < 0 || opts.Num < 0 {
		bad = cli.Usagef("--output-len and --num must be >= 0")
	}
	return o.importFile(stdout, log, path, &opts.ImportOptions, bad, func() ([]workload.Request, workload.ImportStats, error) { return workload.Dataset(path, opts) }, nil)
}

// importFile is the run of an import: it sets the output's request shape
// in opts, checks the output and then bad, loads the tokenizer into
// opts, reads, reports the stats on log, calls after (when not nil) with
// them and writes the workload.
func (o *Output) importFile(stdout, log io.Writer, path string, opts *workload.ImportOptions, bad error,
	read func() ([]workload.Request, workload.ImportStats, error), after func(workload.ImportStats)) error {
	opts.FixedLength, opts.Sampling, opts.RequestSeeds = o.FixedLength, o.Sampling(), o.RequestSeeds
	if err := o.Validate(path, o.Tokenizer); err != nil {
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
	return workload.EmitWithHeader(o.Path, stdout, log, opts.Header(), reqs)
}

// TextPromptsFor resolves workload random's --tokenizer, --prompt and
// --chat-template flags: nil (token ids) without a tokenizer unless a
// text form is asked for, which is an error. A wrong flag combination is a
// usage error; a file that cannot be read or parsed is another error.
func TextPromptsFor(tokFile, prompt, templateFile string) (*workload.TextPrompts, error) {
	kind := workload.Kind(prompt)
	switch prompt {
	case "", "ids", "tokens":
		kind = workload.KindTokens
		if prompt == "" && tokFile != "" {
			kind = workload.KindChat
		}
	case "text", "chat":
	default:
		return nil, cli.Usagef("--prompt %q: want ids, text or chat", prompt)
	}
	if tokFile == "" {
		if kind != workload.KindTokens || templateFile != "" {
			return nil, cli.Usagef("--prompt text/chat and --chat-template need --tokenizer FILE")
		}
		return nil, nil
	}
	if kind == workload.KindTokens {
		return nil, cli.Usagef("--prompt ids makes token-id prompts; --tokenizer applies to text or chat")
	}
	if templateFile != "" && kind != workload.KindChat {
		return nil, cli.Usagef("--chat-template applies to --prompt chat only")
	}
	tok, err := tokenizer.Load(tokFile)
	if err != nil {
		return nil, err
	}
	tp := &workload.TextPrompts{Tokenizer: tok, Kind: kind}
	if templateFile != "" {
		if tp.Template, tp.TemplateFile, tp.TemplateHash, err = workload.ReadTemplate(templateFile); err != nil {
			return nil, err
		}
	}
	return tp, nil
}

// Register adds the flags every generating subcommand shares; with
// tok, also --tokenizer as the imports use it.
func (o *Output) Register(c *cobra.Command, tok bool) {
	fs := c.Flags()
	fs.StringVar(&o.Path, "out", "", "workload file to write (required; - for stdout)")
	fs.BoolVar(&o.Force, "force", false, "overwrite --out if it exists")
	fs.BoolVar(&o.FixedLength, "fixed-length", true, "ask engines for exactly max_tokens tokens (ignore_eos/min_tokens)")
	fs.Float64Var(&o.Temperature, "temperature", 0, "sampling temperature sent with every request (always sent)")
	fs.Float64Var(&o.TopP, "top-p", 1, "top_p, sent only when given")
	fs.IntVar(&o.TopK, "top-k", -1, "top_k, sent only when given")
	fs.BoolVar(&o.RequestSeeds, "request-seeds", true, "with --temperature > 0, give each request its own sampling seed derived from --seed")
	if tok {
		fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer.json or GGUF file: count prompt lengths exactly (else characters/4)")
	}
	o.Changed = fs.Changed
	_ = c.MarkFlagRequired("out")
}
