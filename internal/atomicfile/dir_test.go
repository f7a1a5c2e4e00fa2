//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileDir is a directory the user named, with names planted in it
// that lead out of it: links to a victim file and to a victim folder, a
// FIFO and a character device.
func hostileDir(t *testing.T) (dir, victim, victimDir string) {
	t.Helper()
	outside := t.TempDir()
	victim = filepath.Join(outside, "victim.txt")
	victimDir = filepath.Join(outside, "elsewhere")
	os.WriteFile(victim, []byte("precious"), 0o644)
	os.Mkdir(victimDir, 0o755)
	dir = t.TempDir()
	for name, target := range map[string]string{"metrics.csv": victim, "plots": victimDir, "abs.csv": victim} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skip(err)
		}
	}
	if err := os.Symlink("../"+filepath.Base(outside)+"/victim.txt", filepath.Join(dir, "rel.csv")); err != nil {
		t.Skip(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "step.json"), 0o600); err != nil {
		t.Skip(err)
	}
	return dir, victim, victimDir
}

// TestDirPlantedLinks: no write, stream, removal or folder through a
// planted name leaves the directory; the victim outside is untouched.
func TestDirPlantedLinks(t *testing.T) {
	dir, victim, victimDir := hostileDir(t)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, name := range []string{"metrics.csv", "abs.csv", "rel.csv"} {
		if err := d.Write(name, []byte("a,b\n")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if st, err := os.Lstat(filepath.Join(dir, name)); err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: not replaced by a regular file: %v", name, err)
		}
	}
	if _, err := d.Sub("plots"); err == nil {
		t.Error("Sub followed a link out of the directory")
	}
	if err := d.Write("plots/cdf.png", []byte("png")); err == nil {
		t.Error("a write went through a linked folder")
	}
	if err := d.Write("../escape.txt", []byte("x")); err == nil {
		t.Error(`a ".." name was accepted`)
	}
	_ = d.RemoveAll("plots")
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("victim changed: %q", b)
	}
	if ents, _ := os.ReadDir(victimDir); len(ents) != 0 {
		t.Fatalf("victim folder written: %v", ents)
	}
	if _, err := os.Stat(victimDir); err != nil {
		t.Fatalf("victim folder removed: %v", err)
	}
}

// TestDirFIFO: a FIFO planted under a name is refused by ReadFile and
// Stream without blocking, and replaced by Write.
func TestDirFIFO(t *testing.T) {
	dir, _, _ := hostileDir(t)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := d.ReadFile("step.json", 1<<20); err == nil {
			t.Error("ReadFile read a FIFO")
		}
		s := d.Stream("step.json")
		if _, err := s.Write([]byte("x")); err == nil {
			t.Error("Stream wrote into a FIFO")
		}
		s.Abort()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked on a FIFO")
	}
	if err := d.Write("step.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if b, _ := d.ReadFile("step.json", 10); string(b) != "{}" {
		t.Fatalf("read back %q", b)
	}
}

// TestDirInputs: a name that is one of the inputs is refused.
func TestDirInputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "check", "exp.yaml")
	os.MkdirAll(filepath.Dir(in), 0o755)
	os.WriteFile(in, []byte("a: b"), 0o644)
	d, err := OpenDir(dir, in)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Write("check/exp.yaml", []byte("x")); err == nil || !strings.Contains(err.Error(), "input") {
		t.Fatalf("overwrote an input: %v", err)
	}
	if b, _ := os.ReadFile(in); string(b) != "a: b" {
		t.Fatalf("input changed: %q", b)
	}
}

// TestDirOnCreate: every entry made is told first, folders included.
func TestDirOnCreate(t *testing.T) {
	d, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var got []string
	d.OnCreate(func(rel string, dir bool) error {
		if dir {
			rel += "/"
		}
		got = append(got, rel)
		return nil
	})
	sub, err := d.Sub("run-a-1")
	if err != nil {
		t.Fatal(err)
	}
	sub.Write("result.json", nil)
	s := d.Stream("run-a-1/records.jsonl")
	s.Close()
	d.Write("plots/x/y.png", nil)
	want := "run-a-1/ run-a-1/result.json run-a-1/records.jsonl plots/ plots/x/ plots/x/y.png"
	if strings.Join(got, " ") != want {
		t.Fatalf("told %q, want %q", strings.Join(got, " "), want)
	}
}

// TestStreamWritesAsItGoes: what was written is in the file, under its
// own name, before Close; a stream never written leaves no file on Abort
// and an empty one on Close.
func TestStreamWritesAsItGoes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.jsonl")
	s := NewStream(p)
	s.Write([]byte("{\"id\":\"1\"}\n"))
	if b, err := os.ReadFile(p); err != nil || string(b) != "{\"id\":\"1\"}\n" {
		t.Fatalf("before Close: %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("entries %v: a temporary file?", ents)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(dir, "none.jsonl")
	NewStream(q).Abort()
	if _, err := os.Stat(q); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Abort made a file: %v", err)
	}
	os.WriteFile(q, []byte("old"), 0o644)
	a := NewStream(q)
	a.Abort()
	if b, _ := os.ReadFile(q); string(b) != "old" {
		t.Fatalf("Abort without a write emptied an earlier file: %q", b)
	}
	e := filepath.Join(dir, "empty.jsonl")
	if err := NewStream(e).Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(e); err != nil || st.Size() != 0 {
		t.Fatalf("Close of an unwritten stream: %v", err)
	}
	if err := NewStream(dir).Close(); err == nil {
		t.Fatal("a directory accepted")
	}
	if _, err := NewStream(filepath.Join(dir, "x")).Write(nil); err != nil {
		t.Fatal(err)
	}
	var w io.Writer = NewStream(os.DevNull)
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatalf("/dev/null: %v", err)
	}
}

// TestLock: a second taker is refused at once, naming the holder; after
// unlock it succeeds.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	d1, _ := OpenDir(dir)
	defer d1.Close()
	d2, _ := OpenDir(dir)
	defer d2.Close()
	unlock, err := d1.Lock(".lock")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d2.Lock(".lock"); err == nil || !strings.Contains(err.Error(), "in use by process") {
		t.Fatalf("second lock: %v", err)
	}
	unlock()
	u2, err := d2.Lock(".lock")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	u2()
}
