// Package infile opens the files commands read (rules, workloads,
// manifests, results, records, summaries, tokenizers, plans), refusing
// anything that is not a regular file.
//
// A named pipe with no writer would block a plain open forever, and a
// device such as /dev/zero would feed a reader without end: Open opens
// without blocking, checks the kind of what it opened (the same file, so
// nothing can be swapped in between), and refuses every kind but a
// regular file with an error that says what the path is. Commands that
// document "-" as standard input handle "-" themselves before calling it.
package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is matched (errors.Is) by the error for a path that is
// not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// notRegular says what kind of file a path names.
type notRegular struct{ kind string }

func (e notRegular) Error() string {
	return "is " + e.kind + ", not a regular file; save the content to a file first"
}

func (e notRegular) Is(target error) bool { return target == ErrNotRegular }

// Open opens the regular file at path for reading. Any other kind (named
// pipe, device, socket, directory) is refused with a *fs.PathError whose
// Err matches ErrNotRegular, without blocking.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: notRegular{Kind(st.Mode())}}
	}
	return f, nil
}

// ReadFile reads the regular file at path (see Open).
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ErrTooLarge is matched (errors.Is) by the error for a file over the
// size its reader allows.
var ErrTooLarge = errors.New("too large")

// ReadFileLimit reads the regular file at path (see Open), refusing one
// of more than limit bytes before reading it whole: a key file, a step
// record. The error names the path and the limit.
func ReadFileLimit(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadAllLimit(f, limit)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return b, nil
}

// ReadAllLimit reads r to its end, refusing more than limit bytes with an
// error matching ErrTooLarge.
func ReadAllLimit(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return b, nil
}

// Kind names the kind of file m describes, with an article.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsRegular():
		return "a regular file"
	}
	return "an irregular file"
}
