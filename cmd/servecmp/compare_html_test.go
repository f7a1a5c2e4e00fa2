package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareHTML checks compare --html: the page is written beside the
// text report, and an output that names an input is refused before any
// work, leaving the input as it was.
func TestCompareHTML(t *testing.T) {
	dir := t.TempDir()
	a, b := writeResult(t, dir, "a.json", "m"), writeResult(t, dir, "b.json", "m")
	page := filepath.Join(dir, "report.html")
	code, stdout, stderr := runCompareCLI(t, "compare", "--a", a, "--b", b, "--html", page)
	if code != 0 || !strings.Contains(stderr, "wrote "+page) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(stdout, "\n", 2)[0] // the conclusion's first line
	if !strings.HasPrefix(string(got), "<!DOCTYPE html>") || !strings.Contains(string(got), first) {
		t.Errorf("page lacks the report's headline %q", first)
	}
	before, _ := os.ReadFile(b)
	code, _, stderr = runCompareCLI(t, "compare", "--a", a, "--b", b, "--html", b)
	if after, _ := os.ReadFile(b); code != 2 || !strings.Contains(stderr, "--html") || string(after) != string(before) {
		t.Errorf("--html naming an input: exit %d, stderr %q, input changed: %v", code, stderr, string(after) != string(before))
	}
}
