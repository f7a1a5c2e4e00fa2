package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/compare/plots"
	"github.com/servecmp/servecmp/compare/xlsx"
	"github.com/servecmp/servecmp/internal/present"
	"github.com/servecmp/servecmp/internal/table"
)

// compareFlags are the compare command's flags.
type compareFlags struct {
	paths                     compare.Paths
	intent                    []string
	format, xlsxPath, plotDir string
	alpha                     float64
	resamples                 int
	seed                      uint64
}

const compareLong = `compare reads benchmark results of two serving systems (repeated runs per
side are pooled), optional per-request records, a check report and profile
analyses, and reports in two layers:

  1. overall serving metrics: workload, resource contract, every manifest
     difference, correctness status, and each metric for A and B with its
     delta (B-A)/A and a verdict (a = A better, b = B better, ~ = noise).
     Latency rows use per-request records pooled over runs (Mann-Whitney U
     plus a seeded bootstrap interval of the percentile difference); without
     records, per-run values with Welch's t-test. Throughput rows use per-run
     values with Welch's t-test and need at least two runs per side.
  2. where the GPU time went, per rank and region (diagnostic only).

If the model, workload, load policy or resource contract differ and the
difference is not declared with --intentional, or a side has no successful
request, the report says NOT COMPARABLE and limits the claim.

Exit status: 0 comparable; 3 NOT COMPARABLE (the report is still written);
1 failure; 2 usage.`

func newCompareCmd(e *env) *cobra.Command {
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare --a RESULT [--a RESULT...] --b RESULT [--b RESULT...]",
		Short: "Two-layer A/B verdict: serving metrics first, GPU time by region second",
		Long:  compareLong,
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runCompare(c.Context(), e, f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.paths.A, "a", nil, "benchmark result of system A (repeat for repeated runs; sweep results feed the sweep table)")
	fl.StringArrayVar(&f.paths.B, "b", nil, "benchmark result of system B (repeatable)")
	fl.StringArrayVar(&f.paths.RecordsA, "records-a", nil, "per-request records of A (benchmark --records; repeatable)")
	fl.StringArrayVar(&f.paths.RecordsB, "records-b", nil, "per-request records of B (repeatable)")
	fl.StringArrayVar(&f.paths.ProfilesA, "profile-a", nil, "profile analysis of A (analyze --save or --format json; repeatable)")
	fl.StringArrayVar(&f.paths.ProfilesB, "profile-b", nil, "profile analysis of B (repeatable)")
	fl.StringVar(&f.paths.Check, "check", "", "check report (servecmp check --out)")
	fl.StringArrayVar(&f.intent, "intentional", nil, "declare a difference intentional: a field (manifest.quantization, quantization) or group (model, workload, load, resources); repeatable")
	fl.Float64Var(&f.alpha, "alpha", 0.05, "significance level of the tests")
	fl.IntVar(&f.resamples, "resamples", 2000, "bootstrap resamples for latency intervals")
	fl.Uint64Var(&f.seed, "seed", 1, "bootstrap seed")
	fl.StringVar(&f.format, "format", "text", "output format: text, markdown, json or csv")
	fl.StringVar(&f.xlsxPath, "xlsx", "", "also write a review workbook to this .xlsx file")
	fl.StringVar(&f.plotDir, "plots", "", "also write PNG and SVG plots into this directory")
	return cmd
}

// runCompare checks the flags, loads the files, compares, and writes the
// report to stdout, the workbook and plots to their files, and the
// warnings to stderr last.
func runCompare(ctx context.Context, e *env, f *compareFlags) error {
	if len(f.paths.A) == 0 || len(f.paths.B) == 0 {
		return usagef("compare: need --a and --b (one or more result files each)")
	}
	format, _, err := table.Lookup(f.format)
	if err != nil {
		return usagef("compare: --format: %v", err)
	}
	if f.alpha <= 0 || f.alpha >= 1 {
		return usagef("compare: --alpha must be in (0, 1), got %g", f.alpha)
	}
	if f.resamples < 1 || f.resamples > compare.MaxResamples {
		return usagef("compare: --resamples must be in [1, %d], got %d", compare.MaxResamples, f.resamples)
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
	warnings = append(warnings, rep.Warnings...)
	defer func() { e.warn(warnings...) }()
	if f.xlsxPath != "" {
		if err := xlsx.WriteFile(f.xlsxPath, rep); err != nil {
			return fmt.Errorf("--xlsx %s: %w", f.xlsxPath, err)
		}
		fmt.Fprintln(e.stderr, "servecmp compare: wrote", f.xlsxPath)
	}
	if f.plotDir == "" {
		return notComparable(rep)
	}
	files, err := writePlots(f.plotDir, rep)
	if err != nil {
		return err
	}
	for _, p := range files {
		fmt.Fprintln(e.stderr, "servecmp compare: wrote", p)
	}
	if len(files) == 0 {
		warnings = append(warnings, "no plot written to "+f.plotDir+": latency CDFs need --records-a/--records-b, load curves sweep results, region bars --profile-a/--profile-b")
	}
	return notComparable(rep)
}

// notComparable is the exit status of a complete report: exit 3 when it
// says NOT COMPARABLE, so that a pipeline cannot take its verdicts.
func notComparable(rep *compare.Report) error {
	if rep.Comparable {
		return nil
	}
	return &exitError{exitNotComparable, fmt.Errorf("NOT COMPARABLE: %s differ(s); declare intended differences with --intentional", strings.Join(rep.NotComparable, ", "))}
}

func writePlots(dir string, rep *compare.Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--plots %s: %w", dir, err)
	}
	files, err := plots.Write(dir, rep)
	if err != nil {
		return nil, fmt.Errorf("--plots %s: %w", dir, err)
	}
	return files, nil
}
