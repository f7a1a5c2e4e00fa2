package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// Stream is an output written as it is produced, at its own path: the
// per-request records of a run. Every Write goes straight to the file
// (no buffer in the process), so what a run recorded is on disk, under
// the name the user gave, even when the process is killed; only the
// result files are written whole (Write). The file is created, or
// emptied, at the first Write, so that a run that fails before its first
// record leaves an earlier file as it was; Close creates it (empty) when
// nothing was written.
//
// A path that is a symbolic link is followed (the link stays, the file it
// points to is written), a FIFO or character device is written through, a
// directory or a block device is refused: the kinds Write accepts.
// Streams made by Dir.Stream stay inside their directory and refuse every
// kind but a regular file.
type Stream struct {
	shown string
	open  func() (*os.File, error)

	mu     sync.Mutex
	f      *os.File
	err    error
	closed bool
}

// NewStream returns a Stream writing the file path.
func NewStream(path string) *Stream {
	return &Stream{shown: path, open: func() (*os.File, error) {
		target, st, err := resolve(path)
		if err != nil {
			return nil, err
		}
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if st != nil && !st.Mode().IsRegular() {
			flags = os.O_WRONLY // a device or FIFO: written through
		}
		f, err := os.OpenFile(target, flags, Perm)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		return f, nil
	}}
}

// Path is the stream's path, for messages.
func (s *Stream) Path() string { return s.shown }

// Write writes p at the end of what was written; the first call creates
// the file.
func (s *Stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensure(); err != nil {
		return 0, err
	}
	n, err := s.f.Write(p)
	if err != nil {
		return n, fmt.Errorf("%s: %w", s.shown, unwrapPath(err))
	}
	return n, nil
}

func (s *Stream) ensure() error {
	switch {
	case s.closed:
		return fmt.Errorf("%s: %w", s.shown, os.ErrClosed)
	case s.err != nil:
		return s.err
	case s.f == nil:
		s.f, s.err = s.open()
		return s.err
	}
	return nil
}

// Close syncs and closes the file, creating it (empty) when nothing was
// written. Later calls return nil.
func (s *Stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	err := s.ensure()
	s.closed = true
	if s.f == nil {
		return err
	}
	serr := s.f.Sync()
	if errors.Is(serr, syscall.EINVAL) || errors.Is(serr, syscall.ENOTSUP) {
		serr = nil // a FIFO or device cannot be synced
	}
	cerr := s.f.Close()
	if serr != nil {
		return fmt.Errorf("%s: %w", s.shown, unwrapPath(serr))
	}
	if cerr != nil {
		return fmt.Errorf("%s: %w", s.shown, unwrapPath(cerr))
	}
	return nil
}

// Abort closes the file without creating it when nothing was written: a
// run with no result leaves no records file (and an earlier one as it
// was).
func (s *Stream) Abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil && !s.closed {
		_ = s.f.Close()
	}
	s.closed = true
}
