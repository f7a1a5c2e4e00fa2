package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeSkipsBadExports: analyze over a directory continues past a
// corrupt export, names it on stderr in one line with the reason, and
// exits 0; it exits 1 when no export can be read, or with --strict on
// any bad one.
func TestAnalyzeSkipsBadExports(t *testing.T) {
	dir := t.TempDir()
	servingExport(t, dir, "a.sqlite", 100, "0", "")
	servingExport(t, dir, "b.sqlite", 101, "1", "")
	bad := filepath.Join(dir, "c.sqlite")
	if err := os.WriteFile(bad, []byte("SQLite format 3\x00 but then garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, []string{"analyze", "--format", "json", dir}, nil)
	if code != 0 || !strings.Contains(out, `"rank": "0"`) || !strings.Contains(out, `"rank": "1"`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var skipped []string
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if strings.Contains(l, "skipped") {
			skipped = append(skipped, l)
		}
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], bad) || !strings.Contains(skipped[0], "SQLite") {
		t.Errorf("skip lines %q, want one naming %s and the reason", skipped, bad)
	}
	if code, _, e := runCmd(t, []string{"analyze", "--strict", dir}, nil); code != 1 || !strings.Contains(e, bad) ||
		strings.Count(strings.TrimSpace(e), "\n") != 0 {
		t.Errorf("--strict: exit %d, stderr %q", code, e)
	}
	empty := t.TempDir()
	for _, n := range []string{"x.sqlite", "y.sqlite"} {
		os.WriteFile(filepath.Join(empty, n), []byte("not a capture"), 0o644)
	}
	if code, _, e := runCmd(t, []string{"analyze", empty}, nil); code != 1 || !strings.Contains(e, "none of the 2 inputs") ||
		strings.Count(strings.TrimSpace(e), "\n") != 0 {
		t.Errorf("no readable export: exit %d, stderr %q", code, e)
	}
}
