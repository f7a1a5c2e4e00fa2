package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/servecmp/servecmp/internal/atomicfile"
)

// Schema names the workload file format.
//
// Version 1: the first line is a Header; every other line is a Request.
// Files without the header (written before it existed, or by hand) are
// read as well. The header is part of the bytes the sha256 covers.
const Schema = "servecmp.workload/1"

// Header is a workload file's first line: the schema, the number of
// request lines that follow and, when a tokenizer shaped the prompts, how
// they were made.
type Header struct {
	Schema   string `json:"schema"`
	Requests int    `json:"requests"`
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
	// Trace is the request trace the workload replays (workload trace).
	Trace *TraceSource `json:"trace,omitempty"`
}

// IsZero reports whether h says nothing beyond the schema and count.
func (h *Header) IsZero() bool {
	if h == nil {
		return true
	}
	c := *h
	c.Schema, c.Requests = "", 0
	return c == Header{}
}

// isHeader reports whether line is a header: an object with a "schema"
// key (a request never has one).
func isHeader(line []byte) bool {
	var probe struct {
		Schema *string `json:"schema"`
	}
	return json.Unmarshal(line, &probe) == nil && probe.Schema != nil
}

// parseHeader decodes and validates a header line: known fields only and
// a schema this version reads.
func parseHeader(line []byte) (*Header, error) {
	var h Header
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("header: %s", jsonMsg(err))
	}
	if h.Schema != Schema {
		if strings.HasPrefix(h.Schema, "servecmp.workload/") {
			return nil, fmt.Errorf("header: schema %q is newer than this servecmp reads (%s)", h.Schema, Schema)
		}
		return nil, fmt.Errorf("header: schema %q is not a servecmp workload (%s)", h.Schema, Schema)
	}
	if h.Requests < 0 {
		return nil, fmt.Errorf("header: requests %d is negative", h.Requests)
	}
	if h.Trace != nil {
		if err := h.Trace.check(); err != nil {
			return nil, fmt.Errorf("header: %v", err)
		}
	}
	return &h, nil
}

// WriteWithHeader writes the header (h's fields, or none beyond the
// schema and count when h is nil) and then reqs, one line each.
func WriteWithHeader(w io.Writer, h *Header, reqs []Request) error {
	if err := Validate(reqs); err != nil {
		return err
	}
	var hd Header
	if h != nil {
		hd = *h
	}
	hd.Schema, hd.Requests = Schema, len(reqs)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&hd); err != nil {
		return err
	}
	for i := range reqs {
		if err := enc.Encode(&reqs[i]); err != nil {
			return err
		}
	}
	return nil
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
