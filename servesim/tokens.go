package servesim

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"strings"
)

const firstTokenID = 3

// mix is the splitmix64 finaliser: a cheap, well-spread 64-bit hash step.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// Salts separate the independent per-request decisions.
const (
	saltToken uint64 = iota + 1
	saltEOS
	saltError
	saltMidErr
	saltStall
	saltReset
	saltWhere
	saltLogprob
)

func decide(key uint64, salt uint64, p float64) bool {
	return p > 0 && unit(mix(key^mix(salt))) < p
}

// tokenAt is the output token id at position pos of the sequence keyed
// by key.
func tokenAt(key uint64, pos int, vocab int) int {
	h := mix(key ^ mix(uint64(pos)<<8|saltToken))
	return firstTokenID + int(h%uint64(vocab-firstTokenID))
}

// eosAt reports whether position pos carries the pseudo-EOS.
func eosAt(key uint64, pos int, p float64) bool {
	return p > 0 && unit(mix(key^mix(uint64(pos)<<8|saltEOS))) < p
}

// fakeLogprob is a deterministic, plausible-looking log probability in
// (-4, 0] for candidate rank r of position pos.
func fakeLogprob(key uint64, pos, rank int) float64 {
	base := unit(mix(key^mix(uint64(pos)<<8|saltLogprob))) * 2
	return -math.Round((base+float64(rank)*0.7)*1e4) / 1e4
}

// words holds the pseudo-word for each token id.
type words struct{ text []string }

var syllables = []string{"ba", "ke", "li", "mo", "nu", "pa", "re", "si", "to", "vu", "da", "fe", "gi", "ho", "ju", "ra", "se", "ti", "lo", "mu"}

func newWords(vocab int) *words {
	w := &words{text: make([]string, vocab)}
	var b strings.Builder
	for id := range vocab {
		b.Reset()
		b.WriteByte(' ')
		n := id
		for {
			b.WriteString(syllables[n%len(syllables)])
			n /= len(syllables)
			if n == 0 {
				break
			}
		}
		w.text[id] = b.String()
	}
	return w
}

// word is the text of token id, a leading space included.
func (w *words) word(id int) string {
	if id >= 0 && id < len(w.text) {
		return w.text[id]
	}
	return " unk"
}

// promptKey hashes a prompt's token ids.
func hashTokens(ids []int) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, id := range ids {
		binary.LittleEndian.PutUint64(b[:], uint64(id))
		h.Write(b[:])
	}
	return h.Sum64()
}

// textTokens tokenises text one token per whitespace-separated word; ids
// are a hash of the word.
func textTokens(s string, vocab int) []int {
	fields := strings.Fields(s)
	ids := make([]int, len(fields))
	for i, f := range fields {
		h := fnv.New64a()
		h.Write([]byte(f))
		ids[i] = firstTokenID + int(h.Sum64()%uint64(vocab-firstTokenID))
	}
	return ids
}

// chatTokens tokenises a chat: 3 template tokens per message around its
// role and content words, and 1 token opening the reply.
func chatTokens(msgs []chatMessage, vocab int) []int {
	var ids []int
	for _, m := range msgs {
		ids = append(ids, 1)
		ids = append(ids, textTokens(m.Role, vocab)...)
		ids = append(ids, 2)
		ids = append(ids, textTokens(m.contentText(), vocab)...)
		ids = append(ids, 2)
	}
	return append(ids, 1)
}
