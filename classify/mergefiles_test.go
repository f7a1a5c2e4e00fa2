package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMergeFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, label := range []string{"b", "a"} {
		r, err := NewReport("d", []*RankSummary{rankSummary(label, 10, 5, 1)})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, label+".json")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.WriteSummary(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		paths = append(paths, p)
	}
	m, err := MergeFiles(paths, 0)
	if err != nil || len(m.Ranks) != 2 {
		t.Fatalf("MergeFiles: %v, %+v", err, m)
	}
	if _, err := MergeFiles([]string{paths[0], paths[0]}, 0); err == nil {
		t.Error("a rank label twice was merged")
	}
	missing := filepath.Join(dir, "none.json")
	if _, err := MergeFiles([]string{paths[0], missing}, 0); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
}
