// Package input opens any profile input path: an Nsight Systems SQLite
// export or a PyTorch-profiler (kineto) trace, plain or gzipped.
//
// The format is told by content, never by file name: the SQLite header
// "SQLite format 3\x00" means nsys; the gzip magic or a JSON document
// start means kineto. SQLite files are opened strictly read-only as
// immutable (no locks, no journal, nothing written beside the file), so a
// read-only file in a read-only directory reads fine and the file's bytes
// never change. The one exception is an export with a non-empty -wal file
// beside it (a database in WAL mode whose log was never checkpointed):
// immutable would ignore the rows in the log, so it is opened read-only
// without immutable (SQLite reads the log, and may create the -shm index
// beside it); where that fails, it is read as immutable with a warning.
//
// Every error is one line of the form "input: FILE: problem".
package input

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/servecmp/servecmp/internal/sqliteuri"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/kineto"
	"github.com/servecmp/servecmp/nsys"
)

// ErrUnknownFormat means the content is neither an nsys SQLite export nor
// a kineto trace.
var ErrUnknownFormat = errors.New("not an Nsight Systems SQLite export or a PyTorch profiler trace (expected an SQLite, gzip or JSON file)")

// Detect tells the format of the file at path from its first bytes.
func Detect(path string) (event.Format, error) {
	f, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return detect(path, f)
}

func detect(path string, f *os.File) (event.Format, error) {
	st, err := f.Stat()
	if err != nil {
		return "", fileErr(path, err)
	}
	if st.IsDir() {
		return "", fmt.Errorf("input: %s: is a directory", path)
	}
	const probe = 512
	head := make([]byte, probe)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", fileErr(path, err)
	}
	head = head[:n]
	if n == 0 {
		return "", fmt.Errorf("input: %s: empty file", path)
	}
	if f := event.SniffFormat(head); f != "" {
		return f, nil
	}
	if len(bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")) == 0 && n < probe {
		return "", fmt.Errorf("input: %s: empty file (only white space)", path)
	}
	if bytes.HasPrefix(event.SQLiteMagic, head) {
		return "", fmt.Errorf("input: %s: truncated SQLite file (%d bytes)", path, n)
	}
	return "", fmt.Errorf("input: %s: %w", path, ErrUnknownFormat)
}

// Open reads the capture at path. A panic in a reader (a bug met on some
// hostile file) fails this file's read with an error.
func Open(ctx context.Context, path string, opts event.Options) (c *event.Capture, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, &Error{Path: path, Msg: "internal error while reading: " + strings.Join(strings.Fields(fmt.Sprint(p)), " ")}
		}
	}()
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	format, err := detect(path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	switch format {
	case event.NSys:
		f.Close()
		return openNSys(ctx, path, opts)
	default:
		defer f.Close()
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fileErr(path, err)
		}
		return readKineto(ctx, path, f, opts)
	}
}

// readKineto hands a kineto trace (plain or gzip JSON) to package kineto.
func readKineto(ctx context.Context, path string, f *os.File, opts event.Options) (*event.Capture, error) {
	c, err := kineto.Read(ctx, f, path, opts)
	if err != nil {
		return nil, wrapPlain(path, err)
	}
	return c, nil
}

// DSN returns the read-only, immutable SQLite DSN of path: nothing is
// locked, journalled or written beside the file.
func DSN(path string) (string, error) {
	f, err := sqliteuri.File(path)
	if err != nil {
		return "", err
	}
	return f + "?mode=ro&immutable=1&_query_only=1&_mutex=no&_cache_size=-1024", nil
}

func openNSys(ctx context.Context, path string, opts event.Options) (*event.Capture, error) {
	if walPending(path) {
		return openWAL(ctx, path, opts)
	}
	return openImmutable(ctx, path, opts)
}

// openImmutable reads the export at path opened as immutable.
func openImmutable(ctx context.Context, path string, opts event.Options) (*event.Capture, error) {
	dsn, err := DSN(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, wrap(path, err)
	}
	defer db.Close()
	db.SetMaxIdleConns(8)
	c, err := nsys.ReadWith(ctx, db, path, opts, nsys.Config{File: path})
	if err != nil {
		return nil, wrap(path, err)
	}
	return c, nil
}

// wrapPlain makes err one line naming the file, keeping its words.
func wrapPlain(path string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("input: %s: %w", path, err)
	}
	return &Error{Path: path, Msg: strings.Join(strings.Fields(err.Error()), " "), Err: err}
}

// wrap makes an SQLite-side err one line naming the file, and says in plain
// words when the driver reports a file that is no database or is damaged.
func wrap(path string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("input: %s: %w", path, err)
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "file is not a database"):
		msg = "not a valid SQLite database (" + msg + ")"
	case strings.Contains(low, "malformed") || strings.Contains(low, "corrupt"):
		msg = "corrupt or truncated SQLite file (" + msg + ")"
	}
	return &Error{Path: path, Msg: msg, Err: err}
}

// Error is an input error naming the file; it unwraps to the cause (for
// example nsys.ErrNoKernels).
type Error struct {
	Path string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return "input: " + e.Path + ": " + e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func fileErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Path: path, Msg: "no such file", Err: err}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Path: path, Msg: "permission denied", Err: err}
	}
	return &Error{Path: path, Msg: err.Error(), Err: err}
}

// Expand turns input paths into files: a directory expands to the trace
// and export files directly inside it (sorted by name; detected by
// content, hidden files skipped), a file stays as given. A directory
// without any trace is an error, as is a missing path.
func Expand(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fileErr(p, err)
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, fileErr(p, err)
		}
		var found []string
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			fp := filepath.Join(p, e.Name())
			if fi, err := os.Stat(fp); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			// A file named like a capture is kept whatever its content, so
			// that a corrupt rank fails the run with its own error instead
			// of silently dropping out; other files are kept when their
			// content is a capture.
			if namedLikeCapture(e.Name()) {
				found = append(found, fp)
			} else if _, err := Detect(fp); err == nil && looksLikeTrace(fp) {
				found = append(found, fp)
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("input: %s: directory holds no nsys export or kineto trace", p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// looksLikeTrace keeps a directory scan from picking up unrelated JSON or
// gzip files: SQLite files must have the magic, JSON files (plain or
// gzipped) must mention traceEvents near the start.
// namedLikeCapture reports whether a file name says it is an nsys SQLite
// export or a PyTorch-profiler trace (plain JSON names are too common for
// configs and results to count).
func namedLikeCapture(name string) bool {
	n := strings.ToLower(name)
	for _, suf := range []string{".sqlite", ".json.gz", ".trace.json"} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return false
}

func looksLikeTrace(path string) bool {
	f, err := openRegular(path) // a file swapped for a pipe after Detect is not waited on
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	if event.SniffFormat(head[:n]) == event.NSys {
		return true
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false
	}
	var r io.Reader = f
	if event.IsGzip(head[:n]) {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return false
		}
		defer gz.Close()
		r = gz
	}
	buf := make([]byte, 1<<20)
	m, _ := io.ReadFull(r, buf)
	return bytes.Contains(buf[:m], []byte(`"traceEvents"`))
}
