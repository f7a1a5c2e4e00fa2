package tokenizer

import "unicode/utf8"

// The byte-level alphabet of GPT-2 style tokenizers: every byte maps to one
// printable rune, so that any byte string is a string of vocabulary
// characters. Printable Latin-1 bytes map to themselves; the rest map to
// U+0100 upwards in byte order.
var (
	byteToRune [256]rune
	runeToByte = map[rune]byte{}
)

func init() {
	next := rune(256)
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = next
			next++
		}
		runeToByte[byteToRune[b]] = byte(b)
	}
}

// byteLevelString maps raw bytes to their byte-level runes.
func byteLevelString(s string) string {
	buf := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		buf = utf8.AppendRune(buf, byteToRune[s[i]])
	}
	return string(buf)
}

// appendByteLevelDecoded maps a vocabulary piece back to raw bytes; runes
// outside the byte-level alphabet are kept as UTF-8.
func appendByteLevelDecoded(dst []byte, piece string) []byte {
	for _, r := range piece {
		if b, ok := runeToByte[r]; ok {
			dst = append(dst, b)
		} else {
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst
}
