package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/analysis"
	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/present"
	"github.com/servecmp/servecmp/internal/table"
	"github.com/servecmp/servecmp/rules"
)

// analyzeFlags are the flags of analyze (and, for output, of merge).
type analyzeFlags struct {
	analysis.Flags
	rulesFile, rulesAdd string
	top                 int
	format              string
	save                string
	explain             bool
	csvDir              string
}

func newAnalyzeCmd(e *env) *cobra.Command {
	var f analyzeFlags
	cmd := &cobra.Command{
		Use:   "analyze [flags] [LABEL=]EXPORT...",
		Short: "Where each rank spends its GPU time, by region (Nsight Systems exports, PyTorch traces)",
		Long: `analyze reads profile captures (Nsight Systems SQLite exports or PyTorch-profiler
traces), splits each into ranks (one process and GPU each), classifies every
kernel, memcpy and memset into attention, ffn, communication, io or other, and
reports per rank: summed time and GPU-busy wall time (the union over all
streams) per region, classification coverage, launch shapes, engine
iterations and, when the completed work is known, time per request and per
output token. Ranks are shown side by side and never summed; the bottleneck
rank is the one with the most busy time outside communication.

A rank is labelled LABEL when given as LABEL=EXPORT (LABEL:<pid>/<device> when
that file holds several ranks), else by the RANK environment variable captured
in the file, else by file, pid and device.

Times in --window, --skip-start and --skip-end are seconds, or carry a unit
(ns, us, ms, s): "2:5", "1.5s:2500ms", "3e9ns:4e9ns". --window counts from the
session start (an nsys export's time 0; a PyTorch trace's first event); the
window is cut to the capture span. Work straddling a
window edge counts only its part inside.

Per-work figures use --work, or else the iteration ranges (--iteration-nvtx,
by default vLLM's execute_context_N(T)_generation_N(T) step ranges, also in
their newer spellings execute_context_N(T_S)... and
execute_R_context_N(sqT...)_generation_N(sqT...)): requests = the summed
context requests, output tokens = the summed generation tokens plus one first
token per context request. With chunked prefill these are upper bounds.

Warnings go to stderr after the data. --save writes a summary for merge and
compare.`,
		Example: `  servecmp analyze vllm-tp2.sqlite
  servecmp analyze --window-nvtx 'steady' --format json a=vllm.sqlite b=sglang.sqlite
  servecmp analyze --work requests=512,output_tokens=65536 --save node3.json rank*.sqlite`,
		Args: cobra.MinimumNArgs(1),
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
	return cmd
}

func addOutputFlags(cmd *cobra.Command, f *analyzeFlags) {
	cmd.Flags().IntVar(&f.top, "top", 10, "show the top `N` unmapped names and shapes per region (0: all)")
	cmd.Flags().StringVar(&f.format, "format", "text", "output `FORMAT`: text, json or csv (one long table: table,row,key,column,unit,value)")
	cmd.Flags().StringVar(&f.csvDir, "csv-dir", "", csvDirUsage)
}

// tableEncoders are the --format values written through present tables;
// "json" is written from the saved type instead (classify.Report.WriteJSON).
var tableEncoders = map[string]table.Encoder{"text": table.Text, "csv": table.CSV}

func (f *analyzeFlags) checkOutput() error {
	if _, ok := tableEncoders[f.format]; !ok && f.format != "json" {
		return usagef("--format %q: want text, json or csv", f.format)
	}
	if f.top < 0 {
		return usagef("--top %d: want 0 or more", f.top)
	}
	return nil
}

func runAnalyze(ctx context.Context, e *env, f *analyzeFlags, args []string) error {
	opts, err := f.Options()
	if err != nil {
		return &usageError{err}
	}
	opts.Explain = f.explain
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
	if err := atomicfile.Check("--save", f.save, analysis.Paths(inputs)...); err != nil {
		return err
	}
	rep, err := analysis.Run(ctx, inputs, set, opts)
	if err != nil {
		return err
	}
	return output(e, f, rep)
}

func runMerge(e *env, f *analyzeFlags, args []string) error {
	if err := f.checkOutput(); err != nil {
		return err
	}
	if err := atomicfile.Check("--save", f.save, args...); err != nil {
		return err
	}
	reps := make([]*classify.Report, 0, len(args))
	for _, p := range args {
		r, err := classify.ReadSummaryFile(p)
		if err != nil {
			return err
		}
		reps = append(reps, r)
	}
	rep, err := classify.Merge(reps...)
	if err != nil {
		return err
	}
	return output(e, f, rep)
}

// output saves the summary when --save asks, writes the report to stdout
// in the chosen format, then the warnings to stderr.
func output(e *env, f *analyzeFlags, rep *classify.Report) error {
	if f.save != "" {
		if err := atomicfile.WriteFunc(f.save, rep.WriteSummary); err != nil {
			return fmt.Errorf("--save %w", err)
		}
	}
	var err error
	if enc, ok := tableEncoders[f.format]; ok {
		err = enc(e.stdout, present.Analysis(rep, f.top))
	} else {
		err = rep.Trim(f.top).WriteJSON(e.stdout)
	}
	if err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if f.csvDir != "" {
		if err := writeCSVDir(e, f.csvDir, present.Analysis(rep, f.top)); err != nil {
			return err
		}
	}
	printWarnings(e.stderr, rep.Warnings)
	return nil
}

func printWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "servecmp: warning: %s\n", s)
	}
}

func newMergeCmd(e *env) *cobra.Command {
	var f analyzeFlags
	cmd := &cobra.Command{
		Use:   "merge [flags] SUMMARY...",
		Short: "Merge summaries saved by analyze --save into one report",
		Long: `merge reads summaries written by analyze --save (for example one per node of
a large job, analysed where the exports are) and reports all their ranks
together, as analyze would. Summaries made with different rules are refused,
and rank labels must be unique across them. Ranks are listed side by side and
never summed; the bottleneck rank and the spread across ranks are computed
over all of them.`,
		Example: `  servecmp merge node*.json
  servecmp merge --format json --save job.json node*.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(e, &f, args)
		},
	}
	addOutputFlags(cmd, &f)
	cmd.Flags().StringVar(&f.save, "save", "", "also write the merged summary to `FILE`")
	return cmd
}
