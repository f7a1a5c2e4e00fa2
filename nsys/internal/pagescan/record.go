package pagescan

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
)

// smallTypeLen is the body length of each one-byte serial type.
var smallTypeLen = func() (t [128]uint8) {
	copy(t[:], []uint8{0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0})
	for i := 12; i < 128; i++ {
		t[i] = uint8((i - 12) / 2)
	}
	return
}()

// typeLen is the body length of serial type t.
func typeLen(t uint64) uint64 {
	if t < 128 {
		return uint64(smallTypeLen[t])
	}
	return (t - 12) / 2
}

// maxHeader is the largest record header SQLite accepts.
const maxHeader = 98307

// record is one parsed record: the serial type and body offset of each
// column position up to need (positions past the record's end read as
// NULL, type 0).
type record struct {
	need int
	typ  []uint64
	off  []int
	data []byte
	// Rows of one table carry few distinct headers (the serial types of
	// their values): the types and offsets of recent ones are kept, by a
	// hash of the header, so that a row with a header seen before skips
	// the parse. typ and off then point into the cache.
	cache [cacheSlots]parsed
	last  *parsed
	none  parsed // the types (all NULL) of a record without columns
}

// cacheSlots is the number of headers a record keeps.
const cacheSlots = 64

// parsed is one header and what it gives: the types and offsets of the
// needed positions and the payload length it implies.
type parsed struct {
	hdr   []byte
	typ   []uint64
	off   []int
	total int
}

func newRecord(need int) *record {
	r := &record{need: need}
	for i := range r.cache {
		r.cache[i] = parsed{typ: make([]uint64, need), off: make([]int, need), total: -1}
	}
	r.last = &r.cache[0]
	r.none = parsed{typ: make([]uint64, need), off: make([]int, need)}
	return r
}

// parse reads the header of payload p. A header that overruns its
// declared size, or whose columns do not end exactly at the payload's
// end, is malformed, as SQLite finds.
func (r *record) parse(p []byte) error {
	r.data = p
	h, m := varint(p)
	if m == 0 {
		return malformed("a record without a header")
	}
	if h > maxHeader || h > uint64(len(p)) || h < uint64(m) && h != 0 {
		return malformed("a record header of %d bytes in %d", h, len(p))
	}
	if h == 0 { // read as no columns, as SQLite does
		r.typ, r.off = r.none.typ, r.none.off
		return nil
	}
	hdr := p[:h]
	e := r.last
	if !bytes.Equal(e.hdr, hdr) || e.total < 0 {
		e = &r.cache[slot(hdr)]
		if !bytes.Equal(e.hdr, hdr) || e.total < 0 {
			if err := r.fill(e, p, m, int(h)); err != nil {
				return err
			}
		}
		r.last = e
	}
	if e.total != len(p) {
		return malformed("a record's columns end at %d of its %d bytes", e.total, len(p))
	}
	r.typ, r.off = e.typ, e.off
	return nil
}

// slot returns the cache slot of header h, a hash of all its bytes.
func slot(h []byte) int {
	const m = 0x9E3779B97F4A7C15
	k := uint64(len(h))
	for len(h) >= 8 {
		k = (k ^ binary.LittleEndian.Uint64(h)) * m
		h = h[8:]
	}
	for _, c := range h {
		k = (k ^ uint64(c)) * m
	}
	return int(bits.RotateLeft64(k, 17) * m >> (64 - 6))
}

// fill parses the header p[:h] (whose size varint takes m bytes) into e.
func (r *record) fill(e *parsed, p []byte, m, h int) error {
	e.total = -1
	e.hdr = append(e.hdr[:0], p[:h]...)
	r.typ, r.off = e.typ, e.off
	i, total, err := r.columns(p, m, h)
	if err != nil {
		return err
	}
	for ; i < r.need; i++ {
		e.typ[i] = 0
	}
	e.total = total
	return nil
}

// columns reads the serial types in p[hp:h] and returns how many of the
// first r.need positions it filled and where the columns end.
func (r *record) columns(p []byte, hp, h int) (int, int, error) {
	body := uint64(h)
	i := 0
	for hp < h {
		var t uint64
		if c := p[hp]; c < 0x80 {
			t = uint64(c)
			hp++
		} else {
			var k int
			if t, k = varint(p[hp:h]); k == 0 {
				return 0, 0, malformed("a record header ends inside a serial type")
			}
			hp += k
		}
		if i < r.need {
			r.typ[i], r.off[i] = t, int(body)
			i++
		}
		if body += typeLen(t); body > maxPayload {
			return 0, 0, malformed("a record's columns overrun %d bytes", maxPayload)
		}
	}
	return i, int(body), nil
}

// isNull reports whether serial type t is a NULL (10 and 11 read as NULL
// in SQLite).
func isNull(t uint64) bool { return t == 0 || t == 10 || t == 11 }

// intAt returns the integer of serial type t at data[off:]; ok is false
// for a value that is not an integer.
func intAt(data []byte, t uint64, off int) (int64, bool) {
	switch t {
	case 1:
		return int64(int8(data[off])), true
	case 2:
		return int64(int16(binary.BigEndian.Uint16(data[off:]))), true
	case 3:
		return int64(int32(uint32(data[off])<<24|uint32(data[off+1])<<16|uint32(data[off+2])<<8) >> 8), true
	case 4:
		return int64(int32(binary.BigEndian.Uint32(data[off:]))), true
	case 5:
		return int64(uint64(binary.BigEndian.Uint16(data[off:]))<<48|uint64(binary.BigEndian.Uint32(data[off+2:]))<<16) >> 16, true
	case 6:
		return int64(binary.BigEndian.Uint64(data[off:])), true
	case 8:
		return 0, true
	case 9:
		return 1, true
	}
	return 0, false
}

// Kind is the storage class of a Value.
type Kind uint8

// Storage classes.
const (
	Null Kind = iota
	Int
	Float
	Text
	Blob
)

// Value is one column value. Bytes (text or blob) is valid only during
// the call of the function it was passed to.
type Value struct {
	Kind  Kind
	Int   int64
	Float float64
	Bytes []byte
}

// value returns position i's value. A stored NaN reads as NULL, as in
// SQLite.
func (r *record) value(i int) Value {
	t, off := r.typ[i], r.off[i]
	if v, ok := intAt(r.data, t, off); ok {
		return Value{Kind: Int, Int: v}
	}
	switch {
	case t == 7:
		f := math.Float64frombits(binary.BigEndian.Uint64(r.data[off:]))
		if math.IsNaN(f) {
			return Value{}
		}
		return Value{Kind: Float, Float: f}
	case t >= 12:
		b := r.data[off : off+int(typeLen(t))]
		if t&1 == 1 {
			return Value{Kind: Text, Bytes: b}
		}
		return Value{Kind: Blob, Bytes: b}
	}
	return Value{}
}
