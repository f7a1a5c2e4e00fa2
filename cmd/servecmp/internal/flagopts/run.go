package flagopts

import (
	"context"
	"io"
	"os"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/experiment"
	"github.com/servecmp/servecmp/output/emit"
)

// Run holds servecmp run's flags: the output directory (--out), the API
// key file (--api-key-file; "" is $OPENAI_API_KEY) and --force.
type Run struct {
	Out, APIKeyFile string
	Force           bool
}

// Run carries out the experiment file exp into r.Out: a missing --out, a
// bad file or an output directory a run cannot use is a usage error; the
// outcome is the report's (emit.RunOutcome: exit 3 or 4).
func (r *Run) Run(ctx context.Context, stdout, stderr io.Writer, exp, version, commit string) error {
	if r.Out == "" {
		return cli.Usagef("run: --out DIR is required")
	}
	e, err := experiment.Load(exp)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if err := experiment.CheckOutDir(r.Out); err != nil {
		return cli.Usagef("run: --out %v", err)
	}
	key, err := ReadAPIKey(r.APIKeyFile)
	if err != nil {
		return err
	}
	self, _ := os.Executable()
	o := experiment.RunOptions{Stdout: stdout, Stderr: stderr, Self: self, Force: r.Force, APIKey: key, Inputs: []string{r.APIKeyFile},
		Version: version, Commit: commit, Report: func(p experiment.ReportPaths, rep *compare.Report, slo result.SLO) error {
			f := emit.RunFiles{Dir: p.Dir, Text: p.Text, XLSX: p.Workbook, HTML: p.HTML, Plots: p.Plots}
			return emit.RunReport(stdout, stderr, f, rep, slo)
		}}
	res, err := experiment.Run(ctx, e, r.Out, o)
	if err != nil {
		return err
	}
	return emit.RunOutcome(res.Report, res.Failed)
}
