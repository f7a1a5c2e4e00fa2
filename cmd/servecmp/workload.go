package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/present"
	"github.com/servecmp/servecmp/tokenizer"
)

func newWorkloadCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "Materialise a frozen workload file (JSONL) from a generator or a dataset",
	}
	cmd.AddCommand(newWorkloadRandomCmd(e), newWorkloadFromJSONLCmd(e), newWorkloadShareGPTCmd(e), newWorkloadDatasetCmd(e), newWorkloadInfoCmd(e))
	return cmd
}

// outputFlags are shared by every generating subcommand.
type outputFlags struct {
	out         string
	force       bool
	fixedLength bool
	temperature float64
	topP        float64
	topK        int
	reqSeeds    bool
	tokenizer   string
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.out, "out", "", "workload file to write (required; - for stdout)")
	fs.BoolVar(&o.force, "force", false, "overwrite --out if it exists")
	fs.BoolVar(&o.fixedLength, "fixed-length", true, "ask engines for exactly max_tokens tokens (ignore_eos/min_tokens)")
	fs.Float64Var(&o.temperature, "temperature", 0, "sampling temperature sent with every request (always sent)")
	fs.Float64Var(&o.topP, "top-p", 1, "top_p, sent only when given")
	fs.IntVar(&o.topK, "top-k", -1, "top_k, sent only when given")
	fs.BoolVar(&o.reqSeeds, "request-seeds", true, "with --temperature > 0, give each request its own sampling seed derived from --seed")
}

// registerTokenizer adds --tokenizer for the imports that count lengths.
func (o *outputFlags) registerTokenizer(fs *pflag.FlagSet) {
	fs.StringVar(&o.tokenizer, "tokenizer", "", "tokenizer.json or GGUF file: count prompt lengths exactly (else characters/4)")
}

// loadTokenizer loads --tokenizer, or returns nil when it is not given.
func (o *outputFlags) loadTokenizer() (*tokenizer.Tokenizer, error) {
	if o.tokenizer == "" {
		return nil, nil
	}
	return tokenizer.Load(o.tokenizer)
}

func (o *outputFlags) sampling(c *cobra.Command) workload.Sampling {
	t := o.temperature
	s := workload.Sampling{Temperature: &t}
	if c.Flags().Changed("top-p") {
		p := o.topP
		s.TopP = &p
	}
	if c.Flags().Changed("top-k") {
		k := o.topK
		s.TopK = &k
	}
	return s
}

// check refuses a missing --out, an existing one without --force, and
// one that cannot be written or names one of the command's inputs.
func (o *outputFlags) check(inputs ...string) error {
	if o.out == "" {
		return usagef("--out is required")
	}
	if o.out != workload.Stdout {
		if err := atomicfile.Check("--out", o.out, inputs...); err != nil {
			return usagef("%v", err)
		}
	}
	return workload.CheckNew(o.out, o.force)
}

// importOptions sets the options of an import that the output flags
// carry.
func (o *outputFlags) importOptions(c *cobra.Command, opts *workload.ImportOptions) {
	opts.FixedLength, opts.Sampling, opts.RequestSeeds = o.fixedLength, o.sampling(c), o.reqSeeds
}

func newWorkloadRandomCmd(e *env) *cobra.Command {
	var o outputFlags
	var prompt, template string
	spec := workload.RandomSpec{Vocab: workload.DefaultVocab, Burstiness: 1}
	cmd := &cobra.Command{
		Use:   "random",
		Short: "Synthetic token-id prompts with fixed, ranged or distributed lengths",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			spec.FixedLength, spec.Sampling, spec.RequestSeeds = o.fixedLength, o.sampling(c), o.reqSeeds
			var err error
			if spec.Text, err = workload.TextPromptsFor(o.tokenizer, prompt, template); err != nil {
				if _, ok := err.(workload.FlagError); ok {
					return usagef("%v", err)
				}
				return err
			}
			reqs, err := workload.RandomContext(c.Context(), spec)
			if c.Context().Err() != nil {
				return fmt.Errorf("interrupted: nothing written")
			}
			if err != nil {
				return usagef("%v", err)
			}
			return workload.EmitWithHeader(o.out, e.stdout, e.stderr, spec.Header(), reqs)
		},
	}
	f := cmd.Flags()
	f.IntVar(&spec.Num, "num", 0, "number of requests (required)")
	f.Var(&spec.InputLen, "input-len", "prompt length in tokens after the shared prefix (required)")
	f.Var(&spec.OutputLen, "output-len", "max_tokens (required)")
	f.Uint64Var(&spec.Seed, "seed", 0, "random seed (PCG)")
	f.IntVar(&spec.Vocab, "vocab", spec.Vocab, "token ids are drawn from [3, vocab)")
	f.IntVar(&spec.PrefixLen, "prefix-len", 0, "tokens of one shared prefix at the start of every prompt")
	f.Float64Var(&spec.RequestRate, "request-rate", 0, "mean arrival rate in req/s for arrival offsets (0: none; the load policy decides)")
	f.Float64Var(&spec.Burstiness, "burstiness", spec.Burstiness, "gamma shape of inter-arrival gaps (1 Poisson, <1 burstier, >1 smoother)")
	f.StringVar(&o.tokenizer, "tokenizer", "", "tokenizer.json or GGUF file: prompts of exact length under it (README: Real text)")
	f.StringVar(&prompt, "prompt", "", "prompt form: ids (default without --tokenizer), text or chat (default with it)")
	f.StringVar(&template, "chat-template", "", "Jinja chat template: render chat prompts client-side and send them as text")
	o.register(f)
	for _, n := range []string{"num", "input-len", "output-len", "out"} {
		_ = cmd.MarkFlagRequired(n)
	}
	return cmd
}

func newWorkloadFromJSONLCmd(e *env) *cobra.Command {
	var o outputFlags
	var opts workload.ImportOptions
	cmd := &cobra.Command{
		Use:   "from-jsonl FILE",
		Short: "Import prompts from a JSONL file",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.importOptions(c, &opts)
			if err := o.check(args[0]); err != nil {
				return err
			}
			if err := opts.Validate(); err != nil {
				return usagef("--output-len: %v", err)
			}
			var err error
			if opts.Tokenizer, err = o.loadTokenizer(); err != nil {
				return err
			}
			reqs, st, err := workload.FromJSONLFile(args[0], opts)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stderr, strings.Join(st.Report(), "\n"))
			return workload.EmitWithHeader(o.out, e.stdout, e.stderr, opts.Header(), reqs)
		},
	}
	cmd.Flags().IntVar(&opts.OutputLen, "output-len", 0, "max_tokens for every request, overriding the file (0: from the file)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 0, "seed for per-request sampling seeds")
	o.register(cmd.Flags())
	o.registerTokenizer(cmd.Flags())
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func newWorkloadShareGPTCmd(e *env) *cobra.Command {
	var o outputFlags
	opts := workload.ShareGPTOptions{MinLen: 4, MaxInputLen: 1024, MaxTotalLen: 2048}
	cmd := &cobra.Command{
		Use:   "sharegpt FILE",
		Short: "Import ShareGPT conversations as chat requests",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.importOptions(c, &opts.ImportOptions)
			if err := o.check(args[0]); err != nil {
				return err
			}
			if err := opts.Validate(); err != nil {
				return usagef("--output-len, --num, --min-len, --max-input-len, --max-total-len: %v", err)
			}
			var err error
			if opts.Tokenizer, err = o.loadTokenizer(); err != nil {
				return err
			}
			reqs, st, err := workload.ShareGPTFile(args[0], opts)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stderr, strings.Join(st.Report(), "\n"))
			if w := opts.Shortfall(st); w != "" {
				e.warn(w)
			}
			return workload.EmitWithHeader(o.out, e.stdout, e.stderr, opts.ImportOptions.Header(), reqs)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.OutputLen, "output-len", 0, "max_tokens for every request (0: approximate the reference reply)")
	f.IntVar(&opts.Num, "num", 0, "keep N conversations after a seeded shuffle (0: all, file order)")
	f.Uint64Var(&opts.Seed, "seed", 0, "seed for the shuffle and per-request sampling seeds")
	f.IntVar(&opts.MinLen, "min-len", opts.MinLen, "skip prompts or replies shorter than this many approximate tokens (0: off)")
	f.IntVar(&opts.MaxInputLen, "max-input-len", opts.MaxInputLen, "skip prompts longer than this many approximate tokens (0: off)")
	f.IntVar(&opts.MaxTotalLen, "max-total-len", opts.MaxTotalLen, "skip prompt+reply longer than this many approximate tokens (0: off)")
	o.register(f)
	o.registerTokenizer(f)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func newWorkloadDatasetCmd(e *env) *cobra.Command {
	var o outputFlags
	var d workload.DatasetOptions
	var prompt string
	cmd := &cobra.Command{
		Use:   "dataset FILE",
		Short: "Import prompts or conversations from a JSONL, JSON or Parquet dataset",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.check(args[0]); err != nil {
				return err
			}
			if d.OutputLen < 0 || d.Num < 0 {
				return usagef("--output-len and --num must be >= 0")
			}
			var err error
			if d.Tokenizer, err = o.loadTokenizer(); err != nil {
				return err
			}
			d.FixedLength, d.Sampling, d.RequestSeeds, d.PromptKind = o.fixedLength, o.sampling(c), o.reqSeeds, workload.Kind(prompt)
			reqs, st, err := workload.Dataset(args[0], d)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stderr, strings.Join(st.Report(), "\n"))
			return workload.EmitWithHeader(o.out, e.stdout, e.stderr, d.Header(), reqs)
		},
	}
	f := cmd.Flags()
	f.StringVar(&d.Format, "format", "", "jsonl, json or parquet (default: from the file name)")
	f.StringVar(&d.IDField, "id-field", "", "record id field (default: id when present)")
	f.StringVar(&d.PromptField, "prompt-field", "", "text prompt field: one request per record")
	f.StringVar(&prompt, "prompt", "chat", "send --prompt-field as a chat user message (chat) or a text prompt (text)")
	f.StringVar(&d.MessagesField, "messages-field", "", "conversation field: a list of messages")
	f.StringVar(&d.RoleKey, "role-key", "", "message role key (default role, then from)")
	f.StringVar(&d.ContentKey, "content-key", "", "message content key (default content, then value)")
	f.StringVar(&d.OutputLenField, "output-len-field", "", "whole-number field giving max_tokens")
	f.IntVar(&d.OutputLen, "output-len", 0, "max_tokens for every request, overriding the file (0: from the file)")
	f.BoolVar(&d.MultiTurn, "multi-turn", false, "every user turn a request of one per-conversation session")
	f.IntVar(&d.Num, "num", 0, "keep N records after a seeded shuffle (0: all, file order)")
	f.Uint64Var(&d.Seed, "seed", 0, "seed for the shuffle and per-request sampling seeds")
	o.register(f)
	o.registerTokenizer(f)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func newWorkloadInfoCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "info FILE",
		Short: "Validate a workload file and print its hash and length summary",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			w, err := workload.Load(args[0])
			if err != nil {
				return err
			}
			return present.WriteWorkloadInfo(e.stdout, w)
		},
	}
}
