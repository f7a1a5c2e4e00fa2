package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/internal/table"
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
func (e *env) warn(warnings ...string) {
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "servecmp: warning: %s\n", table.Escape(w))
	}
}

// usageError marks a bad invocation (exit code 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// runError marks an error returned by a command's RunE: the invocation
// was accepted and the work failed (exit code 1) unless the error is
// itself a usage error.
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

// run executes servecmp with args and returns the exit code: 0 ok, 1
// failure, 2 usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return protect(stderr, func() int { return execute(ctx, args, stdout, stderr) })
}

// execute is run without the panic guard.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	root := newRootCmd(e)
	typeErrors(root)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if isUsage(err) {
		fmt.Fprintf(stderr, "servecmp: %v\n", oneLine(err))
		fmt.Fprintf(stderr, "Run 'servecmp --help' for usage.\n")
		return 2
	}
	fmt.Fprintf(stderr, "servecmp: %v\n", oneLine(err))
	return 1
}

// isUsage reports whether err is a bad invocation: a usage error, or an
// error cobra returned before any command ran (an unknown command, a
// required flag not set), which is never a failure of the work.
func isUsage(err error) bool {
	var ue *usageError
	var re *runError
	return errors.As(err, &ue) || !errors.As(err, &re)
}

// typeErrors types the errors of c and its subcommands: flag parse
// errors and positional-argument errors become usage errors, and errors
// returned by RunE are marked as the command's own.
func typeErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	if c.Args != nil {
		c.Args = usageArgs(c.Args)
	}
	if f := c.RunE; f != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := f(cmd, args); err != nil {
				return &runError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		typeErrors(sub)
	}
}

// usageArgs makes a positional-argument check's errors usage errors.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return &usageError{err}
		}
		return nil
	}
}

// oneLine folds a multi-line error (errors.Join, a wrapped message with
// line breaks) onto one line, its parts joined by "; ", losing none.
func oneLine(err error) string {
	var parts []string
	for l := range strings.Lines(err.Error()) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return table.Escape(strings.Join(parts, "; "))
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "servecmp",
		Short: "Compare LLM serving systems: end-to-end benchmarks first, GPU time by region second",
		Long: `servecmp answers two questions, in this order:

  1. Which complete serving system is faster for the same workload?
     (workload, benchmark, check, compare: normal, unprofiled runs)
  2. Where does each system spend its GPU time?
     (analyze, merge, classify: Nsight Systems exports and PyTorch-profiler
     traces, per rank; diagnostic only)`,
		Version:       versionString(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.AddCommand(
		newAnalyzeCmd(e),
		newMergeCmd(e),
		newClassifyCmd(e),
		newRulesCmd(e),
		newWorkloadCmd(e),
		newBenchmarkCmd(e),
		newProfileCmd(e),
		newServeSimCmd(e),
		newCheckCmd(e),
		newCompareCmd(e),
	)
	return root
}

func versionString() string {
	if commit != "" && commit != version {
		return version + " (" + commit + ")"
	}
	return version
}
