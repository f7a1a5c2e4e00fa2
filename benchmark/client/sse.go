package client

import (
	"bytes"
	"fmt"
)

// maxEventBytes bounds one SSE line and one event's data. A real chunk is
// a few hundred bytes; a server that streams without line ends must fail
// its request, not exhaust the client's memory.
const maxEventBytes = 16 << 20

var errEventTooLarge = fmt.Errorf("SSE event or line longer than %d MiB", maxEventBytes>>20)

// sseParser is an incremental Server-Sent Events parser. Bytes are fed in
// whatever pieces the network delivers; an event is dispatched at the blank
// line that ends it, so an event (or a UTF-8 character inside it) split
// across reads is reassembled before anyone looks at it. Lines end in LF or
// CRLF (a lone CR is not a line end). Lines starting with ':' are comments;
// "data" lines are joined with '\n'; "event", "id" and "retry" are ignored;
// other lines are counted as foreign so that a non-SSE body can be
// reported. At end of input a pending line and event are still
// dispatched, so a stream missing its final blank line loses nothing.
type sseParser struct {
	partial []byte // an unterminated line carried over from the last Feed
	data    []byte // the current event's data
	hasData bool
	// foreign counts lines that are neither SSE fields nor comments;
	// firstForeign keeps the start of the first one.
	foreign      int
	firstForeign string
}

// feed parses b and calls emit with each complete event's data. The slice
// passed to emit is only valid during the call. A non-nil error from emit
// stops parsing and is returned.
func (p *sseParser) feed(b []byte, emit func([]byte) error) error {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(p.partial)+len(b) > maxEventBytes {
				return errEventTooLarge
			}
			p.partial = append(p.partial, b...)
			return nil
		}
		if len(p.partial)+i > maxEventBytes {
			return errEventTooLarge
		}
		line := b[:i]
		b = b[i+1:]
		if len(p.partial) > 0 {
			p.partial = append(p.partial, line...)
			line = p.partial
		}
		err := p.line(line, emit)
		p.partial = p.partial[:0]
		if err != nil {
			return err
		}
	}
	return nil
}

// close flushes what is left at end of input.
func (p *sseParser) close(emit func([]byte) error) error {
	if len(p.partial) > 0 {
		line := p.partial
		p.partial = nil
		if err := p.line(line, emit); err != nil {
			return err
		}
	}
	return p.dispatch(emit)
}

func (p *sseParser) dispatch(emit func([]byte) error) error {
	if !p.hasData {
		return nil
	}
	p.hasData = false
	err := emit(p.data)
	p.data = p.data[:0]
	return err
}

func (p *sseParser) line(l []byte, emit func([]byte) error) error {
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	if len(l) == 0 {
		return p.dispatch(emit)
	}
	if l[0] == ':' {
		return nil
	}
	field, value := l, []byte(nil)
	if i := bytes.IndexByte(l, ':'); i >= 0 {
		field, value = l[:i], l[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) {
	case "data":
		if len(p.data)+len(value) > maxEventBytes {
			return errEventTooLarge
		}
		if p.hasData {
			p.data = append(p.data, '\n')
		}
		p.data = append(p.data, value...)
		p.hasData = true
	case "event", "id", "retry":
	default:
		if p.foreign == 0 {
			s := l
			// Kept long enough to scrub a key that straddles the
			// 80 bytes the message shows (the client clips after it
			// scrubs).
			if len(s) > 1024 {
				s = s[:1024]
			}
			p.firstForeign = string(s)
		}
		p.foreign++
	}
	return nil
}
