package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/internal/atomicfile"
)

func TestOneLine(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{errors.New("plain"), "plain"},
		{errors.New("  padded \n"), "padded"},
		{errors.Join(errors.New("rules.txt:3: bad key"), errors.New("rules.txt:7: no class")), "rules.txt:3: bad key; rules.txt:7: no class"},
		{fmt.Errorf("load: %w", errors.Join(errors.New("a"), nil, errors.New("b"))), "load: a; b"},
		{errors.New("a\r\n\r\nb\n"), "a; b"},
	}
	for _, tc := range tests {
		if got := OneLine(tc.err); got != tc.want {
			t.Errorf("OneLine(%q) = %q, want %q", tc.err.Error(), got, tc.want)
		}
	}
}

// tree is a small command tree: "prog do [--n N] ARG" fails when ARG is
// "fail", is a usage error when it is "usage", and succeeds otherwise.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "prog", SilenceErrors: true, SilenceUsage: true}
	var n int
	do := &cobra.Command{Use: "do ARG", Args: cobra.ExactArgs(1), RunE: func(_ *cobra.Command, args []string) error {
		switch args[0] {
		case "fail":
			return errors.New("it failed\nbadly")
		case "usage":
			return Usagef("--n %d: too many", n)
		case "badout":
			return fmt.Errorf("wrapped: %w", &atomicfile.BadOutput{Err: errors.New("--out d: is a directory")})
		case "setup":
			return fmt.Errorf("step run-b-1: engine b: %w", &client.SetupError{Msg: "the server serves 2 models (m1, m2) and none was chosen: name one with --model"})
		}
		return nil
	}}
	do.Flags().IntVar(&n, "n", 0, "a number")
	root.AddCommand(do)
	return root
}

func TestRunExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"do", "x"}, ExitOK, ""},
		{[]string{"do", "fail"}, ExitFailure, "prog: it failed; badly\n"},
		{[]string{"do", "usage", "--n", "3"}, ExitUsage, "prog: --n 3: too many\nRun 'prog do --help' for usage.\n"},
		{[]string{"do", "x", "--nn", "3"}, ExitUsage, "prog: unknown flag: --nn (did you mean --n?)\nRun 'prog do --help' for usage.\n"},
		{[]string{"do", "x", "--zzzzzz", "3"}, ExitUsage, "prog: unknown flag: --zzzzzz\nRun 'prog do --help' for usage.\n"},
		{[]string{"do", "badout"}, ExitUsage, "prog: wrapped: --out d: is a directory\nRun 'prog do --help' for usage.\n"},
		{[]string{"do"}, ExitUsage, "arg"},
		{[]string{"do", "setup"}, ExitUsage, "prog: step run-b-1: engine b: the server serves 2 models (m1, m2) and none was chosen: name one with --model\n"},
		{[]string{"do", "x", "--n", "x"}, ExitUsage, "--n"},
		{[]string{"undo"}, ExitUsage, "unknown command"},
	} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), tree(), tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.stderr) || (tc.stderr == "") != (errb.Len() == 0) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tc.args, code, errb.String(), tc.code, tc.stderr)
		}
	}
}

func TestIsTerminal(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
}

func TestVersion(t *testing.T) {
	for _, tc := range []struct{ v, c, want string }{{"dev", "", "dev"}, {"v1.2", "v1.2", "v1.2"}, {"v1.2", "abc123", "v1.2 (abc123)"}} {
		if got := Version(tc.v, tc.c); got != tc.want {
			t.Errorf("Version(%q, %q) = %q, want %q", tc.v, tc.c, got, tc.want)
		}
	}
}
