package tokenizer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/servecmp/servecmp/internal/infile"
)

// The subset of tokenizer.json that this package reads.
type hfFile struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
		LStrip  bool   `json:"lstrip"`
		RStrip  bool   `json:"rstrip"`
	} `json:"added_tokens"`
	Normalizer   *hfComponent `json:"normalizer"`
	PreTokenizer *hfComponent `json:"pre_tokenizer"`
	Model        struct {
		Type         string            `json:"type"`
		Vocab        json.RawMessage   `json:"vocab"`
		Merges       []json.RawMessage `json:"merges"`
		UnkToken     *string           `json:"unk_token"`
		ByteFallback bool              `json:"byte_fallback"`
		IgnoreMerges bool              `json:"ignore_merges"`
		Prefix       *string           `json:"continuing_subword_prefix"`
		Suffix       *string           `json:"end_of_word_suffix"`
	} `json:"model"`
}

// hfComponent is a normalizer or pre-tokenizer node.
type hfComponent struct {
	Type          string         `json:"type"`
	Normalizers   []*hfComponent `json:"normalizers"`
	PreTokenizers []*hfComponent `json:"pretokenizers"`
	Prepend       string         `json:"prepend"`
	Content       string         `json:"content"`
	Pattern       struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	} `json:"pattern"`
	Behavior       string `json:"behavior"`
	Invert         bool   `json:"invert"`
	AddPrefixSpace bool   `json:"add_prefix_space"`
	UseRegex       *bool  `json:"use_regex"`
	Replacement    string `json:"replacement"`
	PrependScheme  string `json:"prepend_scheme"`
	Split          *bool  `json:"split"`
}

// hfSetup collects what the normalizer and pre-tokenizer ask for.
type hfSetup struct {
	nfc, byteLevel, prefixSpace, spaceMark bool
	metaspace                              string // prepend scheme of a Metaspace pre-tokenizer
	steps                                  pipeline
}

func parseHFJSON(data []byte) (*Tokenizer, error) {
	var f hfFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("invalid tokenizer.json: %v", err)
	}
	if f.Model.Type == "" && f.Model.Merges != nil {
		f.Model.Type = "BPE" // the compact GPT-2 form has no type
	}
	if f.Model.Type != "BPE" {
		return nil, fmt.Errorf("unsupported tokenizer.json model type %q (supported: BPE)", f.Model.Type)
	}
	if (f.Model.Prefix != nil && *f.Model.Prefix != "") || (f.Model.Suffix != nil && *f.Model.Suffix != "") {
		return nil, fmt.Errorf("unsupported BPE option: continuing_subword_prefix or end_of_word_suffix")
	}
	var setup hfSetup
	if err := setup.normalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if err := setup.preTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	t := &Tokenizer{unk: -1, special: map[string]int{}}
	if err := t.hfVocab(&f); err != nil {
		return nil, err
	}
	if err := t.hfModel(&f, &setup); err != nil {
		return nil, err
	}
	t.finish()
	return t, nil
}

func (s *hfSetup) normalizer(c *hfComponent) error {
	if c == nil {
		return nil
	}
	switch c.Type {
	case "Sequence":
		for _, n := range c.Normalizers {
			if err := s.normalizer(n); err != nil {
				return err
			}
		}
	case "NFC":
		s.nfc = true
	case "Prepend":
		if c.Prepend != spaceMark {
			return fmt.Errorf("unsupported normalizer Prepend(%q)", c.Prepend)
		}
		s.prefixSpace = true
	case "Replace":
		if c.Pattern.String == nil || *c.Pattern.String != " " || c.Content != spaceMark {
			return fmt.Errorf("unsupported normalizer Replace (only \" \" → \"▁\")")
		}
		s.spaceMark = true
	default:
		return fmt.Errorf("unsupported normalizer %q", c.Type)
	}
	return nil
}

func (s *hfSetup) preTokenizer(c *hfComponent) error {
	if c == nil {
		return nil
	}
	switch c.Type {
	case "Sequence":
		for _, p := range c.PreTokenizers {
			if err := s.preTokenizer(p); err != nil {
				return err
			}
		}
	case "ByteLevel":
		s.byteLevel = true
		if c.AddPrefixSpace {
			return fmt.Errorf("unsupported pre-tokenizer ByteLevel with add_prefix_space")
		}
		if c.UseRegex == nil || *c.UseRegex {
			s.steps = append(s.steps, gpt2Splitter{})
		}
	case "Split":
		if c.Behavior != "Isolated" || c.Invert {
			return fmt.Errorf("unsupported pre-tokenizer Split behaviour %q (invert %v)", c.Behavior, c.Invert)
		}
		if c.Pattern.Regex == nil {
			return fmt.Errorf("unsupported pre-tokenizer Split with a string pattern")
		}
		sp, err := newSplitter(*c.Pattern.Regex)
		if err != nil {
			return err
		}
		s.steps = append(s.steps, sp)
	case "Metaspace":
		scheme := c.PrependScheme
		if scheme == "" {
			scheme = "always"
		}
		if c.Replacement != spaceMark || (c.Split != nil && *c.Split) || (scheme != "always" && scheme != "first") {
			return fmt.Errorf("unsupported pre-tokenizer Metaspace (only replacement ▁, split false, prepend_scheme always or first)")
		}
		s.spaceMark, s.prefixSpace, s.metaspace = true, true, scheme
	default:
		return fmt.Errorf("unsupported pre-tokenizer %q", c.Type)
	}
	return nil
}

// hfVocab fills pieces, vocab and added tokens.
func (t *Tokenizer) hfVocab(f *hfFile) error {
	if err := json.Unmarshal(f.Model.Vocab, &t.vocab); err != nil {
		return fmt.Errorf("model.vocab: %v", err)
	}
	size := 0
	for _, id := range t.vocab {
		if id < 0 || id >= maxVocab {
			return fmt.Errorf("model.vocab: id %d out of range", id)
		}
		size = max(size, id+1)
	}
	for _, a := range f.AddedTokens {
		if a.ID < 0 || a.ID >= maxVocab {
			return fmt.Errorf("added_tokens: id %d out of range", a.ID)
		}
		size = max(size, a.ID+1)
	}
	t.pieces = make([]string, size)
	for p, id := range t.vocab {
		t.pieces[id] = p
	}
	for _, a := range f.AddedTokens {
		t.pieces[a.ID] = a.Content
		t.vocab[a.Content] = a.ID
		if a.Content != "" {
			t.added = append(t.added, addedToken{text: a.Content, id: a.ID, lstrip: a.LStrip, rstrip: a.RStrip})
		}
	}
	if f.Model.UnkToken != nil {
		if id, ok := t.vocab[*f.Model.UnkToken]; ok {
			t.unk = id
			t.special["unk"] = id
		}
	}
	return nil
}

// maxVocab bounds token ids read from any file.
const maxVocab = 1 << 21

// hfModel sets the kind, merges and byte tables of a BPE model.
func (t *Tokenizer) hfModel(f *hfFile, s *hfSetup) error {
	t.nfc, t.ignoreMerges = s.nfc, f.Model.IgnoreMerges
	switch {
	case s.byteLevel:
		if s.spaceMark || s.prefixSpace {
			return fmt.Errorf("unsupported mix of ByteLevel and ▁ normalization")
		}
		t.kind, t.pre = ByteLevelBPE, s.steps
		if len(t.pre) == 0 {
			t.pre = pipeline{wholeSplitter{}}
		}
		if err := t.byteLevelIDs(); err != nil {
			return err
		}
	case s.spaceMark:
		if len(s.steps) > 0 {
			return fmt.Errorf("unsupported pre-tokenizer with ▁ normalization")
		}
		t.kind, t.prefixSpace, t.metaspace = SentencePieceBPE, s.prefixSpace, s.metaspace
		if f.Model.ByteFallback {
			t.byteFallbackIDs()
		}
	default:
		return fmt.Errorf("unsupported BPE setup: neither ByteLevel nor ▁ (SentencePiece) normalization")
	}
	return t.hfMerges(f.Model.Merges)
}

// wholeSplitter keeps a fragment whole.
type wholeSplitter struct{}

func (wholeSplitter) split(s string, ends []int) []int { return append(ends, len(s)) }

// byteLevelIDs finds the token of every byte. Some vocabularies lack
// bytes that never occur in UTF-8 (0xC0, 0xC1, 0xF5…); those are -1.
func (t *Tokenizer) byteLevelIDs() error {
	found := 0
	for b := 0; b < 256; b++ {
		t.byteIDs[b] = -1
		if id, ok := t.vocab[string(byteToRune[b])]; ok {
			t.byteIDs[b] = id
			found++
		}
	}
	if found < 128 {
		return fmt.Errorf("not a byte-level vocabulary: only %d of 256 byte tokens", found)
	}
	return nil
}

func (t *Tokenizer) byteFallbackIDs() {
	for b := 0; b < 256; b++ {
		t.byteIDs[b] = -1
		if id, ok := t.vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
			t.byteIDs[b] = id
			t.hasBytes = true
		}
	}
}

// hfMerges reads merges as "a b" strings or ["a", "b"] pairs.
func (t *Tokenizer) hfMerges(raw []json.RawMessage) error {
	t.merges = make(map[uint64]uint64, len(raw))
	for rank, m := range raw {
		var a, b string
		var s string
		var pair []string
		if json.Unmarshal(m, &s) == nil {
			i := strings.IndexByte(s[min(1, len(s)):], ' ')
			if i < 0 {
				return fmt.Errorf("merge %d: %q has no space", rank, s)
			}
			a, b = s[:i+1], s[i+2:]
		} else if json.Unmarshal(m, &pair) == nil && len(pair) == 2 {
			a, b = pair[0], pair[1]
		} else {
			return fmt.Errorf("merge %d: neither \"a b\" nor [a, b]", rank)
		}
		t.addMerge(rank, a, b)
	}
	return nil
}

// addMerge records a merge whose parts and result are all tokens; others
// can never apply and are dropped.
func (t *Tokenizer) addMerge(rank int, a, b string) {
	ia, ok1 := t.vocab[a]
	ib, ok2 := t.vocab[b]
	im, ok3 := t.vocab[a+b]
	if !ok1 || !ok2 || !ok3 {
		return
	}
	key := uint64(ia)<<32 | uint64(ib)
	if _, dup := t.merges[key]; !dup {
		t.merges[key] = uint64(rank)<<32 | uint64(im)
	}
}

// readTokenizerConfig takes bos/eos and the chat template from a
// tokenizer_config.json next to the tokenizer.json, when there is one.
func readTokenizerConfig(path string, t *Tokenizer) {
	data, err := infile.ReadFile(filepath.Join(filepath.Dir(path), "tokenizer_config.json"))
	if err != nil || len(data) > maxJSONSize {
		return
	}
	var cfg map[string]json.RawMessage
	if json.Unmarshal(data, &cfg) != nil {
		return
	}
	for _, role := range []string{"bos", "eos", "unk", "pad"} {
		if name := tokenName(cfg[role+"_token"]); name != "" {
			if id, ok := t.vocab[name]; ok {
				t.special[role] = id
			}
		}
	}
	var tmpl string
	if json.Unmarshal(cfg["chat_template"], &tmpl) == nil {
		t.chatTemplate = tmpl
	}
}

// tokenName reads a token given as a string or as {"content": ...}.
func tokenName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Content
	}
	return ""
}
