package infile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOpenKinds(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
	hasFIFO := mkfifo(fifo) == nil
	tests := []struct {
		name, path, want string
	}{
		{"regular file", file, ""},
		{"link to a file", link, ""},
		{"directory", dir, "is a directory"},
		{"missing", filepath.Join(dir, "absent"), "no such file"},
		{"character device", os.DevNull, "is a character device"},
		{"named pipe", fifo, "is a named pipe"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path == fifo && !hasFIFO {
				t.Skip("no named pipes here")
			}
			done := make(chan error, 1)
			go func() { _, err := ReadFile(tc.path); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ReadFile blocked")
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("ReadFile: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ReadFile = %v, want %q", err, tc.want)
			}
			var pe *fs.PathError
			if tc.want != "no such file" && (!errors.Is(err, ErrNotRegular) || !errors.As(err, &pe) || pe.Path != tc.path) {
				t.Errorf("error %v: want a *fs.PathError for %s matching ErrNotRegular", err, tc.path)
			}
		})
	}
}
