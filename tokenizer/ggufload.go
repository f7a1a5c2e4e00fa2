package tokenizer

import (
	"fmt"
	"io"
	"strings"
)

// GGUF token types (tokenizer.ggml.token_type).
const (
	ggufTokNormal      = 1
	ggufTokUnknown     = 2
	ggufTokControl     = 3
	ggufTokUserDefined = 4
	ggufTokByte        = 6
)

func loadGGUF(r io.Reader, size int64) (*Tokenizer, error) {
	m, err := readGGUF(r, size)
	if err != nil {
		return nil, err
	}
	if m.model == "" {
		return nil, fmt.Errorf("GGUF file has no tokenizer.ggml.model")
	}
	if len(m.tokens) == 0 {
		return nil, fmt.Errorf("GGUF file has no tokenizer.ggml.tokens")
	}
	if m.types != nil && len(m.types) != len(m.tokens) {
		return nil, fmt.Errorf("tokenizer.ggml.token_type has %d entries for %d tokens", len(m.types), len(m.tokens))
	}
	t := &Tokenizer{unk: -1, special: map[string]int{}, pieces: m.tokens}
	for b := range t.byteIDs {
		t.byteIDs[b] = -1
	}
	t.vocab = make(map[string]int, len(m.tokens))
	for i, p := range m.tokens {
		t.vocab[p] = i // a duplicate piece maps to its last id, as in llama.cpp
	}
	switch m.model {
	case "gpt2":
		err = t.ggufBPE(m)
	case "llama":
		err = t.ggufSPM(m)
	case "bert":
		err = t.ggufWPM(m)
	default:
		err = fmt.Errorf("unsupported tokenizer model %q (supported: gpt2, llama, bert)", m.model)
	}
	if err != nil {
		return nil, err
	}
	t.finish(t.ggufSpecials(m))
	return t, nil
}

func (t *Tokenizer) ggufBPE(m *ggufMeta) error {
	steps, ok := ggufPreSteps(m.pre)
	if m.pre == "" {
		steps, ok = ggufPreSteps("default")
	}
	if !ok {
		return fmt.Errorf("unsupported pre-tokenizer %q for tokenizer model gpt2", m.pre)
	}
	for _, p := range steps {
		sp, err := newGGUFMatcher(p)
		if err != nil {
			return err
		}
		t.pre = append(t.pre, splitStep{m: sp})
	}
	t.kind = ByteLevelBPE
	t.dec.byteLevel = true
	if err := t.byteLevelIDs(); err != nil {
		return err
	}
	t.merges = make(map[uint64]uint64, len(m.merges))
	for rank, s := range m.merges {
		i := strings.IndexByte(s[min(1, len(s)):], ' ')
		if i < 0 {
			return fmt.Errorf("merge %d: %q has no space", rank, s)
		}
		// llama.cpp keeps a merge whose tokens are missing; it never
		// applies, so it is dropped here.
		_ = t.addMerge(rank, s[:i+1], s[i+2:])
	}
	t.ignoreMerges = m.pre == "llama3" || m.pre == "llama-bpe" || m.pre == "llama-v3"
	return nil
}

func (t *Tokenizer) ggufSPM(m *ggufMeta) error {
	if len(m.scores) != len(m.tokens) {
		return fmt.Errorf("tokenizer.ggml.scores has %d entries for %d tokens", len(m.scores), len(m.tokens))
	}
	t.kind, t.scores = SentencePieceBPE, m.scores
	prefixSpace := true
	if v, ok := m.ints["tokenizer.ggml.add_space_prefix"]; ok {
		prefixSpace = v != 0
	}
	fns := []normFunc{func(s string) string { return strings.ReplaceAll(s, " ", spaceMark) }}
	if prefixSpace {
		fns = append(fns, func(s string) string { return spaceMark + s })
		t.dec.stripLeading = 1
	}
	t.norm = chain(fns)
	t.dec.spaceMark, t.dec.byteFallback = spaceMark, true
	for b := range t.byteIDs {
		t.byteIDs[b] = -1
	}
	for i, p := range m.tokens {
		if m.types != nil && m.types[i] == ggufTokByte {
			if b, ok := byteToken(p); ok {
				t.byteIDs[b] = i
				t.hasBytes = true
			}
		}
	}
	t.unk = 0
	return nil
}

func (t *Tokenizer) ggufWPM(m *ggufMeta) error {
	t.kind = WordPiece
	t.dec.ggufWordPiece, t.dec.stripLeading = true, 1
	t.unk = 100 // BERT's [UNK] unless the file says otherwise
	return nil
}

// ggufSpecials reads the special token ids and returns the user-defined
// tokens, which llama.cpp matches in text even without special-token
// parsing.
func (t *Tokenizer) ggufSpecials(m *ggufMeta) []addedToken {
	for role, key := range map[string]string{"bos": "bos_token_id", "eos": "eos_token_id", "unk": "unknown_token_id", "pad": "padding_token_id"} {
		if v, ok := m.ints["tokenizer.ggml."+key]; ok && v >= 0 && v < int64(len(t.pieces)) {
			t.special[role] = int(v)
			if role == "unk" {
				t.unk = int(v)
			}
		}
	}
	t.isAdded = map[int]bool{}
	var added []addedToken
	for i, typ := range m.types {
		switch typ {
		case ggufTokUserDefined:
			added = append(added, addedToken{text: t.pieces[i], id: i})
		case ggufTokControl, ggufTokUnknown:
			t.isAdded[i] = true
		}
	}
	return added
}
