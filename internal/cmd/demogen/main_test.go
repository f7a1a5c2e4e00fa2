package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDemoUpToDate regenerates the demo exports and compares them byte
// for byte with the committed ones (go run ./internal/cmd/demogen refreshes
// them).
func TestDemoUpToDate(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range Demos {
		got, err := os.ReadFile(filepath.Join(dir, d.File))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 1<<20 {
			t.Errorf("%s: %d bytes, want < 1 MiB", d.File, len(got))
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "demo", d.File))
		if os.IsNotExist(err) {
			t.Skipf("testdata/demo/%s absent", d.File)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("testdata/demo/%s is stale: run go run ./internal/cmd/demogen", d.File)
		}
	}
}
