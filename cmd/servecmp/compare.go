package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/compare/plots"
	"github.com/servecmp/servecmp/compare/xlsx"
)

func newCompareCmd(e *env) *cobra.Command {
	var (
		a, b, profA, profB, recA, recB, intent []string
		checkPath, format, xlsxPath, plotDir   string
		alpha                                  float64
		resamples                              int
		seed                                   uint64
	)
	cmd := &cobra.Command{
		Use:   "compare --a RESULT [--a RESULT...] --b RESULT [--b RESULT...]",
		Short: "Two-layer A/B verdict: serving metrics first, GPU time by region second",
		Long: `compare reads benchmark results of two serving systems (repeated runs per
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
difference is not declared with --intentional, the report says NOT
COMPARABLE and limits the claim.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(a) == 0 || len(b) == 0 {
				return usagef("compare: need --a and --b (one or more result files each)")
			}
			if !slices.Contains(compare.Formats, format) && format != "md" {
				return usagef("compare: --format %q: want one of %s", format, strings.Join(compare.Formats, ", "))
			}
			if alpha <= 0 || alpha >= 1 {
				return usagef("compare: --alpha must be in (0, 1), got %g", alpha)
			}
			in := compare.Input{Intentional: intent, Alpha: alpha, Resamples: resamples, Seed: seed}
			for _, p := range a {
				r, err := compare.LoadRun(p)
				if err != nil {
					return err
				}
				in.A = append(in.A, r)
			}
			for _, p := range b {
				r, err := compare.LoadRun(p)
				if err != nil {
					return err
				}
				in.B = append(in.B, r)
			}
			if (len(recA) == 0) != (len(recB) == 0) {
				fmt.Fprintln(e.stderr, "servecmp compare: warning: records given for one side only; latency rows use per-run values")
			}
			for _, p := range recA {
				r, err := compare.LoadRecords(p)
				if err != nil {
					return err
				}
				in.RecordsA = append(in.RecordsA, r)
			}
			for _, p := range recB {
				r, err := compare.LoadRecords(p)
				if err != nil {
					return err
				}
				in.RecordsB = append(in.RecordsB, r)
			}
			for _, p := range profA {
				pr, err := compare.LoadProfile(p)
				if err != nil {
					return err
				}
				in.ProfilesA = append(in.ProfilesA, pr)
			}
			for _, p := range profB {
				pr, err := compare.LoadProfile(p)
				if err != nil {
					return err
				}
				in.ProfilesB = append(in.ProfilesB, pr)
			}
			if checkPath != "" {
				c, err := compare.LoadCheck(checkPath)
				if err != nil {
					return err
				}
				in.Check, in.CheckPath = c, checkPath
			}
			rep, err := compare.Compare(in)
			if err != nil {
				return err
			}
			for _, w := range rep.Warnings {
				fmt.Fprintln(e.stderr, "servecmp compare: warning:", w)
			}
			if err := rep.Write(e.stdout, format); err != nil {
				return err
			}
			if xlsxPath != "" {
				if err := xlsx.WriteFile(xlsxPath, rep); err != nil {
					return fmt.Errorf("writing %s: %w", xlsxPath, err)
				}
				fmt.Fprintln(e.stderr, "servecmp compare: wrote", xlsxPath)
			}
			if plotDir != "" {
				if err := os.MkdirAll(plotDir, 0o755); err != nil {
					return err
				}
				files, err := plots.Write(plotDir, rep)
				if err != nil {
					return fmt.Errorf("writing plots to %s: %w", plotDir, err)
				}
				for _, f := range files {
					fmt.Fprintln(e.stderr, "servecmp compare: wrote", f)
				}
				if len(files) == 0 {
					fmt.Fprintf(e.stderr, "servecmp compare: warning: no plot written to %s: latency CDFs need --records-a/--records-b, load curves sweep results, region bars --profile-a/--profile-b\n", plotDir)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&a, "a", nil, "benchmark result of system A (repeat for repeated runs; sweep results feed the sweep table)")
	f.StringArrayVar(&b, "b", nil, "benchmark result of system B (repeatable)")
	f.StringArrayVar(&recA, "records-a", nil, "per-request records of A (benchmark --records; repeatable)")
	f.StringArrayVar(&recB, "records-b", nil, "per-request records of B (repeatable)")
	f.StringArrayVar(&profA, "profile-a", nil, "profile analysis of A (analyze --save or --format json; repeatable)")
	f.StringArrayVar(&profB, "profile-b", nil, "profile analysis of B (repeatable)")
	f.StringVar(&checkPath, "check", "", "check report (servecmp check --out)")
	f.StringArrayVar(&intent, "intentional", nil, "declare a difference intentional: a field (manifest.quantization, quantization) or group (model, workload, load, resources); repeatable")
	f.Float64Var(&alpha, "alpha", 0.05, "significance level of the tests")
	f.IntVar(&resamples, "resamples", 2000, "bootstrap resamples for latency intervals")
	f.Uint64Var(&seed, "seed", 1, "bootstrap seed")
	f.StringVar(&format, "format", "text", "output format: text, markdown, json or csv")
	f.StringVar(&xlsxPath, "xlsx", "", "also write a review workbook to this .xlsx file")
	f.StringVar(&plotDir, "plots", "", "also write PNG and SVG plots into this directory")
	return cmd
}
