package tokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// The Precompiled normalizer is SentencePiece's precompiled character
// map (precompiled_charsmap, base64 in tokenizer.json): a little-endian
// uint32 byte size of a trie, the trie, then a blob of NUL-terminated
// replacement strings. The trie is a darts-clone double array over the
// UTF-8 bytes of the keys; each 32-bit unit holds
//
//	bits 0-7   the label (the byte that leads to the unit; bit 31 set
//	           marks a value unit, which no byte label equals)
//	bit  8     has_leaf: the node ends a key; its value unit sits at the
//	           node's base (the child for byte 0)
//	bits 10-30 the offset from the unit's position to its base, shifted
//	           left by 8 more when bit 9 is set
//
// and a value unit's bits 0-30 are the offset of the key's replacement in
// the blob. From a node at position p with offset o, the child for byte
// c is at p^o^c.
//
// Two matching rules use the map:
//
//   - normalizeHF, the tokenizer.json normalizer as the reference library
//     applies it (what servers run): for each extended grapheme cluster
//     shorter than 6 bytes, the shortest key that is a prefix of the
//     cluster replaces the whole cluster; otherwise (no key, or a longer
//     cluster) each character is replaced by its own key's string or
//     kept;
//   - normalizeSPM, SentencePiece's own rule (also llama.cpp's): at each
//     position the longest key that is a prefix of the rest replaces it;
//     without one, one UTF-8 character is copied, and a malformed byte
//     becomes U+FFFD, one byte consumed.
//
// Text that is not valid UTF-8 is first made valid (each malformed byte
// becomes U+FFFD) for normalizeHF, whose reference only sees valid text.

// charsmap is a parsed precompiled_charsmap.
type charsmap struct {
	units []uint32
	blob  string
}

// maxCharsmapBytes bounds the decoded size of a charsmap read from a file.
const maxCharsmapBytes = 64 << 20

func unitHasLeaf(u uint32) bool { return u>>8&1 == 1 }
func unitValue(u uint32) uint32 { return u & (1<<31 - 1) }
func unitLabel(u uint32) uint32 { return u & (1<<31 | 0xFF) }
func unitOffset(u uint32) uint32 {
	return (u >> 10) << ((u & (1 << 9)) >> 6)
}

// precompiled builds the Precompiled normalizer from its base64 charsmap.
func precompiled(b64 string) (normFunc, error) {
	if b64 == "" {
		return nil, nil
	}
	if base64.StdEncoding.DecodedLen(len(b64)) > maxCharsmapBytes {
		return nil, fmt.Errorf("normalizer Precompiled: charsmap of %d base64 bytes exceeds the limit", len(b64))
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("normalizer Precompiled: charsmap is not base64: %v", err)
	}
	m, err := parseCharsmap(data)
	if err != nil {
		return nil, fmt.Errorf("normalizer Precompiled: %v", err)
	}
	return m.normalizeHF, nil
}

// parseCharsmap reads and validates a charsmap: sizes in range, and every
// unit that ends a key (has_leaf, not itself a value unit) has its value
// unit inside the array and a replacement offset at the start of a
// character inside the blob, so that lookups never leave the arrays and
// always give valid UTF-8. (A lookup walks one unit per key byte, so a
// damaged trie cannot make it loop.)
func parseCharsmap(data []byte) (*charsmap, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("charsmap of %d bytes has no trie size", len(data))
	}
	size := binary.LittleEndian.Uint32(data)
	if size == 0 || size%4 != 0 || uint64(size) > uint64(len(data)-4) {
		return nil, fmt.Errorf("charsmap trie size %d does not fit its %d bytes", size, len(data))
	}
	m := &charsmap{units: make([]uint32, size/4), blob: string(data[4+size:])}
	for i := range m.units {
		m.units[i] = binary.LittleEndian.Uint32(data[4+4*i:])
	}
	if !utf8.ValidString(m.blob) {
		return nil, fmt.Errorf("charsmap replacement strings are not valid UTF-8")
	}
	for i, u := range m.units {
		if u>>31 == 1 || !unitHasLeaf(u) {
			continue
		}
		base := uint32(i) ^ unitOffset(u)
		if base >= uint32(len(m.units)) || m.units[base]>>31 == 0 {
			return nil, fmt.Errorf("charsmap trie: unit %d ends a key but has no value unit", i)
		}
		if off := unitValue(m.units[base]); off >= uint32(len(m.blob)) || !utf8.RuneStart(m.blob[off]) {
			return nil, fmt.Errorf("charsmap trie: replacement offset %d outside the %d-byte blob or inside a character", off, len(m.blob))
		}
	}
	return m, nil
}

// prefixes calls fn(length, offset) for each key that is a prefix of key,
// shortest first, until fn returns false.
func (m *charsmap) prefixes(key string, fn func(n int, off uint32) bool) {
	pos := unitOffset(m.units[0])
	for i := 0; i < len(key) && key[i] != 0; i++ {
		pos ^= uint32(key[i])
		if pos >= uint32(len(m.units)) {
			return
		}
		u := m.units[pos]
		if unitLabel(u) != uint32(key[i]) {
			return
		}
		pos ^= unitOffset(u)
		if unitHasLeaf(u) && pos < uint32(len(m.units)) && !fn(i+1, unitValue(m.units[pos])) {
			return
		}
	}
}

// replacement is the NUL-terminated string at off in the blob.
func (m *charsmap) replacement(off uint32) string {
	s := m.blob[off:]
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

// shortest is the replacement of the shortest key that is a prefix of s.
func (m *charsmap) shortest(s string) (string, bool) {
	var r string
	found := false
	m.prefixes(s, func(_ int, off uint32) bool {
		r, found = m.replacement(off), true
		return false
	})
	return r, found
}

// normalizeHF applies the map as tokenizer.json's reference does.
func (m *charsmap) normalizeHF(s string) string {
	s = validUTF8(s)
	var b strings.Builder
	b.Grow(len(s))
	state := -1
	for len(s) > 0 {
		var g string
		g, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		if len(g) < 6 {
			if r, ok := m.shortest(g); ok {
				b.WriteString(r)
				continue
			}
		}
		for i, c := range g {
			ch := g[i : i+utf8.RuneLen(c)]
			if r, ok := m.shortest(ch); ok {
				b.WriteString(r)
			} else {
				b.WriteString(ch)
			}
		}
	}
	return b.String()
}

// normalizeSPM applies the map as SentencePiece does.
func (m *charsmap) normalizeSPM(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		n, off := 0, uint32(0)
		m.prefixes(s[i:], func(k int, o uint32) bool {
			n, off = k, o
			return true
		})
		if n > 0 {
			b.WriteString(m.replacement(off))
			i += n
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w <= 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		b.WriteString(s[i : i+w])
		i += w
	}
	return b.String()
}

// validUTF8 replaces each malformed byte of s by U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w <= 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		b.WriteString(s[i : i+w])
		i += w
	}
	return b.String()
}
