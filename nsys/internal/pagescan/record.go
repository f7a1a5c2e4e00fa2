package pagescan

import (
	"encoding/binary"
	"math"
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
}

func newRecord(need int) *record {
	return &record{need: need, typ: make([]uint64, need), off: make([]int, need)}
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
	i := 0
	if h != 0 { // a 0 header size is read as no columns, as SQLite does
		if h > maxHeader || h > uint64(len(p)) || h < uint64(m) {
			return malformed("a record header of %d bytes in %d", h, len(p))
		}
		var err error
		if i, err = r.columns(p, m, int(h)); err != nil {
			return err
		}
	}
	for ; i < r.need; i++ {
		r.typ[i] = 0
	}
	return nil
}

// columns reads the serial types in p[hp:h] and returns how many of the
// first r.need positions it filled.
func (r *record) columns(p []byte, hp, h int) (int, error) {
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
				return 0, malformed("a record header ends inside a serial type")
			}
			hp += k
		}
		if i < r.need {
			r.typ[i], r.off[i] = t, int(body)
			i++
		}
		if body += typeLen(t); body > uint64(len(p)) {
			return 0, malformed("a record's columns overrun its %d bytes", len(p))
		}
	}
	if body != uint64(len(p)) {
		return 0, malformed("a record's columns end at %d of its %d bytes", body, len(p))
	}
	return i, nil
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
