package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := Write(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "two" {
		t.Fatalf("got %q", b)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != Perm {
		t.Fatalf("mode %v, want %v", st.Mode().Perm(), os.FileMode(Perm))
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left %d entries in the directory, want 1", len(ents))
	}
}

func TestWriteFailureKeepsOld(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.json")
	os.WriteFile(p, []byte("old"), 0o644)
	err := WriteFunc(p, func(w io.Writer) error {
		w.Write([]byte("half"))
		return io.ErrShortWrite
	})
	if err == nil {
		t.Fatal("no error")
	}
	b, _ := os.ReadFile(p)
	if string(b) != "old" {
		t.Fatalf("target changed to %q", b)
	}
}

func TestWriteSymlinkKeepsLink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	os.WriteFile(real, []byte("old"), 0o644)
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if err := Write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("link replaced by a regular file")
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Fatalf("target holds %q", b)
	}
}

func TestWriteDevNullStaysDevice(t *testing.T) {
	if err := Write(os.DevNull, []byte("x")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v", os.DevNull, st.Mode())
	}
}

func TestWriteFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(p); err != nil {
		t.Skip(err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := Write(p, []byte("through")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through" {
		t.Fatalf("reader got %q", s)
	}
	if st, _ := os.Lstat(p); st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("FIFO replaced")
	}
}

func TestWriteDirectoryRefused(t *testing.T) {
	if err := Write(t.TempDir(), []byte("x")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("err = %v", err)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte("x"), 0o644)
	link := filepath.Join(dir, "alias")
	os.Symlink(in, link)
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	cases := []struct {
		name, path, want string
	}{
		{"new file", filepath.Join(dir, "new.json"), ""},
		{"empty", "", ""},
		{"input itself", in, "is also an input"},
		{"input through a link", link, "is also an input"},
		{"input spelled differently", dir + "/./in.jsonl", "is also an input"},
		{"missing directory", filepath.Join(dir, "nope", "x.json"), "directory"},
		{"a directory", dir, "is a directory"},
		{"dev null", os.DevNull, ""},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		cases = append(cases, struct{ name, path, want string }{"read-only directory", filepath.Join(ro, "x.json"), "cannot write"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckWritable("--out", c.path, in)
			if c.want == "" {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "--out ") {
				t.Fatalf("error does not name the flag: %v", err)
			}
		})
	}
}

func TestCheckDistinct(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	if err := CheckDistinct([]string{"--out", "--records"}, []string{a, a}); err == nil {
		t.Fatal("same path accepted")
	}
	if err := CheckDistinct([]string{"--out", "--records"}, []string{a, filepath.Join(dir, "b")}); err != nil {
		t.Fatal(err)
	}
}
