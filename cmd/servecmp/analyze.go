package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/analysis"
	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/flagopts"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/output/emit"
	"github.com/servecmp/servecmp/output/present"
	"github.com/servecmp/servecmp/output/table"
	"github.com/servecmp/servecmp/rules"
)

// analyzeFlags are the flags of analyze (and, for output, of merge).
type analyzeFlags struct {
	analysis.Flags
	rulesFile, rulesAdd string
	top                 int
	format              string
	enc                 table.Encoder // the encoder of format, nil for JSON; set by checkOutput
	save                string
	explain, strict     bool
	csvDir              string
}

func newAnalyzeCmd(e *env) *cobra.Command {
	var f analyzeFlags
	cmd := &cobra.Command{
		Use:   "analyze [flags] [LABEL=]EXPORT...",
		Short: "Where each rank spends its GPU time, by region (Nsight Systems exports, PyTorch traces)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAnalyze(cmd.Context(), e, &f, args)
		},
	}
	fl := cmd.Flags()
	addRulesFlags(cmd, &f.rulesFile, &f.rulesAdd)
	fl.StringVar(&f.Window, "window", "", "analyse `START:END` only (seconds or with a unit, from the session start)")
	fl.StringVar(&f.WindowNVTX, "window-nvtx", "", "window from the first start to the last end of host ranges matching `REGEX`")
	fl.StringVar(&f.SkipStart, "skip-start", "", "trim `DUR` from the window's start (e.g. 2s, 500ms)")
	fl.StringVar(&f.SkipEnd, "skip-end", "", "trim `DUR` from the window's end")
	fl.StringVar(&f.Iteration, "iteration-nvtx", "",
		"`REGEX` of the host ranges marking one iteration, with named groups ctx_reqs, ctx_tokens, gen_reqs, gen_tokens\n(default: vLLM's execute_context_<reqs>(<tokens>)_generation_<reqs>(<tokens>), newer spellings included)")
	fl.StringVar(&f.WorkFrom, "work-from", "", "take the completed work from the profile window of `RESULT`.json written by servecmp profile")
	fl.StringVar(&f.Work, "work", "", "completed `WORK` as requests=N,output_tokens=M,input_tokens=K (default: from iteration ranges)")
	addOutputFlags(cmd, &f)
	fl.BoolVar(&f.explain, "explain", false, "also list every distinct name in the window with its region, method and rule id (per rank)")
	fl.StringVar(&f.save, "save", "", "also write a mergeable summary to `FILE` (JSON, schema "+classify.SummarySchema+")")
	fl.BoolVar(&f.strict, "strict", false, "fail when any input cannot be read (default: skip it with a warning; fail only when none can)")
	return cmd
}

func addOutputFlags(cmd *cobra.Command, f *analyzeFlags) {
	cmd.Flags().IntVar(&f.top, "top", 10, "show the top `N` unmapped names and shapes per region (0: all)")
	cmd.Flags().StringVar(&f.format, "format", "text", "output `FORMAT`: "+strings.Join(table.Formats(), ", "))
	cmd.Flags().StringVar(&f.csvDir, "csv-dir", "", emit.CSVDirUsage)
}

// checkOutput checks --format, through the encoder registry, and --top.
// JSON is written from the saved type (classify.Report.WriteJSON: enc
// nil), every other format from the present tables.
func (f *analyzeFlags) checkOutput() error {
	name, enc, err := table.Lookup(f.format)
	if err != nil {
		return usagef("--format: %v", err)
	}
	if f.top < 0 {
		return usagef("--top %d: want 0 or more", f.top)
	}
	if f.enc = enc; name == "json" {
		f.enc = nil
	}
	return nil
}

func runAnalyze(ctx context.Context, e *env, f *analyzeFlags, args []string) error {
	opts, err := f.Options()
	if err != nil {
		return &cli.UsageError{Err: err}
	}
	opts.Explain, opts.Strict = f.explain, f.strict
	if err := f.checkOutput(); err != nil {
		return err
	}
	set, err := rules.Select(f.rulesFile, f.rulesAdd)
	if err != nil {
		return err
	}
	inputs, err := analysis.ParseInputs(args)
	if err != nil {
		return err
	}
	if err := atomicfile.CheckWritable("--save", f.save, analysis.Paths(inputs)...); err != nil {
		return err
	}
	rep, err := analysis.Run(ctx, inputs, set, opts)
	if err != nil {
		return err
	}
	return f.output(e, rep)
}

// output writes the report (and --save, --csv-dir) of analyze and merge.
func (f *analyzeFlags) output(e *env, rep *classify.Report) error {
	if err := emit.Analysis(e.stdout, e.stderr, rep, f.save, f.enc, f.top); err != nil {
		return err
	}
	if f.csvDir != "" {
		return emit.CSVDir(e.stderr, f.csvDir, present.Analysis(rep, f.top))
	}
	return nil
}

func runMerge(e *env, f *analyzeFlags, args []string) error {
	if err := f.checkOutput(); err != nil {
		return err
	}
	if err := atomicfile.CheckWritable("--save", f.save, args...); err != nil {
		return err
	}
	keep := f.top // what the output shows; --save needs every list whole
	if f.save != "" {
		keep = 0
	}
	rep, err := classify.MergeFiles(args, keep)
	if err != nil {
		return err
	}
	return f.output(e, rep)
}

func newMergeCmd(e *env) *cobra.Command {
	var f analyzeFlags
	var sf flagopts.ShardMerge
	cmd := &cobra.Command{
		Use:   "merge [flags] SUMMARY... | merge --out RESULT [--records FILE] SHARD_RESULT... SHARD_RECORDS...",
		Short: "Merge summaries saved by analyze --save, or the shards of a sharded benchmark, into one",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := sf.Merge(cmd.Flags().Changed, args) // benchmark shards; nil, nil for summaries
			switch {
			case err != nil:
				return err
			case res != nil:
				return emit.Benchmark(e.stdout, e.stderr, sf.Out, res, sf.MaxFailedShare)
			}
			return runMerge(e, &f, args)
		},
	}
	sf.Register(cmd.Flags())
	addOutputFlags(cmd, &f)
	cmd.Flags().StringVar(&f.save, "save", "", "also write the merged summary to `FILE`")
	return cmd
}
