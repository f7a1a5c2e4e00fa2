package tokenizer

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Kind is the tokenizer family.
type Kind int

const (
	// ByteLevelBPE is GPT-2 style BPE over a byte-to-rune alphabet.
	ByteLevelBPE Kind = iota + 1
	// SentencePieceBPE is BPE over UTF-8 characters (SentencePiece style:
	// "▁" for spaces, byte fallback tokens <0xNN>).
	SentencePieceBPE
	// WordPiece is BERT-style greedy longest-match WordPiece.
	WordPiece
	// Unigram is the SentencePiece unigram model (Viterbi over scores).
	Unigram
)

func (k Kind) String() string {
	switch k {
	case ByteLevelBPE:
		return "byte-level BPE"
	case SentencePieceBPE:
		return "SentencePiece BPE"
	case WordPiece:
		return "WordPiece"
	case Unigram:
		return "Unigram"
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
	uni    *unigramModel
	wp     *wordPieceModel // tokenizer.json WordPiece; nil for GGUF's

	norm         normFunc // normalizer; nil is none
	nfc          bool     // the normalizer includes NFC
	pre          pipeline // pre-tokenizer steps
	ignoreMerges bool     // a piece that is itself a token is emitted whole
	splitSpaces  bool     // character BPE: words may be cut before "▁" (see spaceCut) and cached separately
	spaceJoin    []rune   // runes other than "▁" that some piece has right before a "▁"
	joinBytes    bool     // some piece has ">▁": a byte token <0xNN> may join the "▁" after it
	byteIDs      [256]int // byte-level: id of each byte's rune; otherwise <0xNN> ids (-1 if none)
	hasBytes     bool     // byte fallback
	unk          int
	fuseUnk      bool

	rawAdded  *addedSet // matched in the raw text
	normAdded *addedSet // matched in normalized text
	special   map[string]int
	isAdded   map[int]bool
	maxPiece  int
	dec       decoder
	post      postProcessor

	mu    sync.Mutex
	cache map[string][]int

	failure atomic.Pointer[error] // the first regex failure (Err)

	chatTemplate string
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

// roles are the special-token roles TokenID answers by name.
var roles = map[string]bool{"bos": true, "eos": true, "unk": true, "pad": true}

// TokenID returns the id of a special token by role ("bos", "eos", "unk",
// "pad": only when the file names one, never an ordinary word spelt like
// the role) or of any token by its exact text.
func (t *Tokenizer) TokenID(name string) (int, bool) {
	if roles[name] {
		id, ok := t.special[name]
		return id, ok
	}
	id, ok := t.vocab[name]
	return id, ok
}

// Piece is the vocabulary text of id ("" when out of range).
func (t *Tokenizer) Piece(id int) string {
	if id < 0 || id >= len(t.pieces) {
		return ""
	}
	return t.pieces[id]
}

// Count is the number of tokens Encode returns.
func (t *Tokenizer) Count(text string) int { return len(t.Encode(text)) }

// Encode tokenizes text without adding any special token (no BOS/EOS).
// Added tokens appearing verbatim in the text are matched first. Where a
// pre-tokenizer regex exceeds its bounds on a piece, the piece is encoded
// unsplit and the failure is kept for Err; EncodeChecked returns it.
func (t *Tokenizer) Encode(text string) []int {
	ids, _ := t.EncodeChecked(text)
	return ids
}

// EncodeChecked is Encode that also returns the failure of a
// pre-tokenizer regex on this text (the file and the pattern named); the
// ids are then not the reference's.
func (t *Tokenizer) EncodeChecked(text string) ([]int, error) {
	var out []int
	failed := ""
	t.rawAdded.splitAdded(text, func(seg string, off int, tok *addedToken) {
		if tok != nil {
			out = append(out, tok.id)
			return
		}
		if t.norm != nil {
			seg = t.norm(seg)
		}
		t.normAdded.splitAdded(seg, func(s string, off2 int, tok *addedToken) {
			if tok != nil {
				out = append(out, tok.id)
				return
			}
			var f string
			if out, f = t.encodeSegment(s, off == 0 && off2 == 0, out); failed == "" {
				failed = f
			}
		})
	})
	if failed == "" {
		return out, nil
	}
	regexFailures.Add(1)
	err := fmt.Errorf("tokenizer %s: pre-tokenizer pattern %q exceeded the regex bounds (backtracking stack of %d slots or %v) on this text; the piece was left unsplit, so the ids may differ from the reference",
		t.path, failed, maxRegexStack, regexTimeout)
	t.failure.CompareAndSwap(nil, &err)
	return out, err
}

// CountChecked is Count with EncodeChecked's error.
func (t *Tokenizer) CountChecked(text string) (int, error) {
	ids, err := t.EncodeChecked(text)
	return len(ids), err
}

// Err is the first failure of a pre-tokenizer regex in any Encode or
// Count so far (nil if none): counts made since may be wrong.
func (t *Tokenizer) Err() error {
	if p := t.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// EncodeSpecial is Encode with the special tokens the file's
// post-processor adds around a single text (BOS, CLS/SEP, …).
func (t *Tokenizer) EncodeSpecial(text string) []int {
	ids := append([]int(nil), t.post.before...)
	ids = append(ids, t.Encode(text)...)
	return append(ids, t.post.after...)
}

// encodeSegment encodes normalized text between added tokens; first says
// whether it starts the text. failed is the pattern of a pre-tokenizer
// regex that exceeded its bounds, or "".
func (t *Tokenizer) encodeSegment(s string, first bool, out []int) (ids []int, failed string) {
	if len(s) == 0 {
		return out, ""
	}
	failed = t.pre.run(s, first, func(w string) {
		switch {
		case t.kind == WordPiece && t.wp == nil:
			out = t.encodeWordPiece(w, out)
		case t.kind == SentencePieceBPE && t.splitSpaces:
			t.forEachSPWord(w, func(x string) { out = t.encodeWord(x, out) })
		default:
			out = t.encodeWord(w, out)
		}
	})
	return out, failed
}

// forEachSPWord cuts s before every "▁" where no merge can join the
// symbol before it to the "▁" (spaceCut) and calls fn for each part.
func (t *Tokenizer) forEachSPWord(s string, fn func(string)) {
	start := 0
	for i := 1; i < len(s); i++ {
		if strings.HasPrefix(s[i:], spaceMark) && t.spaceCut(s[:i]) {
			fn(s[start:i])
			start = i
		}
	}
	fn(s[start:])
}

// spaceCut reports whether BPE can never merge across the point between
// before and a following "▁". Merged pieces are concatenations of the
// pieces they join, so a merge across the point makes a piece holding the
// last character of the left symbol's piece right before "▁": the
// character c that ends before when c has a token, else ">" (the end of
// its byte fallback token <0xNN>). No piece holds "c▁" for c outside
// spaceJoin; the cut is also never made after "▁" itself (runs of "▁"
// merge).
func (t *Tokenizer) spaceCut(before string) bool {
	c, n := utf8.DecodeLastRuneInString(before)
	if c == '▁' {
		return false
	}
	for _, j := range t.spaceJoin {
		if c == j {
			return false
		}
	}
	if !t.joinBytes {
		return true
	}
	_, ok := t.vocab[before[len(before)-n:]]
	return ok
}

// encodeWord appends the ids of one pre-token, through the cache.
func (t *Tokenizer) encodeWord(w string, out []int) []int {
	t.mu.Lock()
	ids, ok := t.cache[w]
	t.mu.Unlock()
	if !ok {
		ids = t.model(w)
		t.mu.Lock()
		if len(t.cache) >= maxCache {
			clear(t.cache)
		}
		t.cache[w] = ids
		t.mu.Unlock()
	}
	return append(out, ids...)
}

// model runs the vocabulary model on one pre-token.
func (t *Tokenizer) model(w string) []int {
	switch {
	case t.uni != nil:
		return t.unigramWord(w)
	case t.wp != nil:
		return t.wp.word(t, w, nil)
	}
	return t.bpeWord(w)
}

// bpeWord runs BPE on one word (raw bytes for byte-level, normalized text
// otherwise).
func (t *Tokenizer) bpeWord(w string) []int {
	if t.ignoreMerges {
		key := w
		if t.kind == ByteLevelBPE {
			key = byteLevelString(w)
		}
		if id, ok := t.vocab[key]; ok {
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

// fallback encodes a span that has no token: byte tokens, else unk (one
// for a run of unknown spans when fuse_unk).
func (t *Tokenizer) fallback(span string, ids []int) []int {
	if t.hasBytes {
		for i := 0; i < len(span); i++ {
			if id := t.byteIDs[span[i]]; id >= 0 {
				ids = append(ids, id)
			}
		}
		return ids
	}
	if t.unk < 0 {
		return ids
	}
	if t.fuseUnk && len(ids) > 0 && ids[len(ids)-1] == t.unk {
		return ids
	}
	return append(ids, t.unk)
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
// are set; added lists the added tokens.
func (t *Tokenizer) finish(added []addedToken) {
	t.cache = make(map[string][]int)
	if t.isAdded == nil {
		t.isAdded = map[int]bool{}
	}
	var raw, normed []addedToken
	for _, a := range added {
		t.isAdded[a.id] = true
		if a.normalized && t.norm != nil {
			normed = append(normed, a)
		} else {
			raw = append(raw, a)
		}
	}
	t.rawAdded, t.normAdded = newAddedSet(raw), newAddedSet(normed)
	for _, p := range t.pieces {
		t.maxPiece = max(t.maxPiece, len(p))
	}
	if t.kind == SentencePieceBPE {
		t.spaceJoin, t.splitSpaces = spaceJoiners(t.pieces)
		_, hasMark := t.vocab[spaceMark]
		t.splitSpaces = t.splitSpaces && hasMark
		t.joinBytes = slices.Contains(t.spaceJoin, '>')
	}
}

// maxSpaceJoin bounds spaceJoin: past it the cut is not worth its test.
const maxSpaceJoin = 16

// spaceJoiners lists the runes other than "▁" that some piece has right
// before a "▁"; ok is false when there are more than maxSpaceJoin.
func spaceJoiners(pieces []string) ([]rune, bool) {
	var out []rune
	for _, p := range pieces {
		prev := rune(-1)
		for _, r := range p {
			if r == '▁' && prev >= 0 && prev != '▁' && !slices.Contains(out, prev) {
				if out = append(out, prev); len(out) > maxSpaceJoin {
					return nil, false
				}
			}
			prev = r
		}
	}
	return out, true
}

// ChatTemplate is the chat template found next to a tokenizer.json (in
// tokenizer_config.json), or "".
func (t *Tokenizer) ChatTemplate() string { return t.chatTemplate }
