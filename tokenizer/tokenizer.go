package tokenizer

import (
	"sort"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Kind is the tokenizer family.
type Kind int

const (
	// ByteLevelBPE is GPT-2 style BPE over a byte-to-rune alphabet.
	ByteLevelBPE Kind = iota + 1
	// SentencePieceBPE is BPE over UTF-8 characters with "▁" for spaces and
	// byte fallback tokens <0xNN>.
	SentencePieceBPE
	// WordPiece is BERT-style greedy longest-match WordPiece.
	WordPiece
)

func (k Kind) String() string {
	switch k {
	case ByteLevelBPE:
		return "byte-level BPE"
	case SentencePieceBPE:
		return "SentencePiece BPE"
	case WordPiece:
		return "WordPiece"
	}
	return "unknown"
}

const spaceMark = "▁" // U+2581, SentencePiece's visible space

// Tokenizer encodes text to token ids and back. It is safe for concurrent
// use.
type Tokenizer struct {
	path string
	hash string
	kind Kind

	pieces []string       // id → piece text (vocabulary form)
	vocab  map[string]int // piece text → id

	// Merge rules: either ranked pairs (merges, key left<<32|right, value
	// rank<<32|merged id) or scores of merged pieces (scores, higher wins).
	merges map[uint64]uint64
	scores []float32

	pre          pipeline // byte-level pre-tokenizer
	nfc          bool     // NFC-normalize before anything else
	ignoreMerges bool     // a piece that is itself a token is emitted whole
	prefixSpace  bool     // SentencePiece: prepend "▁" to non-empty text
	metaspace    string   // Metaspace pre-tokenizer: "always" or "first" (prepend unless already "▁")
	splitSpaces  bool     // SentencePiece: no merge can cross "x▁", so words may be cached separately
	byteIDs      [256]int // byte-level: id of each byte's rune; SentencePiece: <0xNN> ids (-1 if none)
	hasBytes     bool
	unk          int

	added      []addedToken // matched in raw text before anything else
	addedBy    map[byte][]addedToken
	addedFirst [256]bool // first bytes of the added tokens
	special    map[string]int
	isAdded    map[int]bool
	maxPiece   int

	mu    sync.Mutex
	cache map[string][]int

	chatTemplate string
}

type addedToken struct {
	text           string
	id             int
	lstrip, rstrip bool // the match also takes the whitespace before/after it
}

// maxCache bounds the word cache; it is cleared when full.
const maxCache = 1 << 18

// Path is the file the tokenizer was loaded from.
func (t *Tokenizer) Path() string { return t.path }

// Hash is the hex sha256 of the tokenizer file's bytes.
func (t *Tokenizer) Hash() string { return t.hash }

// Kind is the tokenizer family.
func (t *Tokenizer) Kind() Kind { return t.kind }

// VocabSize is the number of ids (one more than the largest id).
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// TokenID returns the id of a special token by role ("bos", "eos", "unk",
// "pad") or of any token by its exact text.
func (t *Tokenizer) TokenID(name string) (int, bool) {
	if id, ok := t.special[name]; ok {
		return id, true
	}
	id, ok := t.vocab[name]
	return id, ok
}

// Count is the number of tokens Encode returns.
func (t *Tokenizer) Count(text string) int { return len(t.Encode(text)) }

// Encode tokenizes text without adding any special token (no BOS/EOS).
// Added tokens appearing verbatim in the text are matched first.
func (t *Tokenizer) Encode(text string) []int {
	var out []int
	for first := true; len(text) > 0; first = false {
		pos, tok := t.nextAdded(text)
		if pos < 0 {
			return t.encodeSegment(text, first, out)
		}
		before, after := text[:pos], text[pos+len(tok.text):]
		if tok.lstrip {
			before = strings.TrimRightFunc(before, unicode.IsSpace)
		}
		if tok.rstrip {
			after = strings.TrimLeftFunc(after, unicode.IsSpace)
		}
		out = t.encodeSegment(before, first, out)
		out = append(out, tok.id)
		text = after
	}
	return out
}

// nextAdded finds the leftmost (then longest) added token in s.
func (t *Tokenizer) nextAdded(s string) (int, addedToken) {
	if len(t.added) == 0 {
		return -1, addedToken{}
	}
	for i := 0; i < len(s); i++ {
		if !t.addedFirst[s[i]] {
			continue
		}
		for _, a := range t.addedBy[s[i]] { // longest first
			if strings.HasPrefix(s[i:], a.text) {
				return i, a
			}
		}
	}
	return -1, addedToken{}
}

// encodeSegment encodes text between added tokens; first says whether it
// starts the text.
func (t *Tokenizer) encodeSegment(s string, first bool, out []int) []int {
	if len(s) == 0 {
		return out
	}
	if t.nfc {
		s = norm.NFC.String(s)
	}
	switch t.kind {
	case ByteLevelBPE:
		t.pre.pieces(s, func(w string) { out = t.encodeWord(w, out) })
	case SentencePieceBPE:
		s = strings.ReplaceAll(s, " ", spaceMark)
		if t.prefixSpace && t.prependHere(s, first) {
			s = spaceMark + s
		}
		if !t.splitSpaces {
			return t.encodeWord(s, out)
		}
		forEachSPWord(s, func(w string) { out = t.encodeWord(w, out) })
	case WordPiece:
		out = t.encodeWordPiece(s, out)
	}
	return out
}

// prependHere says whether "▁" goes before a segment: always with a
// Prepend normalizer; with Metaspace only if the segment does not start
// with "▁" already (and, for prepend_scheme "first", only at the start).
func (t *Tokenizer) prependHere(s string, first bool) bool {
	switch t.metaspace {
	case "":
		return true
	case "first":
		return first && !strings.HasPrefix(s, spaceMark)
	}
	return !strings.HasPrefix(s, spaceMark)
}

// forEachSPWord cuts s before every "▁" that follows another character
// than "▁".
func forEachSPWord(s string, fn func(string)) {
	start := 0
	for i := 1; i < len(s); i++ {
		if strings.HasPrefix(s[i:], spaceMark) && !strings.HasSuffix(s[:i], spaceMark) {
			fn(s[start:i])
			start = i
		}
	}
	fn(s[start:])
}

// encodeWord appends the ids of one pre-token, through the cache.
func (t *Tokenizer) encodeWord(w string, out []int) []int {
	t.mu.Lock()
	ids, ok := t.cache[w]
	t.mu.Unlock()
	if !ok {
		ids = t.bpeWord(w)
		t.mu.Lock()
		if len(t.cache) >= maxCache {
			clear(t.cache)
		}
		t.cache[w] = ids
		t.mu.Unlock()
	}
	return append(out, ids...)
}

// bpeWord runs BPE on one word (raw bytes for byte-level, normalized text
// for SentencePiece).
func (t *Tokenizer) bpeWord(w string) []int {
	if t.kind == ByteLevelBPE && t.ignoreMerges {
		if id, ok := t.vocab[byteLevelString(w)]; ok {
			return []int{id}
		}
	}
	syms := t.initialSymbols(w)
	var h pairHeap
	syms = mergeWord(w, syms, t.pairFunc(), &h)
	ids := make([]int, 0, len(syms))
	for _, s := range syms {
		if s.id >= 0 {
			ids = append(ids, int(s.id))
			continue
		}
		ids = t.fallback(w[s.start:s.end], ids)
	}
	return ids
}

// fallback encodes a span that has no token: byte tokens, else unk.
func (t *Tokenizer) fallback(span string, ids []int) []int {
	if t.hasBytes {
		for i := 0; i < len(span); i++ {
			if id := t.byteIDs[span[i]]; id >= 0 {
				ids = append(ids, id)
			}
		}
		return ids
	}
	if t.unk >= 0 && (len(ids) == 0 || ids[len(ids)-1] != t.unk) {
		ids = append(ids, t.unk)
	}
	return ids
}

func (t *Tokenizer) initialSymbols(w string) []symbol {
	syms := make([]symbol, 0, len(w))
	if t.kind == ByteLevelBPE {
		for i := 0; i < len(w); i++ {
			syms = append(syms, symbol{id: int32(t.byteIDs[w[i]]), start: int32(i), end: int32(i + 1)})
		}
		link(syms)
		return syms
	}
	for i := 0; i < len(w); {
		_, n := at(w, i)
		id := int32(-1)
		if v, ok := t.vocab[w[i:i+n]]; ok {
			id = int32(v)
		}
		if id < 0 && t.merges != nil && t.hasBytes {
			// Ranked merges work on ids: a character without a token
			// becomes its byte tokens, each its own symbol.
			for k := i; k < i+n; k++ {
				syms = append(syms, symbol{id: int32(t.byteIDs[w[k]]), start: int32(k), end: int32(k + 1)})
			}
		} else {
			syms = append(syms, symbol{id: id, start: int32(i), end: int32(i + n)})
		}
		i += n
	}
	link(syms)
	return syms
}

func (t *Tokenizer) pairFunc() pairFunc {
	if t.merges != nil {
		return func(_ string, a, b *symbol) (int32, float64, bool) {
			if a.id < 0 || b.id < 0 {
				return 0, 0, false
			}
			v, ok := t.merges[uint64(a.id)<<32|uint64(b.id)]
			return int32(uint32(v)), float64(v >> 32), ok
		}
	}
	return func(w string, a, b *symbol) (int32, float64, bool) {
		if int(b.end-a.start) > t.maxPiece {
			return 0, 0, false
		}
		id, ok := t.vocab[w[a.start:b.end]]
		if !ok {
			return 0, 0, false
		}
		return int32(id), -float64(t.scores[id]), true
	}
}

// Decode turns ids back into text. Unknown ids are skipped.
func (t *Tokenizer) Decode(ids []int) string {
	var b []byte
	for _, id := range ids {
		if id < 0 || id >= len(t.pieces) {
			continue
		}
		p := t.pieces[id]
		switch {
		case t.isAdded[id]:
			b = append(b, p...)
		case t.kind == ByteLevelBPE:
			b = appendByteLevelDecoded(b, p)
		case t.kind == WordPiece:
			b = appendWordPiece(b, p)
		default:
			if c, ok := byteToken(p); ok {
				b = append(b, c)
			} else {
				b = append(b, strings.ReplaceAll(p, spaceMark, " ")...)
			}
		}
	}
	s := string(b)
	if (t.kind == SentencePieceBPE && t.prefixSpace) || t.kind == WordPiece {
		s = strings.TrimPrefix(s, " ")
	}
	return s
}

// byteToken parses a byte fallback piece "<0xNN>".
func byteToken(p string) (byte, bool) {
	if len(p) != 6 || p[:3] != "<0x" || p[5] != '>' {
		return 0, false
	}
	var v byte
	for _, c := range []byte(p[3:5]) {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | (c - '0')
		case c >= 'A' && c <= 'F':
			v = v<<4 | (c - 'A' + 10)
		case c >= 'a' && c <= 'f':
			v = v<<4 | (c - 'a' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}

// finish builds the derived tables once pieces, vocab and the model fields
// are set.
func (t *Tokenizer) finish() {
	t.cache = make(map[string][]int)
	if t.isAdded == nil {
		t.isAdded = map[int]bool{}
	}
	for _, a := range t.added {
		t.isAdded[a.id] = true
	}
	sort.SliceStable(t.added, func(i, j int) bool { return len(t.added[i].text) > len(t.added[j].text) })
	t.addedBy = map[byte][]addedToken{}
	for _, a := range t.added {
		if a.text == "" {
			continue
		}
		c := a.text[0]
		t.addedFirst[c] = true
		t.addedBy[c] = append(t.addedBy[c], a)
	}
	for _, p := range t.pieces {
		t.maxPiece = max(t.maxPiece, len(p))
	}
	if t.kind == SentencePieceBPE {
		t.splitSpaces = !anyInnerSpaceMark(t.pieces)
	}
}

// anyInnerSpaceMark reports whether some piece has "▁" right after another
// character than "▁"; if none has, BPE can never merge across such a point.
func anyInnerSpaceMark(pieces []string) bool {
	for _, p := range pieces {
		for i := 1; i < len(p); i++ {
			if strings.HasPrefix(p[i:], spaceMark) && !strings.HasSuffix(p[:i], spaceMark) {
				return true
			}
		}
	}
	return false
}

// ChatTemplate is the chat template found next to a tokenizer.json (in
// tokenizer_config.json), or "".
func (t *Tokenizer) ChatTemplate() string { return t.chatTemplate }
