package kineto

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// scanner is a pull parser for the JSON text of a trace. It reads through a
// window buffer, validates the syntax it passes over, and hands out tokens
// as slices of that buffer, valid until the next read. Values the reader
// does not need are skipped without being copied or decoded, which makes
// it about twice as fast as encoding/json element decoding on real traces
// (whose events are mostly host operators with large argument lists) and
// keeps per-event allocations near zero.
//
// Object keys are matched exactly (case-sensitive). A value that is not
// valid JSON is a *syntaxError; input that ends inside a value is
// errTruncated.
type scanner struct {
	r    io.Reader
	buf  []byte
	pos  int   // next byte to read
	end  int   // end of the valid bytes in buf
	base int64 // input offset of buf[0]
	mark int64 // input offset of the first byte a fill must keep; -1 for none
	rerr error // read error other than io.EOF
	eof  bool
}

var errTruncated = errors.New("truncated JSON: the input ends inside a value")

// syntaxError is invalid JSON at an input offset.
type syntaxError struct {
	off int64
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("invalid JSON at byte %d: %s", e.off, e.msg) }

// maxDepth bounds the nesting of skipped values.
const maxDepth = 10000

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, 1<<16), mark: -1}
}

// offset is the input offset of the next byte.
func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

// hold makes fills keep the input from offset at on, unless an earlier
// offset is held already; the returned function releases it.
func (s *scanner) hold(at int64) func() {
	if s.mark >= 0 {
		return func() {}
	}
	s.mark = at
	return func() { s.mark = -1 }
}

// bytesFrom returns the input from offset at up to the read position; at
// must be held.
func (s *scanner) bytesFrom(at int64) []byte { return s.buf[at-s.base : s.pos] }

// fill reads more input, keeping everything from the held offset (or the
// read position) and moving it to the front of the buffer, which grows when
// full. It reports false at the end of input or on a read error.
func (s *scanner) fill() bool {
	if s.eof {
		return false
	}
	keep := s.pos
	if s.mark >= 0 && int(s.mark-s.base) < keep {
		keep = int(s.mark - s.base)
	}
	if keep > 0 {
		n := copy(s.buf, s.buf[keep:s.end])
		s.base += int64(keep)
		s.pos -= keep
		s.end = n
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= MaxValueBytes {
			s.eof = true
			s.rerr = fmt.Errorf("a value longer than %d bytes at byte %d: larger than servecmp reads (the bound on a trace)", MaxValueBytes, s.base)
			return false
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.eof = true
	s.rerr = io.ErrNoProgress
	return false
}

// byteAt returns the input byte at offset at (>= the read position),
// reading more when needed; at and everything after the hold stay in the
// buffer.
func (s *scanner) byteAt(at int64) (byte, bool) {
	for at-s.base >= int64(s.end) {
		if !s.fill() {
			return 0, false
		}
	}
	return s.buf[at-s.base], true
}

// endErr is the error for input that ends where more is needed.
func (s *scanner) endErr() error {
	if s.rerr != nil {
		return s.rerr
	}
	return errTruncated
}

func (s *scanner) syntaxAt(at int64, msg string) error { return &syntaxError{off: at, msg: msg} }

func (s *scanner) syntax(msg string) error { return s.syntaxAt(s.offset(), msg) }

// next skips white space and returns the next byte without consuming it;
// ok is false at the end of input.
func (s *scanner) next() (c byte, ok bool) {
	for {
		for s.pos < s.end {
			c = s.buf[s.pos]
			if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
				return c, true
			}
			s.pos++
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// expect consumes byte c after white space.
func (s *scanner) expect(c byte) error {
	got, ok := s.next()
	if !ok {
		return s.endErr()
	}
	if got != c {
		return s.syntax(fmt.Sprintf("want %q, found %q", c, got))
	}
	s.pos++
	return nil
}

// str reads a string (after white space) and returns its raw text
// including the quotes, valid until the next read; plain is false when the
// text needs decoding (escapes or non-ASCII bytes).
func (s *scanner) str() (raw []byte, plain bool, err error) {
	c, ok := s.next()
	if !ok {
		return nil, false, s.endErr()
	}
	if c != '"' {
		return nil, false, s.syntax(fmt.Sprintf("want a string, found %q", c))
	}
	start := s.offset()
	release := s.hold(start)
	defer release()
	i := start + 1
	plain = true
	for {
		// fast path: run over ordinary characters inside the buffer
		idx := int(i - s.base)
		for idx < s.end {
			if c := s.buf[idx]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
				break
			}
			idx++
		}
		i = s.base + int64(idx)
		c, ok := s.byteAt(i)
		if !ok {
			s.pos = s.end
			return nil, false, s.endErr()
		}
		switch {
		case c == '"':
			s.pos = int(i + 1 - s.base)
			return s.bytesFrom(start), plain, nil
		case c == '\\':
			plain = false
			e, ok := s.byteAt(i + 1)
			if !ok {
				s.pos = s.end
				return nil, false, s.endErr()
			}
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := int64(2); k < 6; k++ {
					h, ok := s.byteAt(i + k)
					if !ok {
						s.pos = s.end
						return nil, false, s.endErr()
					}
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						s.pos = int(i - s.base)
						return nil, false, s.syntax("bad \\u escape in string")
					}
				}
				i += 6
			default:
				s.pos = int(i - s.base)
				return nil, false, s.syntax("bad escape in string")
			}
			continue
		case c < 0x20:
			s.pos = int(i - s.base)
			return nil, false, s.syntax("control character in string")
		case c >= 0x80:
			plain = false
		}
		i++
	}
}

// strValue reads a string and returns its decoded bytes; for plain strings
// the result aliases the buffer.
func (s *scanner) strValue() ([]byte, error) {
	at := s.offset()
	raw, plain, err := s.str()
	if err != nil {
		return nil, err
	}
	if plain {
		return raw[1 : len(raw)-1], nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, s.syntaxAt(at, "bad escape in string")
	}
	return []byte(v), nil
}

// value consumes one value and returns its raw text, valid until the next
// read.
func (s *scanner) value() ([]byte, error) {
	if _, ok := s.next(); !ok {
		return nil, s.endErr()
	}
	start := s.offset()
	release := s.hold(start)
	defer release()
	if err := s.skip(0); err != nil {
		return nil, err
	}
	return s.bytesFrom(start), nil
}

// skip consumes one value (after white space), checking its syntax.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.syntax("nesting too deep")
	}
	c, ok := s.next()
	if !ok {
		return s.endErr()
	}
	switch {
	case c == '"':
		_, _, err := s.str()
		return err
	case c == '{':
		s.pos++
		c, ok := s.next()
		if !ok {
			return s.endErr()
		}
		if c == '}' {
			s.pos++
			return nil
		}
		for {
			if _, _, err := s.str(); err != nil {
				return err
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if err := s.sep('}'); err != nil {
				if err == errClosed {
					return nil
				}
				return err
			}
		}
	case c == '[':
		s.pos++
		c, ok := s.next()
		if !ok {
			return s.endErr()
		}
		if c == ']' {
			s.pos++
			return nil
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if err := s.sep(']'); err != nil {
				if err == errClosed {
					return nil
				}
				return err
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := s.number()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.syntax(fmt.Sprintf("unexpected %q", c))
}

// errClosed is returned by sep when the container ended.
var errClosed = errors.New("closed")

// sep consumes the ',' between two elements, or the closing byte (then
// returning errClosed).
func (s *scanner) sep(closing byte) error {
	c, ok := s.next()
	if !ok {
		return s.endErr()
	}
	switch c {
	case ',':
		s.pos++
		return nil
	case closing:
		s.pos++
		return errClosed
	}
	return s.syntax(fmt.Sprintf("want ',' or %q, found %q", closing, c))
}

// literal consumes the word lit.
func (s *scanner) literal(lit string) error {
	start := s.offset()
	release := s.hold(start)
	defer release()
	for k := 0; k < len(lit); k++ {
		c, ok := s.byteAt(start + int64(k))
		if !ok {
			s.pos = s.end
			return s.endErr()
		}
		if c != lit[k] {
			return s.syntaxAt(start, "invalid literal")
		}
	}
	s.pos = int(start + int64(len(lit)) - s.base)
	return s.delimited()
}

// delimited checks that a number or literal is not run into more letters
// or digits ("truex", "1x").
func (s *scanner) delimited() error {
	c, ok := s.byteAt(s.offset())
	if !ok {
		return nil
	}
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '+', c == '_':
		return s.syntax(fmt.Sprintf("unexpected %q after value", c))
	}
	return nil
}

// number reads a JSON number (after white space) and returns its text,
// valid until the next read.
func (s *scanner) number() ([]byte, error) {
	start := s.offset()
	release := s.hold(start)
	defer release()
	i := start
	at := func() (byte, bool) { return s.byteAt(i) }
	digits := func() int {
		n := 0
		for {
			c, ok := at()
			if !ok || c < '0' || c > '9' {
				return n
			}
			i++
			n++
		}
	}
	bad := func() ([]byte, error) {
		if _, ok := at(); !ok {
			s.pos = s.end
			return nil, s.endErr()
		}
		s.pos = int(i - s.base)
		return nil, s.syntax("invalid number")
	}
	if c, _ := at(); c == '-' {
		i++
	}
	c, ok := at()
	switch {
	case !ok:
		return bad()
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		digits()
	default:
		return bad()
	}
	if c, ok := at(); ok && c == '.' {
		i++
		if digits() == 0 {
			return bad()
		}
	}
	if c, ok := at(); ok && (c == 'e' || c == 'E') {
		i++
		if c, ok := at(); ok && (c == '+' || c == '-') {
			i++
		}
		if digits() == 0 {
			return bad()
		}
	}
	s.pos = int(i - s.base)
	if err := s.delimited(); err != nil {
		return nil, err
	}
	return s.bytesFrom(start), nil
}
