package pagescan

import "encoding/binary"

// varint decodes the SQLite variable-length integer at the start of b
// (1 to 9 bytes, big-endian, 7 bits a byte, all 8 bits of a ninth) and
// returns it with its length; the length is 0 when b ends first.
func varint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	var v uint64
	for i := 0; i < 8; i++ {
		if i >= len(b) {
			return 0, 0
		}
		c := b[i]
		v = v<<7 | uint64(c&0x7f)
		if c < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}

// leaf visits the rows of leaf page p, whose rowids must lie within s and
// rise strictly from the last row met.
func (w *walker) leaf(p []byte, s span) error {
	h := hdrOffset(s.page)
	n := int(binary.BigEndian.Uint16(p[h+3:]))
	ptrs := h + 8
	if ptrs+2*n > w.f.usable {
		return malformed("page %d: %d cells do not fit", s.page, n)
	}
	for i := range n {
		off := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
		if off < ptrs+2*n || off >= w.f.usable {
			return malformed("page %d: cell %d at offset %d", s.page, i, off)
		}
		c := p[off:w.f.usable]
		size, m1 := varint(c)
		key, m2 := varint(c[m1:])
		if m1 == 0 || m2 == 0 {
			return malformed("page %d: cell %d truncated", s.page, i)
		}
		rowid := int64(key)
		if rowid < s.min || rowid > s.max || w.any && rowid <= w.last {
			return malformed("page %d: rowid %d out of order", s.page, rowid)
		}
		w.last, w.any = rowid, true
		if rowid < w.lo {
			continue
		}
		if rowid > w.hi {
			return errDone
		}
		payload, err := w.payload(c[m1+m2:], size, s.page)
		if err != nil {
			return err
		}
		if err := w.row(rowid, payload); err != nil {
			return err
		}
	}
	return nil
}

// payload returns the payload of size bytes whose local part starts at
// c: c itself, or the local part and its overflow chain gathered.
func (w *walker) payload(c []byte, size uint64, page uint32) ([]byte, error) {
	u := uint64(w.f.usable)
	x := u - 35 // the most a table leaf keeps on the page
	if size <= x {
		if size > uint64(len(c)) {
			return nil, malformed("page %d: a %d-byte row does not fit", page, size)
		}
		return c[:size], nil
	}
	if size > maxPayload {
		return nil, malformed("page %d: a %d-byte row", page, size)
	}
	m := (u-12)*32/255 - 23
	local := m + (size-m)%(u-4)
	if local > x {
		local = m
	}
	if local+4 > uint64(len(c)) {
		return nil, malformed("page %d: a row's local part does not fit", page)
	}
	w.ovf = append(w.ovf[:0], c[:local]...)
	return w.overflow(binary.BigEndian.Uint32(c[local:]), size, page)
}

// overflow appends the overflow chain starting at page next to w.ovf
// until it holds size bytes.
func (w *walker) overflow(next uint32, size uint64, page uint32) ([]byte, error) {
	if w.opg == nil {
		w.opg = make([]byte, w.f.pageSize)
	}
	pg := w.opg
	room := w.f.usable - 4
	for uint64(len(w.ovf)) < size {
		if next == 0 {
			return nil, malformed("page %d: overflow chain ends early", page)
		}
		if err := w.count(1); err != nil {
			return nil, err
		}
		if err := w.f.readPages(next, 1, pg); err != nil {
			return nil, err
		}
		take := min(uint64(room), size-uint64(len(w.ovf)))
		w.ovf = append(w.ovf, pg[4:4+take]...)
		next = binary.BigEndian.Uint32(pg)
	}
	return w.ovf, nil
}
