package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commands lists c and its subcommands, leaving out cobra's own help and
// completion commands.
func commands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		if sub.Name() != "help" && sub.Name() != "completion" {
			out = append(out, commands(sub)...)
		}
	}
	return out
}

// TestEveryCommandHasExamples runs --help for every command and checks
// that it shows a long help and examples, and that every help file
// belongs to a command.
func TestEveryCommandHasExamples(t *testing.T) {
	var discard bytes.Buffer
	files := map[string]bool{}
	for _, c := range commands(newRootCmd(&env{stdout: &discard, stderr: &discard})) {
		files[helpFile(c)] = true
		path := strings.Fields(c.CommandPath())[1:]
		t.Run(strings.Join(append([]string{"servecmp"}, path...), " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), append(path, "--help"), &out, &errb); code != 0 {
				t.Fatalf("--help: exit %d, stderr %q", code, errb.String())
			}
			if strings.TrimSpace(c.Example) == "" || !strings.Contains(out.String(), "Examples:\n"+c.Example) {
				t.Errorf("--help shows no examples:\n%s", out.String())
			}
			if strings.TrimSpace(c.Long) == "" || !strings.HasPrefix(out.String(), c.Long) {
				t.Errorf("--help does not open with the long help:\n%s", out.String())
			}
		})
	}
	err := fs.WalkDir(helpFiles, "help", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !files[p] {
			t.Errorf("%s belongs to no command", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExamplesParse checks that every example names a real command and
// only flags that command accepts, with values they take.
func TestExamplesParse(t *testing.T) {
	var discard bytes.Buffer
	root := newRootCmd(&env{stdout: &discard, stderr: &discard})
	for _, c := range commands(root) {
		for l := range strings.Lines(c.Example) {
			args := exampleArgs(t, l)
			if args == nil {
				t.Errorf("%s: example %q does not run servecmp", c.CommandPath(), l)
				continue
			}
			sub, rest, err := root.Find(args)
			if err != nil || sub == root && len(args) > 0 {
				t.Errorf("example %q: no such command (%v)", l, err)
				continue
			}
			if err := sub.ParseFlags(rest); err != nil {
				t.Errorf("example %q: %v", l, err)
			}
			if err := sub.ValidateArgs(sub.Flags().Args()); err != nil {
				t.Errorf("example %q: %v", l, err)
			}
			sub.Flags().VisitAll(func(f *pflag.Flag) { f.Changed = false })
		}
	}
}

// offline are the commands whose examples TestExamplesRun runs: those
// that need neither a server nor a capture.
var offline = []string{"servecmp workload random", "servecmp workload info", "servecmp rules show", "servecmp rules check", "servecmp classify"}

// TestExamplesRun runs the examples of the offline commands, each in a
// directory holding the files the examples read, and checks they succeed.
func TestExamplesRun(t *testing.T) {
	var discard bytes.Buffer
	ran := 0
	for _, c := range commands(newRootCmd(&env{stdout: &discard, stderr: &discard})) {
		for l := range strings.Lines(c.Example) {
			args := exampleArgs(t, l)
			if strings.Contains(l, "|") || !slices.ContainsFunc(offline, func(p string) bool {
				return strings.HasPrefix("servecmp "+strings.Join(args, " ")+" ", p+" ")
			}) {
				continue
			}
			ran++
			t.Run(strings.TrimSpace(l), func(t *testing.T) { runExample(t, l, args) })
		}
	}
	if ran < len(offline) {
		t.Errorf("ran %d examples, want at least one for each of %v", ran, offline)
	}
}

// runExample runs one example line in a fresh directory that holds the
// inputs the examples name (a workload and rule files) unless the line
// writes them, sending its stdout where a "> FILE" redirection says.
func runExample(t *testing.T, line string, args []string) {
	t.Chdir(t.TempDir())
	_, redirect, _ := strings.Cut(line, "> ")
	redirect = strings.TrimSpace(redirect)
	out := redirect
	if i := slices.Index(args, "--out"); i >= 0 && i+1 < len(args) {
		out = args[i+1]
	}
	var rules bytes.Buffer
	if code := run(context.Background(), []string{"rules", "show", "nvidia"}, &rules, io.Discard); code != 0 {
		t.Fatal("rules show nvidia failed")
	}
	for _, name := range []string{"my-rules.yaml", "team.yaml", "local.yaml"} {
		if name != out {
			writeHere(t, name, rules.Bytes())
		}
	}
	wl := []string{"workload", "random", "--num", "3", "--input-len", "4", "--output-len", "2", "--out", "wl.jsonl"}
	if out != "wl.jsonl" && run(context.Background(), wl, io.Discard, io.Discard) != 0 {
		t.Fatal("writing wl.jsonl failed")
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if redirect != "" {
		writeHere(t, redirect, stdout.Bytes())
	} else if out != "" {
		if _, err := os.Stat(out); err != nil {
			t.Errorf("no output: %v", err)
		}
	} else if stdout.Len() == 0 {
		t.Error("nothing on stdout")
	}
}

func writeHere(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// exampleArgs splits the servecmp command of one example line into its
// arguments, the way a POSIX shell would for the quoting the examples
// use; it ends at a pipe or redirection and returns nil when the line
// runs no servecmp command.
func exampleArgs(t *testing.T, line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range strings.TrimSpace(line) {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Errorf("example %q: unbalanced quote", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	for i, w := range words {
		if w != "servecmp" {
			continue
		}
		out := []string{}
		for _, a := range words[i+1:] {
			if a == "|" || a == ">" || a == "<" {
				break
			}
			out = append(out, a)
		}
		return out
	}
	return nil
}
