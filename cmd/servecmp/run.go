package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/experiment"
	"github.com/servecmp/servecmp/output/emit"
)

func newRunCmd(e *env) *cobra.Command {
	var out string
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
			self, _ := os.Executable()
			_, err = experiment.Run(c.Context(), exp, out, experiment.RunOptions{Stdout: e.stdout, Stderr: e.stderr, Self: self, Force: force,
				Version: version, Commit: commit, Report: func(p experiment.ReportPaths, rep *compare.Report, slo result.SLO) error {
					f := emit.Files{XLSX: p.Workbook, HTML: p.HTML, Plots: p.Plots}
					return emit.RunReport(e.stdout, e.stderr, p.Text, f, rep, slo)
				}})
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory (required; made when missing)")
	cmd.Flags().BoolVar(&force, "force", false, "redo every step, even those done with unchanged inputs")
	return cmd
}
