package client

import (
	"bytes"
	"encoding/json"

	"github.com/servecmp/servecmp/benchmark/result"
)

// chunkInfo is what the client takes from one streamed chunk.
type chunkInfo struct {
	choices    int    // len(choices)
	content    bool   // choices[0] carries text, content, reasoning or tool calls
	finish     string // choices[0].finish_reason ("" when null or absent)
	tokenIDs   int    // len(choices[0].token_ids)
	usage      bool   // a non-null usage object
	prompt     int
	completion int
	isError    bool // an "error" member or "object": "error"
	// cached is usage.prompt_tokens_details.cached_tokens when hasCached.
	cached    int
	hasCached bool
	// timings is the engine's own timings (llama.cpp), read by the
	// encoding/json path only.
	timings *result.ServerTimings
}

// decodeChunk fills ci from a chunk's JSON. It tries the allocation-free
// scanner first and falls back to encoding/json whenever the scanner meets
// anything outside the common shapes; the two agree wherever the scanner
// answers (FuzzChunkDecode checks this).
func decodeChunk(data []byte, scratch *wireChunk, ci *chunkInfo) error {
	*ci = chunkInfo{}
	if fastChunk(data, ci) {
		return nil
	}
	*ci = chunkInfo{}
	return slowChunk(data, scratch, ci)
}

func slowChunk(data []byte, c *wireChunk, ci *chunkInfo) error {
	*c = wireChunk{}
	if err := json.Unmarshal(data, c); err != nil {
		return err
	}
	ci.isError = nonEmpty(c.Error) || c.Object == "error"
	ci.choices = len(c.Choices)
	if len(c.Choices) > 0 {
		ch := &c.Choices[0]
		ci.content = nonEmpty(ch.Text) || nonEmpty(ch.Delta.Content) || nonEmpty(ch.Delta.ReasoningContent) ||
			nonEmpty(ch.Delta.Reasoning) || nonEmpty(ch.Delta.ToolCalls)
		if ch.FinishReason != nil {
			ci.finish = *ch.FinishReason
		}
		ci.tokenIDs = len(ch.TokenIDs)
	}
	if c.Usage != nil {
		ci.usage = true
		ci.prompt, ci.completion = c.Usage.PromptTokens, c.Usage.CompletionTokens
		if d := c.Usage.PromptTokensDetails; d != nil && d.CachedTokens != nil {
			ci.cached, ci.hasCached = *d.CachedTokens, true
		}
	}
	ci.timings = c.Timings
	return nil
}

// scanner is a strict, minimal JSON reader over one chunk. Any method
// that meets something it does not handle sets bad; callers then fall
// back to encoding/json.
type chunkScanner struct {
	b   []byte
	i   int
	bad bool
}

func (s *chunkScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *chunkScanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		s.bad = true
		return 0
	}
	return s.b[s.i]
}

func (s *chunkScanner) expect(c byte) {
	if s.peek() != c {
		s.bad = true
		return
	}
	s.i++
}

// str reads a string and returns its raw bytes between the quotes and
// whether it contains an escape.
func (s *chunkScanner) str() (raw []byte, escaped bool) {
	if s.peek() != '"' {
		s.bad = true
		return nil, false
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw = s.b[start:s.i]
			s.i++
			return raw, escaped
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.b) {
				s.bad = true
				return nil, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					s.bad = true
					return nil, false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						s.bad = true
						return nil, false
					}
				}
				s.i += 6
			default:
				s.bad = true
				return nil, false
			}
		case c < 0x20:
			s.bad = true
			return nil, false
		default:
			s.i++
		}
	}
	s.bad = true
	return nil, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number skips a JSON number and reports whether it was a plain integer.
func (s *chunkScanner) number() (integer bool) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	default:
		s.bad = true
		return false
	}
	integer = true
	if s.i < len(s.b) && s.b[s.i] == '.' {
		integer = false
		s.i++
		if s.i >= len(s.b) || !isDigit(s.b[s.i]) {
			s.bad = true
			return false
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		integer = false
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.i >= len(s.b) || !isDigit(s.b[s.i]) {
			s.bad = true
			return false
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	}
	return integer
}

// int reads a non-negative integer of at most 15 digits.
func (s *chunkScanner) int() int {
	s.ws()
	start := s.i
	if !s.number() || s.bad {
		s.bad = true
		return 0
	}
	d := s.b[start:s.i]
	if len(d) == 0 || d[0] == '-' || len(d) > 15 {
		s.bad = true
		return 0
	}
	n := 0
	for _, c := range d {
		n = n*10 + int(c-'0')
	}
	return n
}

func (s *chunkScanner) lit(word string) {
	s.ws()
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.bad = true
		return
	}
	s.i += len(word)
}

// null consumes a null if one is next.
func (s *chunkScanner) null() bool {
	if s.peek() == 'n' {
		s.lit("null")
		return true
	}
	return false
}

// skip skips any value, validating it; depth bounds nesting.
func (s *chunkScanner) skip(depth int) {
	if depth > 64 {
		s.bad = true
		return
	}
	switch c := s.peek(); {
	case s.bad:
	case c == '"':
		s.str()
	case c == '{':
		s.object(func(key []byte) { s.skip(depth + 1) })
	case c == '[':
		s.array(func() { s.skip(depth + 1) })
	case c == 't':
		s.lit("true")
	case c == 'f':
		s.lit("false")
	case c == 'n':
		s.lit("null")
	default:
		s.number()
	}
}

// object reads an object, calling member for each key with the scanner
// positioned at the value. Keys with escapes are refused (encoding/json
// would unescape them before matching).
func (s *chunkScanner) object(member func(key []byte)) {
	s.expect('{')
	if s.bad {
		return
	}
	if s.peek() == '}' {
		s.i++
		return
	}
	for !s.bad {
		key, esc := s.str()
		if esc {
			s.bad = true
		}
		s.expect(':')
		if s.bad {
			return
		}
		member(key)
		if s.bad {
			return
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.bad = true
		}
	}
}

func (s *chunkScanner) array(elem func()) {
	s.expect('[')
	if s.bad {
		return
	}
	if s.peek() == ']' {
		s.i++
		return
	}
	for !s.bad {
		elem()
		if s.bad {
			return
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.bad = true
		}
	}
}

// field matches key against the known names of one object level and
// returns its index, or −1 for an unknown key. A key that differs from a
// known name only in case marks the scan bad: encoding/json matches
// case-insensitively. seen catches duplicate keys, which are refused too.
func (s *chunkScanner) field(key []byte, names []string, seen *uint32) int {
	for i, n := range names {
		if string(key) == n {
			if *seen&(1<<i) != 0 {
				s.bad = true
			}
			*seen |= 1 << i
			return i
		}
		if bytes.EqualFold(key, []byte(n)) {
			s.bad = true
			return -1
		}
	}
	return -1
}

var (
	topNames    = []string{"choices", "usage", "error", "object", "message", "timings"}
	choiceNames = []string{"text", "delta", "finish_reason", "token_ids"}
	deltaNames  = []string{"content", "reasoning_content", "reasoning", "tool_calls"}
	usageNames  = []string{"prompt_tokens", "completion_tokens", "prompt_tokens_details"}
	detailNames = []string{"cached_tokens"}
)

// contentString reads a content field: a string (content when non-empty)
// or null. Anything else is left to encoding/json.
func (s *chunkScanner) contentString() bool {
	if s.null() {
		return false
	}
	raw, _ := s.str()
	return len(raw) > 0
}

// fastChunk scans data into ci and reports whether it could.
func fastChunk(data []byte, ci *chunkInfo) bool {
	s := chunkScanner{b: data}
	var topSeen uint32
	s.object(func(key []byte) {
		switch s.field(key, topNames, &topSeen) {
		case 0: // choices
			if s.null() {
				return
			}
			s.array(func() {
				first := ci.choices == 0
				ci.choices++
				s.choice(ci, first)
			})
		case 1: // usage
			if s.null() {
				return
			}
			ci.usage = true
			var seen uint32
			s.object(func(k []byte) {
				switch s.field(k, usageNames, &seen) {
				case 0:
					ci.prompt = s.int()
				case 1:
					ci.completion = s.int()
				case 2:
					s.promptDetails(ci)
				default:
					s.skip(0)
				}
			})
		case 2: // error: rare, left to encoding/json for its message
			s.bad = true
		case 3: // object
			raw, esc := s.str()
			if esc || string(raw) == "error" {
				s.bad = true
			}
		case 4: // message
			s.str()
		case 5: // timings: once per request, left to encoding/json
			if !s.null() {
				s.bad = true
			}
		default:
			s.skip(0)
		}
	})
	s.ws()
	return !s.bad && s.i == len(s.b)
}

func (s *chunkScanner) choice(ci *chunkInfo, first bool) {
	var seen uint32
	content, finish, ids := false, "", 0
	s.object(func(key []byte) {
		switch s.field(key, choiceNames, &seen) {
		case 0: // text
			content = s.contentString() || content
		case 1: // delta
			if s.null() {
				return
			}
			var dseen uint32
			s.object(func(k []byte) {
				switch s.field(k, deltaNames, &dseen) {
				case 0, 1, 2:
					content = s.contentString() || content
				case 3: // tool_calls: left to encoding/json
					s.bad = true
				default:
					s.skip(0)
				}
			})
		case 2: // finish_reason
			if s.null() {
				return
			}
			raw, esc := s.str()
			if esc {
				s.bad = true
			}
			if first {
				finish = string(raw)
			}
		case 3: // token_ids
			if s.null() {
				return
			}
			s.array(func() {
				ids++
				s.ws()
				start := s.i
				if !s.number() || s.i-start > 18 {
					s.bad = true
				}
			})
		default:
			s.skip(0)
		}
	})
	if first {
		ci.content, ci.finish, ci.tokenIDs = content, finish, ids
	}
}

// promptDetails reads usage.prompt_tokens_details: its cached_tokens, a
// non-negative integer or null.
func (s *chunkScanner) promptDetails(ci *chunkInfo) {
	if s.null() {
		return
	}
	var seen uint32
	s.object(func(k []byte) {
		switch s.field(k, detailNames, &seen) {
		case 0:
			if !s.null() {
				ci.cached, ci.hasCached = s.int(), true
			}
		default:
			s.skip(0)
		}
	})
}
