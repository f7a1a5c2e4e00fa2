package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/compare/html"
	"github.com/servecmp/servecmp/compare/plots"
	"github.com/servecmp/servecmp/compare/xlsx"
	"github.com/servecmp/servecmp/experiment"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/present"
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
			_, err = experiment.Run(c.Context(), exp, out, experiment.RunOptions{Stderr: e.stderr, Self: self, Force: force,
				Version: version, Commit: commit, Report: func(dir string, rep *compare.Report, slo benchmark.SLO) error {
					return writeRunReport(e, dir, rep, slo)
				}})
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory (required; made when missing)")
	cmd.Flags().BoolVar(&force, "force", false, "redo every step, even those done with unchanged inputs")
	return cmd
}

// writeRunReport writes report.txt (and prints it), the workbook and the
// plots and the HTML page of a run's comparison into dir.
func writeRunReport(e *env, dir string, rep *compare.Report, slo benchmark.SLO) error {
	var buf bytes.Buffer
	if err := present.WriteComparison(&buf, rep, "text"); err != nil {
		return err
	}
	lines := compare.SLOLines(slo)
	if err := xlsx.WriteFileWith(filepath.Join(dir, experiment.Workbook), rep, xlsx.Options{SLO: lines}); err != nil {
		return err
	}
	pdir := filepath.Join(dir, experiment.PlotsDir)
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		return err
	}
	if _, err := plots.WriteWith(pdir, rep, plots.Options{SLO: lines}); err != nil {
		return err
	}
	if err := html.WriteFile(filepath.Join(dir, "report.html"), rep, html.Options{Plots: plots.Options{SLO: lines}}); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, experiment.ReportText), buf.Bytes()); err != nil {
		return err
	}
	_, err := e.stdout.Write(buf.Bytes())
	e.warn(rep.Warnings...)
	return err
}
