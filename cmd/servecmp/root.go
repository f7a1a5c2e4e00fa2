package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// version and commit are set at build time with -ldflags "-X main.version=...".
var (
	version = "dev"
	commit  = ""
)

// env is what every command needs from the process: its context and streams.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
}

// usageError marks a bad invocation (exit code 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// run executes servecmp with args and returns the exit code: 0 ok, 1
// failure, 2 usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr}
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintf(stderr, "servecmp: %v\n", err)
		fmt.Fprintf(stderr, "Run 'servecmp --help' for usage.\n")
		return 2
	}
	fmt.Fprintf(stderr, "servecmp: %v\n", oneLine(err))
	return 1
}

// oneLine folds a multi-line error (errors.Join) onto one line per error
// without losing any of them.
func oneLine(err error) string {
	return strings.TrimSpace(err.Error())
}

// isCobraUsage recognises cobra's own flag and argument errors.
func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand flag", "unknown command", "flag needs an argument",
		"invalid argument", "accepts ", "requires at least", "requires at most", "required flag"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(
		newAnalyzeCmd(e),
		newMergeCmd(e),
		newClassifyCmd(e),
		newRulesCmd(e),
		newWorkloadCmd(e),
		newBenchmarkCmd(e),
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
