package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/servecmp/servecmp/internal/atomicfile"
)

// Header describes how a workload's prompts were made. It is written as
// the file's first line, {"header": {...}}, only when there is something
// to say (a tokenizer was used); a file without it is a plain request list.
type Header struct {
	// Tokenizer is the tokenizer file's base name; TokenizerHash the hex
	// sha256 of its bytes. Input lengths (input_len) were counted with it.
	Tokenizer     string `json:"tokenizer,omitempty"`
	TokenizerHash string `json:"tokenizer_hash,omitempty"`
	// Prompt is the prompt form a generator produced (tokens, text, chat).
	Prompt Kind `json:"prompt,omitempty"`
	// ChatTemplate and ChatTemplateHash name the chat template applied
	// client-side (the rendered text was sent as a text prompt).
	ChatTemplate     string `json:"chat_template,omitempty"`
	ChatTemplateHash string `json:"chat_template_hash,omitempty"`
}

// IsZero reports whether h says nothing (no header line is written).
func (h *Header) IsZero() bool { return h == nil || *h == Header{} }

// headerLine is the first line's shape.
type headerLine struct {
	Header *Header `json:"header"`
}

// parseHeader reads line as a header line when it is one: an object whose
// only key is "header". ok is false for any other line.
func parseHeader(line []byte) (h *Header, ok bool, err error) {
	if !bytes.HasPrefix(line, []byte(`{"header"`)) {
		return nil, false, nil
	}
	var hl headerLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&hl); err != nil {
		return nil, true, fmt.Errorf("header: %v", jsonMsg(err))
	}
	if hl.Header == nil {
		return nil, true, fmt.Errorf("header: empty")
	}
	return hl.Header, true, nil
}

// WriteWithHeader writes h (when not zero) as the first line, then reqs
// as Write does.
func WriteWithHeader(w io.Writer, h *Header, reqs []Request) error {
	if err := Validate(reqs); err != nil {
		return err
	}
	if !h.IsZero() {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(headerLine{Header: h}); err != nil {
			return err
		}
	}
	return Write(w, reqs)
}

// WriteFileWithHeader writes h and reqs to path atomically and returns the
// sha256 of the bytes written.
func WriteFileWithHeader(path string, h *Header, reqs []Request) (sha string, err error) {
	var buf bytes.Buffer
	if err := WriteWithHeader(&buf, h, reqs); err != nil {
		return "", err
	}
	if err := atomicfile.Write(path, buf.Bytes()); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), nil
}
