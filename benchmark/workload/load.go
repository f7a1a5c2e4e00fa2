package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/infile"
)

// Kind names a request's prompt form.
type Kind string

// The three prompt forms. A token-id or text prompt goes to /v1/completions;
// a chat prompt goes to /v1/chat/completions.
const (
	KindTokens Kind = "tokens"
	KindText   Kind = "text"
	KindChat   Kind = "chat"
)

// Kind reports the request's prompt form, or "" when it has none.
func (r *Request) Kind() Kind {
	switch {
	case len(r.PromptTokens) > 0:
		return KindTokens
	case r.Prompt != "":
		return KindText
	case len(r.Messages) > 0:
		return KindChat
	}
	return ""
}

// Validate checks one request on its own: a non-empty id, exactly one
// prompt form, max_tokens > 0, non-negative token ids, an input_len that
// agrees with a token-id prompt, sane sampling settings and a finite,
// non-negative arrival offset.
func (r *Request) Validate() error {
	if r.ID == "" {
		return errors.New("empty id")
	}
	forms := 0
	if len(r.PromptTokens) > 0 {
		forms++
	}
	if r.Prompt != "" {
		forms++
	}
	if len(r.Messages) > 0 {
		forms++
	}
	switch forms {
	case 0:
		return fmt.Errorf("request %q: no prompt (need one of prompt_token_ids, prompt, messages)", r.ID)
	case 1:
	default:
		return fmt.Errorf("request %q: more than one prompt form (need exactly one of prompt_token_ids, prompt, messages)", r.ID)
	}
	if r.MaxTokens <= 0 || r.MaxTokens > MaxMaxTokens {
		return fmt.Errorf("request %q: max_tokens must be in [1, %d], got %d", r.ID, MaxMaxTokens, r.MaxTokens)
	}
	for i, t := range r.PromptTokens {
		if t < 0 {
			return fmt.Errorf("request %q: prompt_token_ids[%d] is negative (%d)", r.ID, i, t)
		}
	}
	if len(r.PromptTokens) > 0 && r.InputLen != 0 && r.InputLen != len(r.PromptTokens) {
		return fmt.Errorf("request %q: input_len %d disagrees with %d prompt_token_ids", r.ID, r.InputLen, len(r.PromptTokens))
	}
	if r.InputLen < 0 {
		return fmt.Errorf("request %q: input_len is negative (%d)", r.ID, r.InputLen)
	}
	for i, m := range r.Messages {
		if m.Role == "" {
			return fmt.Errorf("request %q: messages[%d] has no role", r.ID, i)
		}
	}
	s := r.Sampling
	if s.Temperature != nil && (math.IsNaN(*s.Temperature) || *s.Temperature < 0) {
		return fmt.Errorf("request %q: temperature must be >= 0, got %v", r.ID, *s.Temperature)
	}
	if s.TopP != nil && (math.IsNaN(*s.TopP) || *s.TopP <= 0 || *s.TopP > 1) {
		return fmt.Errorf("request %q: top_p must be in (0, 1], got %v", r.ID, *s.TopP)
	}
	if s.TopK != nil && *s.TopK < -1 {
		return fmt.Errorf("request %q: top_k must be >= -1 (-1 or 0: disabled), got %d", r.ID, *s.TopK)
	}
	if a := r.ArrivalOffsetS; a != nil && !(*a >= 0 && *a <= MaxArrivalOffsetS) {
		return fmt.Errorf("request %q: arrival_offset_s must be in [0, %g] s, got %v", r.ID, float64(MaxArrivalOffsetS), *a)
	}
	return r.validateTurn()
}

// validateTurn checks the session fields of one request.
func (r *Request) validateTurn() error {
	switch {
	case r.Turn < 0:
		return fmt.Errorf("request %q: turn is negative (%d)", r.ID, r.Turn)
	case r.Turn > 0 && r.Session == "":
		return fmt.Errorf("request %q: turn %d without a session", r.ID, r.Turn)
	case r.Session != "" && len(r.Messages) == 0:
		return fmt.Errorf("request %q: a session turn must be a chat prompt (messages)", r.ID)
	case r.Turn > 0 && r.ArrivalOffsetS != nil:
		return fmt.Errorf("request %q: only a session's first turn may have arrival_offset_s", r.ID)
	}
	return nil
}

// checkSessions checks that every session's turns come in file order as
// 0, 1, 2, … without gaps. It returns the offending request's index.
func checkSessions(reqs []Request) (int, error) {
	next := map[string]int{}
	for i := range reqs {
		r := &reqs[i]
		if r.Session == "" {
			continue
		}
		if want := next[r.Session]; r.Turn != want {
			return i, fmt.Errorf("request %q: session %q turn %d, want turn %d (turns must come in order from 0)", r.ID, r.Session, r.Turn, want)
		}
		next[r.Session] = r.Turn + 1
	}
	return 0, nil
}

// Validate checks every request and that ids are unique. It returns the
// first problem found, naming the request's index.
func Validate(reqs []Request) error {
	if len(reqs) == 0 {
		return errors.New("no requests")
	}
	seen := make(map[string]int, len(reqs))
	for i := range reqs {
		if err := reqs[i].Validate(); err != nil {
			return fmt.Errorf("request %d: %w", i+1, err)
		}
		if j, dup := seen[reqs[i].ID]; dup {
			return fmt.Errorf("request %d: duplicate id %q (first at request %d)", i+1, reqs[i].ID, j+1)
		}
		seen[reqs[i].ID] = i
	}
	if i, err := checkSessions(reqs); err != nil {
		return fmt.Errorf("request %d: %w", i+1, err)
	}
	return nil
}

// Load reads a workload file (JSON Lines: an optional Header line, then
// one Request per line; blank lines are skipped). It fails on the first malformed or invalid line with an
// error of the form "FILE:LINE: what is wrong". The file is opened
// read-only.
func Load(path string) (*Workload, error) {
	data, err := infile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes workload bytes; name is used in error messages and stored
// as Workload.Path. SHA256 is computed over data exactly as given.
func Parse(name string, data []byte) (*Workload, error) {
	sum := sha256.Sum256(data)
	w := &Workload{Path: name, SHA256: hex.EncodeToString(sum[:])}
	seen := map[string]int{}
	lineNo := 0
	for rest := data; len(rest) > 0; {
		var line []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			line, rest = rest, nil
		}
		lineNo++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if len(w.Requests) == 0 && w.Header == nil && len(seen) == 0 && isHeader(line) {
			h, err := parseHeader(line)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, lineNo, err)
			}
			w.Header = h
			continue
		}
		var r Request
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, lineNo, jsonMsg(err))
		}
		if dec.More() {
			return nil, fmt.Errorf("%s:%d: more than one JSON value on the line", name, lineNo)
		}
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, lineNo, err)
		}
		if first, dup := seen[r.ID]; dup {
			return nil, fmt.Errorf("%s:%d: duplicate id %q (first on line %d)", name, lineNo, r.ID, first)
		}
		seen[r.ID] = lineNo
		w.Requests = append(w.Requests, r)
	}
	if len(w.Requests) == 0 {
		return nil, fmt.Errorf("%s: no requests", name)
	}
	if w.Header != nil && w.Header.Requests != len(w.Requests) {
		return nil, fmt.Errorf("%s: the header says %d requests, the file holds %d (truncated or joined?)", name, w.Header.Requests, len(w.Requests))
	}
	if _, err := checkSessions(w.Requests); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return w, nil
}

// jsonMsg strips the "json: " prefix encoding/json puts on its errors.
func jsonMsg(err error) string {
	s := err.Error()
	if len(s) > 6 && s[:6] == "json: " {
		s = s[6:]
	}
	return "invalid JSON: " + s
}

// Write validates reqs and writes them as JSON Lines: the Header line,
// then one compact object per request, fields in struct order, HTML characters left unescaped. The
// output is a pure function of reqs, so equal inputs give equal bytes.
func Write(w io.Writer, reqs []Request) error { return WriteWithHeader(w, nil, reqs) }

// WriteFile writes reqs to path atomically (internal/atomicfile) and
// returns the sha256 of the bytes written.
func WriteFile(path string, reqs []Request) (sha string, err error) {
	var buf bytes.Buffer
	if err := Write(&buf, reqs); err != nil {
		return "", err
	}
	if err := atomicfile.Write(path, buf.Bytes()); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), nil
}
