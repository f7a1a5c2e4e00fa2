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
		ID         int    `json:"id"`
		Content    string `json:"content"`
		Special    bool   `json:"special"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		SingleWord bool   `json:"single_word"`
		Normalized *bool  `json:"normalized"`
	} `json:"added_tokens"`
	Normalizer    *hfComponent    `json:"normalizer"`
	PreTokenizer  *hfComponent    `json:"pre_tokenizer"`
	Decoder       *hfComponent    `json:"decoder"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Model         hfModel         `json:"model"`
}

type hfModel struct {
	Type         string            `json:"type"`
	Vocab        json.RawMessage   `json:"vocab"`
	Merges       []json.RawMessage `json:"merges"`
	UnkToken     *string           `json:"unk_token"`
	UnkID        *int              `json:"unk_id"`
	ByteFallback bool              `json:"byte_fallback"`
	IgnoreMerges bool              `json:"ignore_merges"`
	FuseUnk      bool              `json:"fuse_unk"`
	Dropout      *float64          `json:"dropout"`
	Prefix       *string           `json:"continuing_subword_prefix"`
	Suffix       *string           `json:"end_of_word_suffix"`
	MaxChars     *int              `json:"max_input_chars_per_word"`
}

// hfComponent is a normalizer, pre-tokenizer or decoder node.
type hfComponent struct {
	Type          string         `json:"type"`
	Normalizers   []*hfComponent `json:"normalizers"`
	PreTokenizers []*hfComponent `json:"pretokenizers"`
	Decoders      []*hfComponent `json:"decoders"`
	Prepend       string         `json:"prepend"`
	Content       string         `json:"content"`
	Pattern       struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	} `json:"pattern"`
	Behavior            string  `json:"behavior"`
	Invert              bool    `json:"invert"`
	AddPrefixSpace      *bool   `json:"add_prefix_space"`
	UseRegex            *bool   `json:"use_regex"`
	Replacement         string  `json:"replacement"`
	PrependScheme       string  `json:"prepend_scheme"`
	Split               *bool   `json:"split"`
	IndividualDigits    bool    `json:"individual_digits"`
	StripLeft           *bool   `json:"strip_left"`
	StripRight          *bool   `json:"strip_right"`
	Start               int     `json:"start"`
	CleanText           *bool   `json:"clean_text"`
	HandleChineseChars  *bool   `json:"handle_chinese_chars"`
	StripAccentsOpt     *bool   `json:"strip_accents"`
	Lowercase           *bool   `json:"lowercase"`
	Prefix              *string `json:"prefix"`
	PrecompiledCharsmap string  `json:"precompiled_charsmap"`
	Delimiter           string  `json:"delimiter"`
}

func parseHFJSON(data []byte) (*Tokenizer, error) {
	var f hfFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("invalid tokenizer.json: %v", oneLineErr(err))
	}
	if f.Model.Type == "" && f.Model.Merges != nil {
		f.Model.Type = "BPE" // the compact GPT-2 form has no type
	}
	t := &Tokenizer{unk: -1, special: map[string]int{}}
	for b := range t.byteIDs {
		t.byteIDs[b] = -1
	}
	var ns normalizerSetup
	if err := ns.add(f.Normalizer); err != nil {
		return nil, err
	}
	t.norm, t.nfc = chain(ns.fns), ns.nfc
	byteLevel, err := t.preTokenizer(f.PreTokenizer, 0)
	if err != nil {
		return nil, err
	}
	added, err := t.hfVocab(&f)
	if err != nil {
		return nil, err
	}
	if err := t.hfModel(&f.Model, byteLevel); err != nil {
		return nil, err
	}
	for _, st := range t.pre {
		if m, ok := st.(metaspaceStep); ok {
			ns.mark, ns.prepend = true, ns.prepend || m.scheme != "never"
		}
	}
	if f.Decoder == nil && ns.mark {
		t.dec.spaceMark = spaceMark
		if ns.prepend {
			t.dec.stripLeading = 1
		}
	}
	if err := t.hfDecoder(f.Decoder, byteLevel); err != nil {
		return nil, err
	}
	if err := t.post.read(f.PostProcessor, t.vocab, 0); err != nil {
		return nil, err
	}
	for _, id := range append(append([]int(nil), t.post.before...), t.post.after...) {
		if id < 0 || id >= len(t.pieces) {
			return nil, fmt.Errorf("post_processor: token id %d out of range", id)
		}
	}
	t.finish(added)
	return t, nil
}

// preTokenizer appends the steps of a pre-tokenizer node and reports
// whether a ByteLevel step is among them (it must be the last).
func (t *Tokenizer) preTokenizer(c *hfComponent, depth int) (bool, error) {
	if c == nil {
		return false, nil
	}
	if depth > 4 {
		return false, fmt.Errorf("pre_tokenizer nested too deeply")
	}
	if c.Type == "Sequence" {
		if len(c.PreTokenizers) > maxComponents {
			return false, fmt.Errorf("pre_tokenizer Sequence of %d entries exceeds the limit %d", len(c.PreTokenizers), maxComponents)
		}
		byteLevel := false
		for _, p := range c.PreTokenizers {
			if byteLevel {
				return false, fmt.Errorf("unsupported pre_tokenizer %q after ByteLevel", p.Type)
			}
			bl, err := t.preTokenizer(p, depth+1)
			if err != nil {
				return false, err
			}
			byteLevel = bl
		}
		return byteLevel, nil
	}
	step, err := preStepOf(c)
	if err != nil {
		return false, err
	}
	t.pre = append(t.pre, step)
	_, isByteLevel := step.(byteLevelStep)
	return isByteLevel, nil
}

// preStepOf builds one (non-Sequence) pre-tokenizer step.
func preStepOf(c *hfComponent) (preStep, error) {
	switch c.Type {
	case "ByteLevel":
		return byteLevelStep{prefixSpace: boolOr(c.AddPrefixSpace, false), useRegex: c.UseRegex == nil || *c.UseRegex}, nil
	case "Split":
		return splitOf(c)
	case "Metaspace":
		scheme := c.PrependScheme
		if scheme == "" {
			scheme = "always"
			if !boolOr(c.AddPrefixSpace, true) {
				scheme = "never"
			}
		}
		if scheme != "always" && scheme != "first" && scheme != "never" {
			return nil, fmt.Errorf("pre_tokenizer Metaspace: unknown prepend_scheme %q", scheme)
		}
		if c.Replacement == "" {
			return nil, fmt.Errorf("pre_tokenizer Metaspace without a replacement")
		}
		return metaspaceStep{repl: c.Replacement, scheme: scheme, split: boolOr(c.Split, true)}, nil
	case "Whitespace":
		return whitespaceStep{}, nil
	case "WhitespaceSplit":
		return splitStep{m: runeMatcher{is: isSpaceRune, run: true}, behavior: removed}, nil
	case "BertPreTokenizer":
		return bertStep{}, nil
	case "Punctuation":
		b, ok := behaviors[c.Behavior]
		if c.Behavior == "" {
			b, ok = isolated, true
		}
		if !ok {
			return nil, fmt.Errorf("pre_tokenizer Punctuation: unknown behavior %q", c.Behavior)
		}
		return splitStep{m: runeMatcher{is: isPunct}, behavior: b}, nil
	case "Digits":
		return splitStep{m: runeMatcher{is: isNumeric, run: !c.IndividualDigits}, behavior: isolated}, nil
	case "CharDelimiterSplit":
		if c.Delimiter == "" {
			return nil, fmt.Errorf("pre_tokenizer CharDelimiterSplit without a delimiter")
		}
		return splitStep{m: literalMatcher(c.Delimiter), behavior: removed}, nil
	}
	return nil, fmt.Errorf("unsupported pre_tokenizer %q", c.Type)
}

// splitOf builds a Split step.
func splitOf(c *hfComponent) (preStep, error) {
	b, ok := behaviors[c.Behavior]
	if !ok {
		return nil, fmt.Errorf("pre_tokenizer Split: unknown behavior %q", c.Behavior)
	}
	var m matcher
	switch {
	case c.Pattern.Regex != nil:
		var err error
		if m, err = newMatcher(*c.Pattern.Regex); err != nil {
			return nil, err
		}
	case c.Pattern.String != nil:
		m = literalMatcher(*c.Pattern.String)
	default:
		return nil, fmt.Errorf("pre_tokenizer Split without a pattern")
	}
	return splitStep{m: m, behavior: b, invert: c.Invert}, nil
}

func isSpaceRune(r rune) bool { return classOf(r) == clsSpace }

func isNumeric(r rune) bool { return classOf(r) == clsNumber }

// hfVocab fills pieces and vocab and returns the added tokens.
func (t *Tokenizer) hfVocab(f *hfFile) ([]addedToken, error) {
	var scores []float64
	switch f.Model.Type {
	case "Unigram":
		var list [][2]json.RawMessage
		if err := json.Unmarshal(f.Model.Vocab, &list); err != nil {
			return nil, fmt.Errorf("model.vocab: %v (want [[piece, score], …])", oneLineErr(err))
		}
		if len(list) > maxVocab {
			return nil, fmt.Errorf("model.vocab: %d entries exceed the limit %d", len(list), maxVocab)
		}
		t.vocab = make(map[string]int, len(list))
		scores = make([]float64, len(list))
		for id, e := range list {
			var p string
			if json.Unmarshal(e[0], &p) != nil || json.Unmarshal(e[1], &scores[id]) != nil {
				return nil, fmt.Errorf("model.vocab entry %d: want [piece, score]", id)
			}
			if _, dup := t.vocab[p]; !dup {
				t.vocab[p] = id
			}
		}
	default:
		if err := json.Unmarshal(f.Model.Vocab, &t.vocab); err != nil {
			return nil, fmt.Errorf("model.vocab: %v", oneLineErr(err))
		}
	}
	size := 0
	for _, id := range t.vocab {
		if id < 0 || id >= maxVocab {
			return nil, fmt.Errorf("model.vocab: id %d out of range", id)
		}
		size = max(size, id+1)
	}
	size = max(size, len(scores))
	for _, a := range f.AddedTokens {
		if a.ID < 0 || a.ID >= maxVocab {
			return nil, fmt.Errorf("added_tokens: id %d out of range", a.ID)
		}
		size = max(size, a.ID+1)
	}
	t.pieces = make([]string, size)
	for p, id := range t.vocab {
		t.pieces[id] = p
	}
	if scores != nil {
		t.uni = newUnigram(t.pieces[:len(scores)], scores, f.Model.ByteFallback)
	}
	var added []addedToken
	for _, a := range f.AddedTokens {
		t.pieces[a.ID] = a.Content
		t.vocab[a.Content] = a.ID
		if a.Content != "" {
			added = append(added, addedToken{text: a.Content, id: a.ID, lstrip: a.LStrip, rstrip: a.RStrip,
				singleWord: a.SingleWord, normalized: boolOr(a.Normalized, !a.Special), special: a.Special})
		}
	}
	return added, nil
}

// maxVocab bounds token ids read from any file.
const maxVocab = 1 << 21

// hfModel sets the kind and the model's tables.
func (t *Tokenizer) hfModel(m *hfModel, byteLevel bool) error {
	if m.Dropout != nil && *m.Dropout != 0 {
		return fmt.Errorf("unsupported BPE dropout %g (not deterministic)", *m.Dropout)
	}
	if m.UnkToken != nil {
		if id, ok := t.vocab[*m.UnkToken]; ok {
			t.unk = id
			t.special["unk"] = id
		}
	}
	t.fuseUnk = m.FuseUnk
	if m.ByteFallback {
		t.byteFallbackIDs()
	}
	switch m.Type {
	case "BPE":
		return t.hfBPE(m, byteLevel)
	case "WordPiece":
		t.kind = WordPiece
		t.wp = &wordPieceModel{prefix: "##", maxChars: 100}
		if m.Prefix != nil {
			t.wp.prefix = *m.Prefix
		}
		if m.MaxChars != nil {
			t.wp.maxChars = *m.MaxChars
		}
	case "Unigram":
		t.kind = Unigram
		t.fuseUnk = true
		if m.UnkID != nil {
			if *m.UnkID < 0 || *m.UnkID >= len(t.pieces) {
				return fmt.Errorf("model.unk_id %d out of range", *m.UnkID)
			}
			t.unk = *m.UnkID
			t.special["unk"] = t.unk
		}
	default:
		return fmt.Errorf("unsupported tokenizer.json model type %q (supported: BPE, WordPiece, Unigram)", m.Type)
	}
	if byteLevel {
		return fmt.Errorf("unsupported ByteLevel pre_tokenizer with a %s model", m.Type)
	}
	return nil
}

func (t *Tokenizer) hfBPE(m *hfModel, byteLevel bool) error {
	if (m.Prefix != nil && *m.Prefix != "") || (m.Suffix != nil && *m.Suffix != "") {
		return fmt.Errorf("unsupported BPE option: continuing_subword_prefix or end_of_word_suffix")
	}
	t.ignoreMerges = m.IgnoreMerges
	t.kind = SentencePieceBPE
	if byteLevel {
		t.kind = ByteLevelBPE
		t.hasBytes = false
		if err := t.byteLevelIDs(); err != nil {
			return err
		}
	}
	return t.hfMerges(m.Merges)
}

// hfDecoder reads the decoder, or derives one from the model.
func (t *Tokenizer) hfDecoder(c *hfComponent, byteLevel bool) error {
	if c == nil {
		t.dec.byteLevel = byteLevel
		t.dec.byteFallback = t.hasBytes
		if t.kind == WordPiece {
			t.dec.wordPiece = t.wp.prefix
		}
		return nil
	}
	return t.dec.read(c, 0)
}

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

// hfMerges reads merges as "a b" strings or ["a", "b"] pairs. A merge
// whose parts or result are not tokens makes the file invalid: the
// reference refuses it, and counting with it would be wrong.
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
		if err := t.addMerge(rank, a, b); err != nil {
			return err
		}
	}
	return nil
}

// addMerge records a merge; its parts and result must all be tokens.
func (t *Tokenizer) addMerge(rank int, a, b string) error {
	ia, ok1 := t.vocab[a]
	ib, ok2 := t.vocab[b]
	im, ok3 := t.vocab[a+b]
	switch {
	case !ok1:
		return fmt.Errorf("merge %d (%q %q) names %q, which is not in the vocabulary", rank, a, b, a)
	case !ok2:
		return fmt.Errorf("merge %d (%q %q) names %q, which is not in the vocabulary", rank, a, b, b)
	case !ok3:
		return fmt.Errorf("merge %d (%q %q) makes %q, which is not in the vocabulary", rank, a, b, a+b)
	}
	key := uint64(ia)<<32 | uint64(ib)
	if _, dup := t.merges[key]; !dup {
		t.merges[key] = uint64(rank)<<32 | uint64(im)
	}
	return nil
}

// readTokenizerConfig takes bos/eos and the chat template from a
// tokenizer_config.json next to the tokenizer.json, when there is one. A
// role whose token the config does not name, or names but the vocabulary
// lacks, stays unset.
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
