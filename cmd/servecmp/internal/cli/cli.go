// Package cli runs a cobra command tree with servecmp's exit codes, all
// decided here: 0 ok, 1 when the work failed, 2 for a bad invocation, 3
// for a comparison that is not comparable and 4 for a run with too many
// failed requests (the outcomes output/emit marks). Errors are printed on
// one line on stderr, prefixed with the program name; a usage error adds
// a hint to run the failing command's --help (an unknown flag first gets
// the command's nearest flags: "did you mean --concurrency?").
//
// An error is a usage error when it is a *UsageError or a
// *client.SetupError (a choice found missing before a run's load), when
// cobra rejected the flags or positional arguments, when cobra returned
// it before any command ran (an unknown command, a required flag not
// set), or when an output path was refused before any work
// (atomicfile.BadOutput). Any other error returned by a command's RunE
// is a failure of the work.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/redact"
	"github.com/servecmp/servecmp/output/emit"
	"github.com/servecmp/servecmp/output/table"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
	// ExitNotComparable: compare found the runs NOT COMPARABLE.
	ExitNotComparable = 3
	// ExitTooManyFailures: more requests failed than the run allows.
	ExitTooManyFailures = 4
)

// UsageError marks a bad invocation.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a usage error with the message format formats.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// runError marks an error returned by a command's RunE: the invocation
// was accepted and the work failed unless the error is itself a usage
// error.
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

// Run executes root with args, its output and errors going to stdout and
// stderr, and returns the exit code. Errors are printed as
// "NAME: message", NAME being root's name; a usage error is followed by
// the line "Run 'COMMAND --help' for usage." naming the command that
// refused the invocation.
func Run(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) int {
	typeErrors(root)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(stderr, "%s: %v\n", root.Name(), table.Escape(redact.Text(OneLine(err))))
	if isUsage(err) {
		if cmd == nil {
			cmd = root
		}
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return ExitUsage
	}
	return exitCode(err)
}

// exitCode is the exit status of a failure: the outcomes a pipeline gates
// on have their own (emit's ErrNotComparable, ErrTooManyFailures), any
// other failure is ExitFailure.
func exitCode(err error) int {
	switch {
	case errors.Is(err, emit.ErrNotComparable):
		return ExitNotComparable
	case errors.Is(err, emit.ErrTooManyFailures):
		return ExitTooManyFailures
	}
	return ExitFailure
}

// isUsage reports whether err is a bad invocation: a usage error, a
// choice the invocation must make that a run found before its load
// (client.SetupError: a model among several, a prompt form), or an error
// cobra returned before any command ran.
func isUsage(err error) bool {
	var ue *UsageError
	var se *client.SetupError
	var re *runError
	var bo *atomicfile.BadOutput
	return errors.As(err, &ue) || errors.As(err, &se) || errors.As(err, &bo) || !errors.As(err, &re)
}

// typeErrors types the errors of c and its subcommands: flag parse
// errors and positional-argument errors become usage errors, and errors
// returned by RunE are marked as the command's own.
func typeErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &UsageError{suggestFlag(c, err)} })
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return &UsageError{err}
			}
			return nil
		}
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

// OneLine folds a multi-line error (errors.Join, a wrapped message with
// line breaks) onto one line, its parts joined by "; ", losing none.
func OneLine(err error) string {
	var parts []string
	for l := range strings.Lines(err.Error()) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// IsTerminal reports whether w is a terminal (a character device).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Version is the version line: version, followed by the commit in
// parentheses when it is known and differs from version.
func Version(version, commit string) string {
	if commit != "" && commit != version {
		return version + " (" + commit + ")"
	}
	return version
}
