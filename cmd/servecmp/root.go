package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
	"github.com/servecmp/servecmp/output/emit"
)

// version and commit are set at build time with -ldflags "-X main.version=...".
var (
	version = "dev"
	commit  = ""
)

// env is what every command needs from the process: its output streams.
// A command's context is cmd.Context(), set by run.
type env struct {
	stdout io.Writer
	stderr io.Writer
}

// warn prints warnings to stderr, one line each under the one warning
// prefix. Commands call it after writing their data to stdout.
func (e *env) warn(warnings ...string) { emit.Warn(e.stderr, warnings...) }

// usagef returns a usage error (exit code 2).
var usagef = cli.Usagef

// run executes servecmp with args and returns the exit code: 0 ok, 1
// failure, 2 usage, 3 not comparable, 4 too many failed requests. Every
// error line is scrubbed of URL credentials.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cli.Protect(stderr, func() int {
		return cli.Run(ctx, newRootCmd(&env{stdout: stdout, stderr: stderr}), args, stdout, stderr)
	})
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "servecmp",
		Short:         "Compare LLM serving systems: end-to-end benchmarks first, GPU time by region second",
		Version:       cli.Version(version, commit),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			c.SetOut(e.stderr) // no command: the help is the usage message
			if err := c.Help(); err != nil {
				return err
			}
			return usagef("no command given")
		},
	}
	root.AddCommand(
		newRunCmd(e),
		newWorkloadCmd(e),
		newCheckCmd(e),
		newBenchmarkCmd(e),
		newCompareCmd(e),
		newServeSimCmd(e),
		newProfileCmd(e),
		newAnalyzeCmd(e),
		newMergeCmd(e),
		newClassifyCmd(e),
		newRulesCmd(e),
		newTokenizeCmd(e),
	)
	cli.AddGroups(root)
	cli.AddHelp(root, helpFiles)
	return root
}
