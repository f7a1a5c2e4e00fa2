package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/flagopts"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/experiment"
	"github.com/servecmp/servecmp/output/emit"
)

func newRunCmd(e *env) *cobra.Command {
	var out, keyFile string
	var force bool
	cmd := &cobra.Command{
		Use:   "run EXPERIMENT.yaml --out DIR",
		Short: "The whole method from one experiment file: check, sweeps, repeated runs, report",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" {
				return usagef("run: --out DIR is required")
			}
			exp, err := experiment.Load(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			if err := experiment.CheckOutDir(out); err != nil {
				return usagef("run: --out %v", err)
			}
			key, err := flagopts.ReadAPIKey(keyFile)
			if err != nil {
				return err
			}
			self, _ := os.Executable()
			o := experiment.RunOptions{Stderr: e.stderr, Self: self, Force: force, APIKey: key, Inputs: []string{keyFile},
				Version: version, Commit: commit, Report: func(p experiment.ReportPaths, rep *compare.Report, slo result.SLO) error {
					f := emit.RunFiles{Dir: p.Dir, Text: p.Text, XLSX: p.Workbook, HTML: p.HTML, Plots: p.Plots}
					return emit.RunReport(e.stdout, e.stderr, f, rep, slo)
				}}
			res, err := experiment.Run(c.Context(), exp, out, o)
			if err != nil {
				return err
			}
			return emit.RunOutcome(res.Report, res.Failed)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory (required; made when missing; a new or empty directory, or an earlier run's)")
	cmd.Flags().StringVar(&keyFile, "api-key-file", "", "file holding the API key sent to both engines (default: $OPENAI_API_KEY)")
	cmd.Flags().BoolVar(&force, "force", false, "redo every step, even those done with unchanged inputs")
	return cmd
}
