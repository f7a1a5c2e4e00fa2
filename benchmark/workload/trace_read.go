package workload

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/servecmp/servecmp/internal/infile"
)

// traceLine is one request as a trace line gives it.
type traceLine struct {
	line    int   // 1-based line (Parquet: row) number
	tsNs    int64 // arrival timestamp, nanoseconds from the trace's own epoch
	in, out int   // prompt and output tokens
	ids     []int64
	hasIDs  bool // the format carries hash ids (Mooncake)
}

// lineSource yields a trace's lines in file order, io.EOF at the end.
type lineSource interface {
	next() (traceLine, error)
	// ignored lists the unknown keys (columns) seen so far, sorted.
	ignored() []string
	// where names line (row) n of the file for a message.
	where(n int) string
}

// traceFile is an open trace: its lines and the hash of its bytes.
type traceFile struct {
	name string
	f    *os.File
	sum  hash.Hash
	raw  io.Reader // the file's bytes, through sum
	src  lineSource
}

// openTrace opens a trace read-only (internal/infile) and picks its
// reader: Parquet by its magic bytes (Mooncake only), gzip-compressed
// text by its own, else text.
func openTrace(path, format string) (*traceFile, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	tf := &traceFile{name: path, f: f, sum: sha256.New()}
	magic := make([]byte, 4)
	n, _ := io.ReadFull(f, magic)
	magic = magic[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	tf.raw = io.TeeReader(f, tf.sum)
	if bytes.Equal(magic, []byte("PAR1")) {
		if format != TraceMooncake {
			f.Close()
			return nil, fmt.Errorf("%s: a Parquet file; only Mooncake traces are read from Parquet", path)
		}
		if tf.src, err = newParquetSource(path); err != nil {
			f.Close()
			return nil, err
		}
		return tf, nil
	}
	text := tf.raw
	if len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(bufio.NewReaderSize(tf.raw, 1<<16))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: not a readable gzip file: %v", path, err)
		}
		text = &capReader{r: zr, left: maxTraceUnpacked, name: path}
	}
	lr := &lineReader{br: bufio.NewReaderSize(text, 1<<16), name: path}
	if format == TraceMooncake {
		tf.src = &mooncakeSource{lr: lr, unknown: map[string]bool{}}
	} else {
		tf.src = &azureSource{lr: lr}
	}
	return tf, nil
}

// finish reads what is left of the file into the hash and returns its
// hex sha256, closing the file.
func (tf *traceFile) finish() (string, error) {
	defer tf.f.Close()
	if _, err := io.Copy(io.Discard, tf.raw); err != nil {
		return "", fmt.Errorf("%s: %v", tf.name, err)
	}
	return hex.EncodeToString(tf.sum.Sum(nil)), nil
}

func (tf *traceFile) close() { tf.f.Close() }

// capReader fails once more than left bytes were read: a compressed
// trace may not unpack without bound.
type capReader struct {
	r    io.Reader
	left int64
	name string
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("%s: unpacks to more than %d bytes", c.name, int64(maxTraceUnpacked))
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// lineReader reads lines of at most MaxTraceLineBytes, counting them.
type lineReader struct {
	br   *bufio.Reader
	name string
	n    int // lines read
	buf  []byte
}

// next returns the next line without its end of line; io.EOF after the
// last.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.buf = append(l.buf, chunk...)
		if len(l.buf) > MaxTraceLineBytes {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", l.name, l.n+1, MaxTraceLineBytes)
		}
		switch {
		case err == nil || (err == io.EOF && len(l.buf) > 0):
			l.n++
			if l.n > MaxTraceLines {
				return nil, fmt.Errorf("%s: more than %d lines", l.name, MaxTraceLines)
			}
			return bytes.TrimRight(l.buf, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("%s: %v", l.name, err)
		}
	}
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int) int { return (a + b - 1) / b }
