// Package golden compares test output with files under testdata/.
//
// Match compares one output; Run compares a command's stdout and stderr
// with NAME.stdout and NAME.stderr. A mismatch writes the output beside
// the golden file as FILE.got; UPDATE_GOLDEN=1 rewrites the golden files
// instead. Only tests import this package.
package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// Update reports whether golden files are being rewritten.
func Update() bool { return os.Getenv("UPDATE_GOLDEN") != "" }

// Match compares got with the file at path (relative paths are taken
// from the package directory at the time of the first call; pass an
// absolute path when the test changes directory).
func Match(t testing.TB, path, got string) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if got != string(want) {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs from the golden file; see %s.got (UPDATE_GOLDEN=1 refreshes)", filepath.Base(path), path)
	}
}

// Run compares stdout and stderr with base+".stdout" and base+".stderr".
func Run(t testing.TB, base, stdout, stderr string) {
	t.Helper()
	Match(t, base+".stdout", stdout)
	Match(t, base+".stderr", stderr)
}
