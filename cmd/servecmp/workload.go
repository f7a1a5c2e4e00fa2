package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/infile"
	"github.com/servecmp/servecmp/internal/present"
)

func newWorkloadCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "Materialise a frozen workload file (JSONL) from a generator or a dataset",
		Long: `A workload file holds one request per line: id, prompt (token ids, text or
chat messages), max_tokens, fixed_length, sampling settings and an optional
arrival offset. Its sha256 is recorded in every benchmark result, so the same
bytes drive every engine. Once written, a workload file is never rewritten:
commands refuse to overwrite an existing file unless --force is given.`,
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
	if o.out == "-" {
		return nil
	}
	if err := atomicfile.Check("--out", o.out, inputs...); err != nil {
		return usagef("%v", err)
	}
	if !o.force {
		if _, err := os.Stat(o.out); err == nil {
			return fmt.Errorf("%s exists; a workload file is frozen once written (use --force to replace it)", o.out)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// write writes reqs to --out and prints the one-line summary: on stdout
// for a file, on stderr when the workload itself goes to stdout.
func (o *outputFlags) write(e *env, reqs []workload.Request) error {
	if o.out == "-" {
		var buf bytes.Buffer
		if err := workload.Write(&buf, reqs); err != nil {
			return err
		}
		sum := sha256.Sum256(buf.Bytes())
		if _, err := e.stdout.Write(buf.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "workload: %d requests  sha256 %s  (stdout)\n", len(reqs), hex.EncodeToString(sum[:]))
		return nil
	}
	sha, err := workload.WriteFile(o.out, reqs)
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.out, err)
	}
	fmt.Fprintf(e.stdout, "workload: %d requests  sha256 %s  %s\n", len(reqs), sha, o.out)
	return nil
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
		Long: `Writes --num requests whose prompts are token ids (sent to /v1/completions
as a token array, so every engine sees identical model inputs).

A length is N (fixed), A:B (uniform integer, both ends included),
normal:MEAN,STD, lognormal:MU,SIGMA (of ln length) or exp:MEAN; sampled
values are rounded and clamped to at least 1. Token ids are uniform in
[3, --vocab): ids 0-2 are skipped because vocabularies usually keep special
tokens there. --prefix-len adds one shared run of ids to the front of every
prompt (a prompt is prefix-len + input-len tokens). --request-rate gives
each request an arrival offset from a gamma process (shape --burstiness,
1 = Poisson). The file is a pure function of the flags: same flags, same
bytes.`,
		Args: cobra.NoArgs,
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
		Long: `Each line of FILE is an object with exactly one prompt form:
  "prompt": "text"            text prompt (/v1/completions)
  "prompt": [ids...] or "prompt_token_ids": [ids...]   token-id prompt
  "messages": [{"role": "user", "content": "..."}]   chat (/v1/chat/completions)
and an output length, "output_len" or "max_tokens" (--output-len overrides
both). Optional: "id" (default "l<line number>"), "arrival_offset_s".
Other keys are ignored and listed on stderr.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.check(args[0]); err != nil {
				return err
			}
			if outLen < 0 {
				return usagef("--output-len must be >= 0")
			}
			f, err := infile.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			reqs, st, err := workload.FromJSONL(args[0], f, workload.ImportOptions{
				OutputLen: outLen, FixedLength: o.fixedLength, Sampling: o.sampling(c), Seed: seed, RequestSeeds: o.reqSeeds,
			})
			if err != nil {
				return err
			}
			printImportStats(e, st)
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
		Long: `FILE is a JSON array of {"id", "conversations": [{"from", "value"}...]}.
The first human turn becomes a one-message chat prompt; the reply after it
sets max_tokens. No tokenizer is available offline, so lengths are
approximated as ceil(characters / 4) (rough for English BPE, low for CJK);
use --output-len to set max_tokens exactly. Conversations that do not open
with a human turn and a reply, or fall outside the length filters (on the
same approximation), are skipped and counted on stderr. --num N keeps N
conversations after a shuffle seeded by --seed; without it all are kept in
file order.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.check(args[0]); err != nil {
				return err
			}
			if outLen < 0 || num < 0 || minLen < 0 || maxInput < 0 || maxTotal < 0 {
				return usagef("--output-len, --num and the length filters must be >= 0")
			}
			f, err := infile.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			reqs, st, err := workload.ShareGPT(args[0], f, workload.ShareGPTOptions{
				ImportOptions: workload.ImportOptions{OutputLen: outLen, FixedLength: o.fixedLength, Sampling: o.sampling(c),
					Seed: seed, RequestSeeds: o.reqSeeds},
				Num: num, MinLen: minLen, MaxInputLen: maxInput, MaxTotalLen: maxTotal,
			})
			if err != nil {
				return err
			}
			printImportStats(e, st)
			if num > 0 && st.Kept < num {
				fmt.Fprintf(e.stderr, "workload: warning: asked for %d conversations, only %d usable\n", num, st.Kept)
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

func printImportStats(e *env, st workload.ImportStats) {
	line := fmt.Sprintf("workload: read %d records, kept %d", st.Read, st.Kept)
	if len(st.Skipped) > 0 {
		var reasons []string
		for r, n := range st.Skipped {
			reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
		}
		sort.Strings(reasons)
		line += "; skipped: " + strings.Join(reasons, ", ")
	}
	fmt.Fprintln(e.stderr, line)
	if len(st.IgnoredKeys) > 0 {
		fmt.Fprintf(e.stderr, "workload: ignored keys: %s\n", strings.Join(st.IgnoredKeys, ", "))
	}
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
