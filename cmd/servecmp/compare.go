package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/output/emit"
	"github.com/servecmp/servecmp/output/present"
	"github.com/servecmp/servecmp/output/table"
)

// compareFlags are the compare command's flags.
type compareFlags struct {
	paths                     compare.Paths
	intent                    []string
	format, xlsxPath, plotDir string
	htmlPath                  string
	csvDir                    string
	alpha                     float64
	resamples                 int
	seed                      uint64
}

func newCompareCmd(e *env) *cobra.Command {
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare --a RESULT [--a RESULT...] --b RESULT [--b RESULT...]",
		Short: "Two-layer A/B verdict: serving metrics first, GPU time by region second",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runCompare(c.Context(), e, f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.paths.A, "a", nil, "benchmark results of system A: a file, a quoted glob ('a-run*.json'), a directory or a run directory (servecmp run --out); repeatable (sweep results feed the sweep table)")
	fl.StringArrayVar(&f.paths.B, "b", nil, "benchmark results of system B: a file, a quoted glob or a directory; repeatable")
	fl.StringArrayVar(&f.paths.RecordsA, "records-a", nil, "per-request records of A (benchmark --records; repeatable)")
	fl.StringArrayVar(&f.paths.RecordsB, "records-b", nil, "per-request records of B (repeatable)")
	fl.StringArrayVar(&f.paths.ProfilesA, "profile-a", nil, "profile analysis of A (analyze --save or --format json; repeatable)")
	fl.StringArrayVar(&f.paths.ProfilesB, "profile-b", nil, "profile analysis of B (repeatable)")
	fl.StringVar(&f.paths.Check, "check", "", "check report (servecmp check --out)")
	fl.StringArrayVar(&f.intent, "intentional", nil, "declare a difference intentional: a field (manifest.quantization, quantization) or group (model, workload, tokenizer, load, resources); repeatable")
	fl.Float64Var(&f.alpha, "alpha", 0.05, "significance level of the tests")
	fl.IntVar(&f.resamples, "resamples", 2000, "random relabellings of the runs for the headline's max-T test (used from 7 runs a side)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the random relabellings")
	fl.StringVar(&f.format, "format", "text", "output format: text, markdown, json or csv (one long table: table,row,key,column,unit,value)")
	fl.StringVar(&f.csvDir, "csv-dir", "", emit.CSVDirUsage)
	fl.StringVar(&f.xlsxPath, "xlsx", "", "also write a review workbook to this .xlsx file")
	fl.StringVar(&f.plotDir, "plots", "", "also write PNG and SVG plots into this directory")
	fl.StringVar(&f.htmlPath, "html", "", "also write the report as one self-contained HTML page (plots inline) to this file")
	return cmd
}

// runCompare checks the flags, loads the files, compares, and writes the
// report to stdout, the workbook, page and plots to their files, and the
// warnings to stderr last.
func runCompare(ctx context.Context, e *env, f *compareFlags) error {
	if len(f.paths.A) == 0 || len(f.paths.B) == 0 {
		return usagef("compare: need --a and --b (one or more result files each)")
	}
	format, _, err := table.Lookup(f.format)
	if err != nil {
		return usagef("compare: --format: %v", err)
	}
	if err := compare.CheckTests(f.alpha, f.resamples); err != nil {
		return usagef("compare: %v", err)
	}
	if err := f.paths.CheckOutputs(f.xlsxPath, f.plotDir); err != nil {
		return usagef("compare: %v", err)
	}
	p := f.paths
	if err := atomicfile.CheckWritable("--html", f.htmlPath, slices.Concat(p.A, p.B, p.RecordsA, p.RecordsB, p.ProfilesA, p.ProfilesB, []string{p.Check})...); err != nil {
		return err
	}
	in, warnings, err := compare.LoadInput(f.paths)
	if err != nil {
		return err
	}
	in.Intentional, in.Alpha, in.Resamples, in.Seed = f.intent, f.alpha, f.resamples, f.seed
	rep, err := compare.NewContext(ctx, in)
	if err != nil {
		return err
	}
	if err := present.WriteComparison(e.stdout, rep, format); err != nil {
		return err
	}
	if f.csvDir != "" {
		if err := emit.CSVDir(e.stderr, f.csvDir, present.Comparison(rep)); err != nil {
			return err
		}
	}
	files := emit.Files{XLSX: f.xlsxPath, HTML: f.htmlPath, Plots: f.plotDir, Flags: true,
		Wrote: func(p string) { fmt.Fprintln(e.stderr, "servecmp compare: wrote", p) }}
	more, err := files.Write(rep)
	e.warn(slices.Concat(warnings, rep.Warnings, more)...)
	if err != nil {
		return err
	}
	return emit.NotComparable(rep)
}
