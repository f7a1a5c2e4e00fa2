package classify

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReportWarningsSaved: report-level warnings (a capture's own, kept
// once per file rather than per rank) survive a save and a read, and a
// merge keeps them.
func TestReportWarningsSaved(t *testing.T) {
	r, err := NewReport("d", []*RankSummary{rankSummary("a", 10, 5, 1)})
	if err != nil {
		t.Fatal(err)
	}
	r.AddWarnings("x.sqlite: dropped 2 rows", "x.sqlite: dropped 2 rows")
	if n := strings.Count(strings.Join(r.Warnings, "\n"), "dropped 2 rows"); n != 1 {
		t.Fatalf("warnings %q", r.Warnings)
	}
	var b bytes.Buffer
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummaryFile(path)
	if err != nil || !slices.Contains(back.Warnings, "x.sqlite: dropped 2 rows") {
		t.Fatalf("read back: %v, warnings %q", err, back.Warnings)
	}
	m, err := Merge(back)
	if err != nil || !slices.Contains(m.Warnings, "x.sqlite: dropped 2 rows") {
		t.Errorf("merged: %v, warnings %q", err, m.Warnings)
	}
	if _, err := ReadSummaryFile(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.HasSuffix(err.Error(), "none.json: no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
	rep, err := ReadReportFile(path)
	if err != nil || len(rep.Ranks) != 1 {
		t.Errorf("ReadReportFile: %v", err)
	}
}
