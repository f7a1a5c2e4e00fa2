package main

import (
	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/flagopts"
	"github.com/servecmp/servecmp/output/present"
)

func newWorkloadCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "Materialise a frozen workload file (JSONL) from a generator or a dataset",
	}
	cmd.AddCommand(newWorkloadRandomCmd(e), newWorkloadFromJSONLCmd(e), newWorkloadShareGPTCmd(e), newWorkloadDatasetCmd(e), newWorkloadTraceCmd(e), newWorkloadInfoCmd(e))
	return cmd
}

func newWorkloadRandomCmd(e *env) *cobra.Command {
	var o flagopts.Output
	var prompt, template string
	spec := workload.RandomSpec{Vocab: workload.DefaultVocab, Burstiness: 1}
	cmd := &cobra.Command{
		Use:   "random",
		Short: "Synthetic token-id prompts with fixed, ranged or distributed lengths",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return o.Random(c.Context(), e.stdout, e.stderr, spec, prompt, template)
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
	f.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer.json or GGUF file: prompts of exact length under it (docs/workload.md: Real text)")
	f.StringVar(&prompt, "prompt", "", "prompt form: ids (default without --tokenizer), text or chat (default with it)")
	f.StringVar(&template, "chat-template", "", "Jinja chat template: render chat prompts client-side and send them as text")
	o.Register(cmd, false)
	for _, n := range []string{"num", "input-len", "output-len"} {
		_ = cmd.MarkFlagRequired(n)
	}
	return cmd
}

func newWorkloadFromJSONLCmd(e *env) *cobra.Command {
	var o flagopts.Output
	var opts workload.ImportOptions
	cmd := &cobra.Command{
		Use:   "from-jsonl FILE",
		Short: "Import prompts from a JSONL file",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.ImportJSONL(e.stdout, e.stderr, args[0], opts)
		},
	}
	cmd.Flags().IntVar(&opts.OutputLen, "output-len", 0, "max_tokens for every request, overriding the file (0: from the file)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 0, "seed for per-request sampling seeds")
	o.Register(cmd, true)
	return cmd
}

func newWorkloadShareGPTCmd(e *env) *cobra.Command {
	var o flagopts.Output
	opts := workload.ShareGPTOptions{MinLen: 4, MaxInputLen: 1024, MaxTotalLen: 2048}
	cmd := &cobra.Command{
		Use:   "sharegpt FILE",
		Short: "Import ShareGPT conversations as chat requests",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.ImportShareGPT(e.stdout, e.stderr, args[0], opts, e.warn)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.OutputLen, "output-len", 0, "max_tokens for every request (0: approximate the reference reply)")
	f.IntVar(&opts.Num, "num", 0, "keep N conversations after a seeded shuffle (0: all, file order)")
	f.Uint64Var(&opts.Seed, "seed", 0, "seed for the shuffle and per-request sampling seeds")
	f.IntVar(&opts.MinLen, "min-len", opts.MinLen, "skip prompts or replies shorter than this many approximate tokens (0: off)")
	f.IntVar(&opts.MaxInputLen, "max-input-len", opts.MaxInputLen, "skip prompts longer than this many approximate tokens (0: off)")
	f.IntVar(&opts.MaxTotalLen, "max-total-len", opts.MaxTotalLen, "skip prompt+reply longer than this many approximate tokens (0: off)")
	o.Register(cmd, true)
	return cmd
}

func newWorkloadDatasetCmd(e *env) *cobra.Command {
	var o flagopts.Output
	d := workload.DatasetOptions{PromptKind: workload.KindChat}
	cmd := &cobra.Command{
		Use:   "dataset FILE",
		Short: "Import prompts or conversations from a JSONL, JSON or Parquet dataset",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.ImportDataset(e.stdout, e.stderr, args[0], d)
		},
	}
	f := cmd.Flags()
	f.StringVar(&d.Format, "format", "", "jsonl, json or parquet (default: from the file name)")
	f.StringVar(&d.IDField, "id-field", "", "record id field (default: id when present)")
	f.StringVar(&d.PromptField, "prompt-field", "", "text prompt field: one request per record")
	f.StringVar((*string)(&d.PromptKind), "prompt", string(d.PromptKind), "send --prompt-field as a chat user message (chat) or a text prompt (text)")
	f.StringVar(&d.MessagesField, "messages-field", "", "conversation field: a list of messages")
	f.StringVar(&d.RoleKey, "role-key", "", "message role key (default role, then from)")
	f.StringVar(&d.ContentKey, "content-key", "", "message content key (default content, then value)")
	f.StringVar(&d.OutputLenField, "output-len-field", "", "whole-number field giving max_tokens")
	f.IntVar(&d.OutputLen, "output-len", 0, "max_tokens for every request, overriding the file (0: from the file)")
	f.BoolVar(&d.MultiTurn, "multi-turn", false, "every user turn a request of one per-conversation session")
	f.IntVar(&d.Num, "num", 0, "keep N records after a seeded shuffle (0: all, file order)")
	f.Uint64Var(&d.Seed, "seed", 0, "seed for the shuffle and per-request sampling seeds")
	o.Register(cmd, true)
	return cmd
}

func newWorkloadTraceCmd(e *env) *cobra.Command {
	var o flagopts.Output
	var prompt string
	t := workload.TraceSpec{BlockSize: workload.DefaultTraceBlockSize, TimeScale: 1, Vocab: workload.DefaultVocab}
	cmd := &cobra.Command{
		Use:   "trace FILE",
		Short: "Replay a Mooncake or Azure request trace: its lengths, arrival times and shared prefixes",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.Trace(c.Context(), e.stdout, e.stderr, args[0], t, prompt, e.warn)
		},
	}
	f := cmd.Flags()
	f.StringVar(&t.Format, "format", "", "mooncake (JSONL or Parquet, gzip read too) or azure (CSV) (required)")
	f.IntVar(&t.BlockSize, "block-size", t.BlockSize, "tokens per Mooncake hash id")
	f.Float64Var(&t.TimeScale, "time-scale", 1, "arrival offsets are trace time × this (0.1 replays 10× faster)")
	f.Float64Var(&t.StartS, "start", 0, "leave out the trace's first seconds; offsets count from there")
	f.IntVar(&t.Limit, "limit", 0, "keep at most N requests (0: all)")
	f.Uint64Var(&t.Seed, "seed", 0, "seed of the prompts' token ids (or text) and sampling seeds")
	f.IntVar(&t.Vocab, "vocab", t.Vocab, "token ids are in [3, vocab): give the model's vocabulary size")
	f.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer.json or GGUF file: text prompts of exact length (--prompt text)")
	f.StringVar(&prompt, "prompt", "", "ids (default without --tokenizer) or text")
	o.Register(cmd, false)
	return cmd
}

func newWorkloadInfoCmd(e *env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "info FILE",
		Short: "Validate a workload file and print its hash and length summary",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usagef("--format %q: want text or json", format)
			}
			w, err := workload.Load(args[0])
			if err != nil {
				return err
			}
			return present.WorkloadInfo(e.stdout, w, format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}
