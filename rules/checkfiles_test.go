package rules

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	text, err := DefaultText("rocm")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("rules:\n  - id: x\n    region: nowhere\n    pattern: a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ok, problems bytes.Buffer
	if err := CheckFiles([]string{good}, &ok, &problems); err != nil || !strings.HasPrefix(ok.String(), good+": ") || problems.Len() != 0 {
		t.Fatalf("good file: %v, ok %q, problems %q", err, ok.String(), problems.String())
	}
	ok.Reset()
	err = CheckFiles([]string{bad, good}, &ok, &problems)
	if err == nil || !strings.Contains(err.Error(), "in 1 of 2 file(s)") || !strings.Contains(problems.String(), "bad.yaml:") ||
		strings.Count(ok.String(), "\n") != 1 {
		t.Errorf("bad file: %v, ok %q, problems %q", err, ok.String(), problems.String())
	}
}
