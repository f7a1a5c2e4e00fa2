package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"

	"github.com/servecmp/servecmp/internal/infile"
)

// Dir is a directory the user named (--csv-dir, --plots, run's --out)
// into which servecmp writes files under names it picks itself. Every
// name is resolved inside the directory (os.Root, openat-style): a
// symbolic link planted in it, or a name with "..", cannot lead a write
// (or a removal) out of it. A file is written as Write writes one (a
// temporary file beside it, synced, renamed into place), so an entry that
// was a link, a FIFO or a device is replaced, never written through; an
// entry that is a directory is refused. A name that is one of the
// command's inputs (through any link) is refused.
//
// Sub gives a folder of the directory as a Dir on the same root. Names
// use forward slashes ("run-a-1/result.json").
type Dir struct {
	root   *os.Root
	path   string // the directory as the user named it (messages)
	prefix string // of every name, "" or ending in "/"
	inputs []string
	// note, when set, is told each entry (relative to the top Dir) before
	// it is created; its error stops the creation.
	note func(rel string, dir bool) error
}

// OpenDir makes path (and its parents) when missing and opens it as a
// Dir; inputs are the command's input files, which no write may replace.
// Close it when done.
func OpenDir(path string, inputs ...string) (*Dir, error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", path)
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	return &Dir{root: r, path: path, inputs: inputs}, nil
}

// Close releases the directory (and every Sub of it).
func (d *Dir) Close() error { return d.root.Close() }

// Path is the directory as it was named.
func (d *Dir) Path() string { return filepath.Join(d.path, filepath.FromSlash(d.prefix)) }

// Join is the path of name in the directory, for messages.
func (d *Dir) Join(name string) string {
	return filepath.Join(d.path, filepath.FromSlash(d.prefix+name))
}

// OnCreate sets the function told each entry (file or folder, relative to
// the top Dir) before it is created; Subs made afterwards share it.
func (d *Dir) OnCreate(note func(rel string, dir bool) error) { d.note = note }

// Untracked is the directory without the OnCreate function: for files
// whose creation is not to be told (the manifest a run keeps itself).
func (d *Dir) Untracked() *Dir {
	u := *d
	u.note = nil
	return &u
}

func (d *Dir) rel(name string) (string, error) {
	if name == "" || path.IsAbs(name) || !filepath.IsLocal(filepath.FromSlash(name)) {
		return "", fmt.Errorf("%s: %q is not a name inside the directory", d.path, name)
	}
	return d.prefix + path.Clean(name), nil
}

func (d *Dir) tell(rel string, dir bool) error {
	if d.note == nil {
		return nil
	}
	return d.note(rel, dir)
}

// Sub makes the folder name (and its parents) inside the directory when
// missing and returns it as a Dir on the same root. A name that exists as
// a link leading out of the directory, or as a file, is refused.
func (d *Dir) Sub(name string) (*Dir, error) {
	rel, err := d.rel(name)
	if err != nil {
		return nil, err
	}
	if err := d.mkdirAll(rel); err != nil {
		return nil, err
	}
	s := *d
	s.prefix = rel + "/"
	return &s, nil
}

// mkdirAll makes rel and its missing parents, telling each one made.
func (d *Dir) mkdirAll(rel string) error {
	if parent := path.Dir(rel); parent != "." {
		if err := d.mkdirAll(parent); err != nil {
			return err
		}
	}
	st, err := d.root.Stat(rel)
	switch {
	case err == nil && st.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("%s: not a directory", filepath.Join(d.path, rel))
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", filepath.Join(d.path, rel), unwrapPath(err))
	}
	if err := d.tell(rel, true); err != nil {
		return err
	}
	if err := d.root.Mkdir(rel, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w", filepath.Join(d.path, rel), unwrapPath(err))
	}
	return nil
}

// CheckWrite reports, before any work, whether name could be written in
// the directory: not a directory, not one of the inputs.
func (d *Dir) CheckWrite(name string) error {
	rel, err := d.rel(name)
	if err != nil {
		return err
	}
	return d.check(rel)
}

// check refuses a name that is a directory or one of the inputs.
func (d *Dir) check(rel string) error {
	st, err := d.root.Stat(rel)
	if err != nil {
		return nil // missing, or a dangling or escaping link: replaced
	}
	if st.IsDir() {
		return fmt.Errorf("%s: is a directory", filepath.Join(d.path, rel))
	}
	for _, in := range d.inputs {
		if ist, err := os.Stat(in); err == nil && in != "" && os.SameFile(st, ist) {
			return fmt.Errorf("%s: is also an input (%s); refusing to overwrite an input", filepath.Join(d.path, rel), in)
		}
	}
	return nil
}

// Write writes data to name in the directory (see the type's comment).
func (d *Dir) Write(name string, data []byte) error {
	return d.WriteFunc(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is Write for content produced by fill; when fill fails the
// entry is left as it was.
func (d *Dir) WriteFunc(name string, fill func(io.Writer) error) (err error) {
	rel, err := d.rel(name)
	if err != nil {
		return err
	}
	shown := filepath.Join(d.path, filepath.FromSlash(rel))
	if dir := path.Dir(rel); dir != "." {
		if err := d.mkdirAll(dir); err != nil {
			return err
		}
	}
	if err := d.check(rel); err != nil {
		return err
	}
	if err := d.tell(rel, false); err != nil {
		return err
	}
	tmp := path.Join(path.Dir(rel), "."+path.Base(rel)+".tmp"+randomSuffix())
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, Perm)
	if err != nil {
		return fmt.Errorf("%s: cannot create a file beside it: %w", shown, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			f.Close()
			_ = d.root.Remove(tmp)
		}
	}()
	if err = f.Chmod(Perm); err != nil {
		return fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	if err = fill(f); err != nil {
		return fmt.Errorf("%s: %w", shown, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	if err = d.root.Rename(tmp, rel); err != nil {
		return fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	if dir, derr := d.root.Open(path.Dir(rel)); derr == nil {
		dir.Sync() // best effort, as syncDir
		dir.Close()
	}
	return nil
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// create opens name for writing from its start (flags add O_TRUNC or
// O_APPEND): an entry that is not a regular file (a FIFO, a device, a
// socket planted under the name) is refused without blocking.
func (d *Dir) create(name string, flags int) (*os.File, error) {
	rel, err := d.rel(name)
	if err != nil {
		return nil, err
	}
	shown := filepath.Join(d.path, filepath.FromSlash(rel))
	if dir := path.Dir(rel); dir != "." {
		if err := d.mkdirAll(dir); err != nil {
			return nil, err
		}
	}
	if err := d.check(rel); err != nil {
		return nil, err
	}
	if err := d.tell(rel, false); err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|flags|syscall.O_NONBLOCK, Perm)
	if err != nil {
		if fi, lerr := d.root.Lstat(rel); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: is a symbolic link out of %s; refusing to write through it (remove it)", shown, d.path)
		}
		return nil, fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: is %s, not a regular file; refusing to write into it", shown, infile.Kind(st.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	return f, nil
}

// Create opens name for writing from its start (emptied), creating it
// when missing: a file another process writes into (a child's log).
func (d *Dir) Create(name string) (*os.File, error) { return d.create(name, os.O_TRUNC) }

// Claim tells the OnCreate function of name and checks it as a write
// would, then returns its path: for a file a library writes by path (a
// merge's records) in a folder the run made itself.
func (d *Dir) Claim(name string) (string, error) {
	rel, err := d.rel(name)
	if err != nil {
		return "", err
	}
	if dir := path.Dir(rel); dir != "." {
		if err := d.mkdirAll(dir); err != nil {
			return "", err
		}
	}
	if err := d.check(rel); err != nil {
		return "", err
	}
	if err := d.tell(rel, false); err != nil {
		return "", err
	}
	return filepath.Join(d.path, filepath.FromSlash(rel)), nil
}

// OpenAppend opens name for appending (a log), creating it when missing.
func (d *Dir) OpenAppend(name string) (*os.File, error) { return d.create(name, os.O_APPEND) }

// Stream returns a Stream writing name in the directory from its start:
// the file is created (or emptied) at the first write or at Close.
func (d *Dir) Stream(name string) *Stream {
	return &Stream{shown: d.Join(name), open: func() (*os.File, error) { return d.create(name, os.O_TRUNC) }}
}

// ReadFile reads the regular file name in the directory, at most limit
// bytes; any other kind (a FIFO planted under the name) is refused
// without blocking, as infile does.
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) {
	rel, err := d.rel(name)
	if err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: is %s: %w", filepath.Join(d.path, rel), infile.Kind(st.Mode()), infile.ErrNotRegular)
	}
	return infile.ReadAllLimit(f, limit)
}

// Lstat describes name in the directory without following a final link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	rel, err := d.rel(name)
	if err != nil {
		return nil, err
	}
	return d.root.Lstat(rel)
}

// Remove removes the file or empty folder name in the directory; a
// missing one is no error.
func (d *Dir) Remove(name string) error {
	rel, err := d.rel(name)
	if err != nil {
		return err
	}
	if err := d.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", filepath.Join(d.path, rel), unwrapPath(err))
	}
	return nil
}

// RemoveAll removes name and everything under it, inside the directory
// only (a link in it is removed, not followed).
func (d *Dir) RemoveAll(name string) error {
	rel, err := d.rel(name)
	if err != nil {
		return err
	}
	if err := d.root.RemoveAll(rel); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(d.path, rel), unwrapPath(err))
	}
	return nil
}

// ReadDir lists the entries of the folder name ("." the directory
// itself).
func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	rel := d.prefix + "."
	if name != "." {
		var err error
		if rel, err = d.rel(name); err != nil {
			return nil, err
		}
	}
	f, err := d.root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
