//go:build unix

package compare

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestExpandPassesOverPipe: a named pipe named like a result in a
// directory given to --a is passed over at once (peekSchema opens through
// infile), not waited on: with a plain open, compare blocked forever,
// through Ctrl-C and SIGTERM alike.
func TestExpandPassesOverPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "a-run0.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	good := filepath.Join(dir, "a-run1.json")
	if err := os.WriteFile(good, []byte(`{"schema":"servecmp.result/2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		p   Paths
		err error
	}
	done := make(chan answer, 1)
	go func() {
		p, err := Expand(Paths{A: []string{dir}, ProfilesA: []string{dir}})
		done <- answer{p, err}
	}()
	select {
	case a := <-done:
		if a.err != nil || !slices.Equal(a.p.A, []string{good}) {
			t.Fatalf("%+v, %v", a.p, a.err)
		}
	case <-time.After(10 * time.Second):
		// Release the blocked open so that the test binary can end.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("Expand blocked on a named pipe in the directory")
	}
}
