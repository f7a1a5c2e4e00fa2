package pagescan

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/servecmp/servecmp/internal/infile"
)

// file is one read-only handle on a database file and its header's
// figures.
type file struct {
	f        *os.File
	pageSize int    // bytes per page, 512..65536
	usable   int    // pageSize less the reserved bytes at each page's end
	nPage    uint32 // pages SQLite considers part of the database
}

// malformed returns an error wrapping ErrMalformed.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// open opens path read-only and reads its database header.
func open(path string) (*file, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	var h [100]byte
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, 100), h[:]); err != nil {
		f.Close()
		return nil, malformed("header: %v", err)
	}
	fl, err := parseHeader(h[:], st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	fl.f = f
	return fl, nil
}

// parseHeader checks the 100-byte database header of a file of size
// bytes and returns its figures.
func parseHeader(h []byte, size int64) (*file, error) {
	if string(h[:16]) != "SQLite format 3\x00" {
		return nil, malformed("not an SQLite database")
	}
	ps := int(binary.BigEndian.Uint16(h[16:]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
		return nil, malformed("page size %d", ps)
	}
	usable := ps - int(h[20])
	if usable < 480 {
		return nil, malformed("usable page size %d", usable)
	}
	if enc := binary.BigEndian.Uint32(h[56:]); enc != 1 {
		return nil, malformed("text encoding %d is not UTF-8", enc)
	}
	// The header's page count holds when the change counter matches the
	// version-valid-for number; else SQLite sizes the database by the
	// file, as here.
	n := uint64(size / int64(ps))
	if hn := binary.BigEndian.Uint32(h[28:]); hn > 0 && binary.BigEndian.Uint32(h[24:]) == binary.BigEndian.Uint32(h[92:]) {
		n = uint64(hn)
	}
	if max := uint64(size / int64(ps)); n > max {
		n = max // pages beyond the end of the file cannot be read
	}
	if n > 1<<31 {
		return nil, malformed("%d pages", n)
	}
	return &file{pageSize: ps, usable: usable, nPage: uint32(n)}, nil
}

// readPages reads count pages starting at page first into buf (which
// holds at least count pages).
func (f *file) readPages(first uint32, count int, buf []byte) error {
	if first < 1 || uint64(first)+uint64(count)-1 > uint64(f.nPage) {
		return malformed("page %d..%d outside the database's %d pages", first, uint64(first)+uint64(count)-1, f.nPage)
	}
	n := count * f.pageSize
	if _, err := f.f.ReadAt(buf[:n], int64(first-1)*int64(f.pageSize)); err != nil {
		return fmt.Errorf("reading page %d: %w", first, err)
	}
	return nil
}

func (f *file) close() error { return f.f.Close() }
