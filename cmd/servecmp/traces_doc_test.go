package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTracesDocExamples runs docs/traces.md's console blocks by the
// README's convention (readme_test.go), in one temporary directory with
// the repository's testdata. One difference: the warning that sends fell
// behind the schedule depends on how busy the machine is, so it may
// appear without the page showing it.
func TestTracesDocExamples(t *testing.T) {
	page, err := os.ReadFile("../../docs/traces.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := readmeCommands(string(page))
	if err != nil || len(cmds) < 4 {
		t.Fatalf("docs/traces.md: %d console commands, %v", len(cmds), err)
	}
	repo, _ := filepath.Abs("../..")
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(repo, "testdata"), filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range cmds {
		words, err := shellWords(c.text, dir)
		if err != nil || len(words) < 2 || words[0] != "servecmp" {
			t.Fatalf("docs/traces.md:%d: %q: %v", c.line, c.text, err)
		}
		args := words[1:]
		if args[0] == "serve-sim" {
			args = append(args, "--decode-base", "100us", "--decode-per-seq", "200us")
		}
		var got string
		code := 0
		if c.background {
			got = runBackground(t, args, dir)
		} else {
			var stdout, stderr bytes.Buffer
			code = run(context.Background(), args, &stdout, &stderr)
			got = stdout.String() + stderr.String()
		}
		if code != c.exit {
			t.Errorf("docs/traces.md:%d: %s: exit %d, the page says %d\n%s", c.line, c.text, code, c.exit, got)
		}
		if miss := missingOutput(got, c.want, c.timing); miss != nil {
			t.Errorf("docs/traces.md:%d: %s: the output lacks the page's lines\n%s\n--- got:\n%s", c.line, c.text, strings.Join(miss, "\n"), got)
		}
		for _, w := range unshownWarnings(got, c.want, c.timing) {
			if !strings.Contains(w, "sends fell behind the schedule") {
				t.Errorf("docs/traces.md:%d: %s: a warning the page does not show: %s", c.line, c.text, w)
			}
		}
	}
}
