package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// decoder turns pieces back into text. It is read from the file's decoder
// (or derived from the model when there is none) and aims at a text whose
// encoding gives the ids back, not at the reference's cleanup rules.
type decoder struct {
	byteLevel     bool   // pieces are in the byte-level alphabet
	spaceMark     string // replaced by " " ("▁"); "" for none
	byteFallback  bool   // <0xNN> pieces are raw bytes
	stripLeading  int    // leading spaces dropped from the text
	wordPiece     string // continuation prefix; other pieces get a space before them
	ggufWordPiece bool   // llama.cpp's WordPiece form ("▁" starts a word)
}

// read fills the decoder from a tokenizer.json decoder node.
func (d *decoder) read(c *hfComponent, depth int) error {
	if c == nil {
		return nil
	}
	if depth > 4 {
		return fmt.Errorf("decoder nested too deeply")
	}
	switch c.Type {
	case "Sequence":
		for _, x := range c.Decoders {
			if err := d.read(x, depth+1); err != nil {
				return err
			}
		}
	case "ByteLevel":
		d.byteLevel = true
	case "Metaspace":
		d.spaceMark = c.Replacement
		if c.PrependScheme != "never" && boolOr(c.AddPrefixSpace, true) {
			d.stripLeading = 1
		}
	case "Replace":
		if c.Pattern.String != nil && c.Content == " " {
			d.spaceMark = *c.Pattern.String
		}
	case "ByteFallback":
		d.byteFallback = true
	case "Strip":
		if c.Content == " " && c.Start > 0 {
			d.stripLeading = c.Start
		}
	case "WordPiece":
		d.wordPiece = "##"
		if c.Prefix != nil {
			d.wordPiece = *c.Prefix
		}
	case "Fuse", "BPEDecoder", "CTC":
	default:
		return fmt.Errorf("unsupported decoder %q", c.Type)
	}
	return nil
}

// Decode turns ids back into text. Unknown ids are skipped; added tokens
// give their text.
func (t *Tokenizer) Decode(ids []int) string { return t.decode(ids, true) }

// PieceText is the text of one token as it appears inside a decoded text
// (a word-initial "▁" is a space here, where Decode would drop it at the
// start); a lone byte of a multi-byte character is invalid UTF-8.
func (t *Tokenizer) PieceText(id int) string { return t.decode([]int{id}, false) }

func (t *Tokenizer) decode(ids []int, strip bool) string {
	var b []byte
	d := &t.dec
	for k, id := range ids {
		if id < 0 || id >= len(t.pieces) {
			continue
		}
		p := t.pieces[id]
		switch {
		case t.isAdded[id]:
			b = append(b, p...)
		case d.byteLevel:
			b = appendByteLevelDecoded(b, p)
		case d.ggufWordPiece:
			b = appendWordPiece(b, p)
		case d.wordPiece != "":
			if rest, ok := strings.CutPrefix(p, d.wordPiece); ok {
				b = append(b, rest...)
			} else {
				if k > 0 || !strip {
					b = append(b, ' ')
				}
				b = append(b, p...)
			}
		default:
			if c, ok := byteToken(p); ok && d.byteFallback {
				b = append(b, c)
			} else if d.spaceMark != "" {
				b = append(b, strings.ReplaceAll(p, d.spaceMark, " ")...)
			} else {
				b = append(b, p...)
			}
		}
	}
	s := string(b)
	for i := 0; strip && i < d.stripLeading && strings.HasPrefix(s, " "); i++ {
		s = s[1:]
	}
	return s
}

// postProcessor holds the special tokens added around a single text.
type postProcessor struct{ before, after []int }

// read fills the post-processor from a tokenizer.json post_processor node.
func (p *postProcessor) read(raw json.RawMessage, vocab map[string]int, depth int) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if depth > 4 {
		return fmt.Errorf("post_processor nested too deeply")
	}
	var c struct {
		Type       string            `json:"type"`
		Processors []json.RawMessage `json:"processors"`
		Single     []struct {
			SpecialToken *struct{ ID string } `json:"SpecialToken"`
			Sequence     *struct{ ID string } `json:"Sequence"`
		} `json:"single"`
		SpecialTokens map[string]struct {
			IDs []int `json:"ids"`
		} `json:"special_tokens"`
		Cls []json.RawMessage `json:"cls"`
		Sep []json.RawMessage `json:"sep"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("post_processor: %v", err)
	}
	switch c.Type {
	case "Sequence":
		for _, x := range c.Processors {
			if err := p.read(x, vocab, depth+1); err != nil {
				return err
			}
		}
	case "TemplateProcessing":
		seen := false
		for _, it := range c.Single {
			switch {
			case it.Sequence != nil:
				seen = true
			case it.SpecialToken != nil:
				ids := c.SpecialTokens[it.SpecialToken.ID].IDs
				if seen {
					p.after = append(p.after, ids...)
				} else {
					p.before = append(p.before, ids...)
				}
			}
		}
	case "BertProcessing", "RobertaProcessing":
		if id, ok := pairID(c.Cls); ok {
			p.before = append(p.before, id)
		}
		if id, ok := pairID(c.Sep); ok {
			p.after = append(p.after, id)
		}
	case "ByteLevel":
	default:
		return fmt.Errorf("unsupported post_processor %q", c.Type)
	}
	return nil
}

// pairID reads the id of a ["token", id] pair.
func pairID(pair []json.RawMessage) (int, bool) {
	if len(pair) != 2 {
		return 0, false
	}
	var id int
	if json.Unmarshal(pair[1], &id) != nil {
		return 0, false
	}
	return id, true
}
