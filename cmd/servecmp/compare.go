package main

import (
	"fmt"
	"os"

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
side, each one value of every test), optional per-request records, a check
report and profile analyses, and reports in two layers:

  1. overall serving metrics: workload, resource contract, every manifest
     difference, correctness status, and each metric for A and B with its
     delta (B-A)/A and a verdict (a = A better, b = B better, ~ = none,
     "needs more runs"). The run is the unit of every test: Welch's (paired
     when A and B alternate) t-test on per-run values, and for records a
     hierarchical bootstrap; mdd is the smallest difference the runs could
     detect, runs_needed the runs per side that would (two at least).
  2. where the GPU time went, per rank and region (diagnostic only).

If the model, workload, load policy or resource contract differ and the
difference is not declared with --intentional, the report says NOT
COMPARABLE and limits the claim.`

func newCompareCmd(e *env) *cobra.Command {
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare --a RESULT [--a RESULT...] --b RESULT [--b RESULT...]",
		Short: "Two-layer A/B verdict: serving metrics first, GPU time by region second",
		Long:  compareLong,
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return runCompare(e, f) },
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
func runCompare(e *env, f *compareFlags) error {
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
	if err := f.paths.CheckOutputs(f.xlsxPath, f.plotDir); err != nil {
		return usagef("compare: %v", err)
	}
	in, warnings, err := compare.LoadInput(f.paths)
	if err != nil {
		return err
	}
	in.Intentional, in.Alpha, in.Resamples, in.Seed = f.intent, f.alpha, f.resamples, f.seed
	rep, err := compare.New(in)
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
		return nil
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
	return nil
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
