package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/present"
)

func newWorkloadCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "Materialise a frozen workload file (JSONL) from a generator or a dataset",
	}
	cmd.AddCommand(newWorkloadRandomCmd(e), newWorkloadFromJSONLCmd(e), newWorkloadShareGPTCmd(e), newWorkloadInfoCmd(e))
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

// write writes reqs to --out and prints the one-line summary: on stdout
// for a file, on stderr when the workload itself goes to stdout.
func (o *outputFlags) write(e *env, reqs []workload.Request) error {
	sum, err := workload.Emit(o.out, e.stdout, reqs)
	if err != nil {
		return err
	}
	if o.out == workload.Stdout {
		fmt.Fprintln(e.stderr, sum)
	} else {
		fmt.Fprintln(e.stdout, sum)
	}
	return nil
}

// importOptions are the options shared by the importing subcommands.
func (o *outputFlags) importOptions(c *cobra.Command, outLen int, seed uint64) workload.ImportOptions {
	return workload.ImportOptions{OutputLen: outLen, FixedLength: o.fixedLength, Sampling: o.sampling(c), Seed: seed, RequestSeeds: o.reqSeeds}
}

func newWorkloadRandomCmd(e *env) *cobra.Command {
	var (
		o                outputFlags
		num              int
		inLen, outLen    string
		seed             uint64
		vocab, prefixLen int
		rate, burstiness float64
	)
	cmd := &cobra.Command{
		Use:   "random",
		Short: "Synthetic token-id prompts with fixed, ranged or distributed lengths",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			il, err := workload.ParseLength(inLen)
			if err != nil {
				return usagef("--input-len: %v", err)
			}
			ol, err := workload.ParseLength(outLen)
			if err != nil {
				return usagef("--output-len: %v", err)
			}
			if num <= 0 {
				return usagef("--num must be > 0")
			}
			reqs, err := workload.Random(workload.RandomSpec{
				Num: num, InputLen: il, OutputLen: ol, Seed: seed, Vocab: vocab, PrefixLen: prefixLen,
				FixedLength: o.fixedLength, Sampling: o.sampling(c), RequestSeeds: o.reqSeeds,
				RequestRate: rate, Burstiness: burstiness,
			})
			if err != nil {
				return usagef("%v", err)
			}
			return o.write(e, reqs)
		},
	}
	f := cmd.Flags()
	f.IntVar(&num, "num", 0, "number of requests (required)")
	f.StringVar(&inLen, "input-len", "", "prompt length in tokens after the shared prefix (required)")
	f.StringVar(&outLen, "output-len", "", "max_tokens (required)")
	f.Uint64Var(&seed, "seed", 0, "random seed (PCG)")
	f.IntVar(&vocab, "vocab", workload.DefaultVocab, "token ids are drawn from [3, vocab)")
	f.IntVar(&prefixLen, "prefix-len", 0, "tokens of one shared prefix at the start of every prompt")
	f.Float64Var(&rate, "request-rate", 0, "mean arrival rate in req/s for arrival offsets (0: none; the load policy decides)")
	f.Float64Var(&burstiness, "burstiness", 1, "gamma shape of inter-arrival gaps (1 Poisson, <1 burstier, >1 smoother)")
	o.register(f)
	for _, n := range []string{"num", "input-len", "output-len", "out"} {
		_ = cmd.MarkFlagRequired(n)
	}
	return cmd
}

func newWorkloadFromJSONLCmd(e *env) *cobra.Command {
	var (
		o      outputFlags
		outLen int
		seed   uint64
	)
	cmd := &cobra.Command{
		Use:   "from-jsonl FILE",
		Short: "Import prompts from a JSONL file",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.check(args[0]); err != nil {
				return err
			}
			if outLen < 0 {
				return usagef("--output-len must be >= 0")
			}
			reqs, st, err := workload.FromJSONLFile(args[0], o.importOptions(c, outLen, seed))
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stderr, strings.Join(st.Report(), "\n"))
			return o.write(e, reqs)
		},
	}
	cmd.Flags().IntVar(&outLen, "output-len", 0, "max_tokens for every request, overriding the file (0: from the file)")
	cmd.Flags().Uint64Var(&seed, "seed", 0, "seed for per-request sampling seeds")
	o.register(cmd.Flags())
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func newWorkloadShareGPTCmd(e *env) *cobra.Command {
	var (
		o                          outputFlags
		outLen, num                int
		seed                       uint64
		minLen, maxInput, maxTotal int
	)
	cmd := &cobra.Command{
		Use:   "sharegpt FILE",
		Short: "Import ShareGPT conversations as chat requests",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.check(args[0]); err != nil {
				return err
			}
			if outLen < 0 || num < 0 || minLen < 0 || maxInput < 0 || maxTotal < 0 {
				return usagef("--output-len, --num and the length filters must be >= 0")
			}
			opts := workload.ShareGPTOptions{ImportOptions: o.importOptions(c, outLen, seed),
				Num: num, MinLen: minLen, MaxInputLen: maxInput, MaxTotalLen: maxTotal}
			reqs, st, err := workload.ShareGPTFile(args[0], opts)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stderr, strings.Join(st.Report(), "\n"))
			if w := opts.Shortfall(st); w != "" {
				e.warn(w)
			}
			return o.write(e, reqs)
		},
	}
	f := cmd.Flags()
	f.IntVar(&outLen, "output-len", 0, "max_tokens for every request (0: approximate the reference reply)")
	f.IntVar(&num, "num", 0, "keep N conversations after a seeded shuffle (0: all, file order)")
	f.Uint64Var(&seed, "seed", 0, "seed for the shuffle and per-request sampling seeds")
	f.IntVar(&minLen, "min-len", 4, "skip prompts or replies shorter than this many approximate tokens (0: off)")
	f.IntVar(&maxInput, "max-input-len", 1024, "skip prompts longer than this many approximate tokens (0: off)")
	f.IntVar(&maxTotal, "max-total-len", 2048, "skip prompt+reply longer than this many approximate tokens (0: off)")
	o.register(f)
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
