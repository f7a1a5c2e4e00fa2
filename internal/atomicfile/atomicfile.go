// Package atomicfile is servecmp's one way to write an output file.
//
// Write never leaves a half-written file behind and never destroys what
// the path names when that is not a regular file:
//
//   - a regular file (or a new path) is written through a temporary file
//     in the same directory, fsynced, made 0644 and renamed into place;
//   - a path that is a symbolic link is resolved first, so the link stays
//     and the file it points to is replaced;
//   - a character device or a FIFO (/dev/null, /dev/stdout, a named pipe
//     a script reads) is written through, never replaced;
//   - a directory, a socket or a block device is refused.
//
// CheckWritable tells, before any work starts, whether a path can be written and
// whether it names one of the command's inputs; commands call it for
// every output before the first request or the first read.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Perm is the mode of every result file: results are meant to be shared.
const Perm = 0o644

// Written, when set, is called with the path of every regular file
// Write put in place, after the rename. Tests set it to check every
// output the commands write (its schema, its names); it is nil
// otherwise.
var Written func(path string)

// Write writes data to path (see the package comment for what happens
// to each kind of path).
func Write(path string, data []byte) error {
	return WriteFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is Write for content produced by a function. When fill
// fails, the target is left as it was (for a regular file) and the
// error is returned.
func WriteFunc(path string, fill func(io.Writer) error) error {
	target, st, err := resolve(path)
	if err != nil {
		return err
	}
	if st != nil && !st.Mode().IsRegular() {
		return writeThrough(path, target, fill)
	}
	return replace(path, target, fill)
}

// resolve follows symbolic links and returns the final path and, when it
// exists, its FileInfo. Kinds that can never be written are refused.
func resolve(path string) (string, fs.FileInfo, error) {
	target := path
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", nil, fmt.Errorf("%s: dangling symbolic link: %w", path, unwrapPath(err))
		}
		target = t
	}
	st, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return target, nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	switch m := st.Mode(); {
	case m.IsDir():
		return "", nil, fmt.Errorf("%s: is a directory", path)
	case m&fs.ModeSocket != 0:
		return "", nil, fmt.Errorf("%s: is a socket", path)
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return "", nil, fmt.Errorf("%s: is a block device; refusing to write to it", path)
	}
	return target, st, nil
}

// writeThrough writes into a character device or FIFO without replacing it.
func writeThrough(path, target string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err := fill(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	return nil
}

// replace writes a temporary file beside target, syncs it and renames it
// over target.
func replace(path, target string, fill func(io.Writer) error) (err error) {
	dir := filepath.Dir(target)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return fmt.Errorf("%s: cannot create a file in %s: %w", path, dir, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(Perm); err != nil { // CreateTemp makes it private
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err = fill(tmp); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	syncDir(dir)
	if Written != nil {
		Written(target)
	}
	return nil
}

// syncDir makes the rename durable where the platform allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: not every file system syncs directories
		d.Close()
	}
}

// unwrapPath drops the *PathError or *LinkError wrapper, whose path is
// the temporary file's, so messages name the user's path only.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// CheckWritable reports whether path can be written as an output of a command
// whose inputs are inputs: it must not be one of them (same file, through
// any link), its directory must exist and be writable, and it must be of
// a kind Write accepts. flag names the option in the error ("--out").
// An empty path is accepted (no output asked for).
func CheckWritable(flag, path string, inputs ...string) error {
	if err := checkWritable(flag, path, inputs...); err != nil {
		return &BadOutput{err}
	}
	return nil
}

func checkWritable(flag, path string, inputs ...string) error {
	if path == "" {
		return nil
	}
	target, st, err := resolve(path)
	if err != nil {
		return fmt.Errorf("%s %w", flag, err)
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if same(target, in) {
			return fmt.Errorf("%s %s: is also an input (%s); refusing to overwrite an input", flag, path, in)
		}
	}
	if st != nil && !st.Mode().IsRegular() {
		return nil // a device or FIFO: written through
	}
	dir := filepath.Dir(target)
	dst, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: directory %s: %w", flag, path, dir, unwrapPath(err))
	}
	if !dst.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
	}
	probe, err := os.CreateTemp(dir, ".servecmp-probe*")
	if err != nil {
		return fmt.Errorf("%s %s: cannot write in %s: %w", flag, path, dir, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// BadOutput is an output path refused before any work (CheckWritable,
// CheckDistinct): a mistake in the invocation, which the command line
// reports with its usage exit status whichever flag named the path.
type BadOutput struct{ Err error }

func (e *BadOutput) Error() string { return e.Err.Error() }
func (e *BadOutput) Unwrap() error { return e.Err }

// CheckDistinct reports an error when two outputs name the same file.
// flags and paths are parallel; empty paths are skipped.
func CheckDistinct(flags, paths []string) error {
	for i := range paths {
		for j := i + 1; j < len(paths); j++ {
			if paths[i] == "" || paths[j] == "" {
				continue
			}
			if paths[i] == paths[j] || same(paths[i], paths[j]) {
				return &BadOutput{fmt.Errorf("%s and %s name the same file %s", flags[i], flags[j], paths[i])}
			}
		}
	}
	return nil
}

// same reports whether a and b are the same existing file.
func same(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(sa, sb)
}
