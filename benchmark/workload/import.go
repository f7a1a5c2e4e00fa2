package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/servecmp/servecmp/tokenizer"
)

// ImportOptions apply to every imported request.
type ImportOptions struct {
	// OutputLen, when > 0, overrides each record's own output length.
	OutputLen   int
	FixedLength bool
	Sampling    Sampling
	// Seed drives sampling per-request seeds (as in RandomSpec) and the
	// ShareGPT shuffle.
	Seed         uint64
	RequestSeeds bool
	// Tokenizer, when set, counts text and chat prompts exactly (their
	// input_len) and replaces the characters/4 approximation in length
	// filters and reply-derived output lengths.
	Tokenizer *tokenizer.Tokenizer
}

// count is a text's token count: exact under the tokenizer, else
// ApproxTokens.
func (o *ImportOptions) count(s string) int {
	if o.Tokenizer != nil {
		return o.Tokenizer.Count(s)
	}
	return ApproxTokens(s)
}

// inputLen is the exact token count of a text or chat prompt's own text
// (message contents), or 0 without a tokenizer.
func (o *ImportOptions) inputLen(r *Request) int {
	if o.Tokenizer == nil || len(r.PromptTokens) > 0 {
		return r.InputLen
	}
	n := o.Tokenizer.Count(r.Prompt)
	for _, m := range r.Messages {
		n += o.Tokenizer.Count(m.Content)
	}
	return n
}

// Header is the workload header an import with these options calls for:
// nil without a tokenizer.
func (o *ImportOptions) Header() *Header {
	if o.Tokenizer == nil {
		return nil
	}
	return &Header{Tokenizer: filepath.Base(o.Tokenizer.Path()), TokenizerHash: o.Tokenizer.Hash()}
}

// ImportStats tells what an import kept and dropped.
type ImportStats struct {
	Read        int            // records read
	Kept        int            // requests produced
	Skipped     map[string]int // reason → records dropped
	IgnoredKeys []string       // unknown keys seen (JSONL), sorted
}

func (s *ImportStats) skip(reason string) {
	if s.Skipped == nil {
		s.Skipped = map[string]int{}
	}
	s.Skipped[reason]++
}

// jsonlRecord is one line of an imported JSONL file.
type jsonlRecord struct {
	ID             string          `json:"id"`
	Prompt         json.RawMessage `json:"prompt"` // string or array of token ids
	PromptTokenIDs []int           `json:"prompt_token_ids"`
	Messages       []Message       `json:"messages"`
	OutputLen      *int            `json:"output_len"`
	MaxTokens      *int            `json:"max_tokens"`
	ArrivalOffsetS *float64        `json:"arrival_offset_s"`
}

var jsonlKeys = map[string]bool{"id": true, "prompt": true, "prompt_token_ids": true, "messages": true,
	"output_len": true, "max_tokens": true, "arrival_offset_s": true}

// FromJSONL imports prompts from JSON Lines. Each line is an object with
// exactly one prompt form:
//
//	"prompt": "text" | [token ids]   (/v1/completions)
//	"prompt_token_ids": [token ids]  (/v1/completions)
//	"messages": [{"role","content"}] (/v1/chat/completions)
//
// and an output length, "output_len" or "max_tokens" (unless
// opts.OutputLen overrides it). "id" (default: the line number, "l<N>")
// and "arrival_offset_s" are optional. Other keys are ignored and listed
// in the stats. name is used in errors ("NAME:LINE: what is wrong").
func FromJSONL(name string, r io.Reader, opts ImportOptions) ([]Request, ImportStats, error) {
	var st ImportStats
	var reqs []Request
	ignored := map[string]bool{}
	seeds := rand.New(rand.NewPCG(opts.Seed, streamSeeds))
	br := bufio.NewReader(r)
	ids := map[string]int{}
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, st, fmt.Errorf("%s: %w", name, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			st.Read++
			req, err := jsonlRequest(line, lineNo, ignored, opts)
			if err != nil {
				return nil, st, fmt.Errorf("%s:%d: %v", name, lineNo, err)
			}
			if first, dup := ids[req.ID]; dup {
				return nil, st, fmt.Errorf("%s:%d: duplicate id %q (first on line %d)", name, lineNo, req.ID, first)
			}
			ids[req.ID] = lineNo
			applySeed(&req, opts, seeds)
			reqs = append(reqs, req)
		}
		if err == io.EOF {
			break
		}
	}
	for k := range ignored {
		st.IgnoredKeys = append(st.IgnoredKeys, k)
	}
	sort.Strings(st.IgnoredKeys)
	st.Kept = len(reqs)
	if len(reqs) == 0 {
		return nil, st, fmt.Errorf("%s: no records", name)
	}
	return reqs, st, nil
}

func jsonlRequest(line []byte, lineNo int, ignored map[string]bool, opts ImportOptions) (Request, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(line, &keys); err != nil {
		return Request{}, errors.New(jsonMsg(err))
	}
	for k := range keys {
		if !jsonlKeys[k] {
			ignored[k] = true
		}
	}
	var rec jsonlRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return Request{}, errors.New(jsonMsg(err))
	}
	req := Request{ID: rec.ID, Messages: rec.Messages, PromptTokens: rec.PromptTokenIDs,
		FixedLength: opts.FixedLength, Sampling: opts.Sampling.clone(), ArrivalOffsetS: rec.ArrivalOffsetS}
	if req.ID == "" {
		req.ID = "l" + strconv.Itoa(lineNo)
	}
	if p := bytes.TrimSpace(rec.Prompt); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
		switch p[0] {
		case '"':
			if err := json.Unmarshal(p, &req.Prompt); err != nil {
				return Request{}, errors.New(jsonMsg(err))
			}
			if req.Prompt == "" {
				return Request{}, errors.New(`"prompt" is empty`)
			}
		case '[':
			if req.PromptTokens != nil {
				return Request{}, errors.New(`both "prompt" and "prompt_token_ids" given`)
			}
			if err := json.Unmarshal(p, &req.PromptTokens); err != nil {
				return Request{}, errors.New(`"prompt" must be a string or an array of token ids`)
			}
		default:
			return Request{}, errors.New(`"prompt" must be a string or an array of token ids`)
		}
	}
	if len(req.PromptTokens) > 0 {
		req.InputLen = len(req.PromptTokens)
	}
	req.InputLen = opts.inputLen(&req)
	switch {
	case opts.OutputLen > 0:
		req.MaxTokens = opts.OutputLen
	case rec.OutputLen != nil:
		req.MaxTokens = *rec.OutputLen
	case rec.MaxTokens != nil:
		req.MaxTokens = *rec.MaxTokens
	default:
		return Request{}, errors.New(`no output length: give "output_len" or "max_tokens" on the line, or --output-len`)
	}
	if err := req.Validate(); err != nil {
		return Request{}, err
	}
	return req, nil
}

func applySeed(req *Request, opts ImportOptions, seeds *rand.Rand) {
	if opts.RequestSeeds && opts.Sampling.Temperature != nil && *opts.Sampling.Temperature > 0 {
		s := int64(seeds.Uint64() >> 1)
		req.Sampling.Seed = &s
	}
}

// ApproxTokens estimates a text's token count without a tokenizer: one
// token per four characters (Unicode code points), rounded up, at least 1.
// It is a rough figure for English BPE vocabularies and undercounts
// languages with many tokens per character.
func ApproxTokens(s string) int {
	n := (utf8.RuneCountInString(s) + 3) / 4
	return max(n, 1)
}

// ShareGPTOptions selects and shapes ShareGPT conversations.
type ShareGPTOptions struct {
	ImportOptions
	// Num, when > 0, keeps that many usable conversations, a seeded
	// random sample in a seeded random order (fewer when the file has
	// fewer), holding no more than Num at a time; 0 keeps all, in file
	// order.
	Num int
	// Filters on token counts (ApproxTokens, or the tokenizer's exact
	// count when one is given), as vLLM's ShareGPT loader applies them; 0
	// disables a filter.
	MinLen      int // drop prompts or replies shorter than this
	MaxInputLen int // drop prompts longer than this
	MaxTotalLen int // drop prompt + reply longer than this
}

type shareGPTConv struct {
	ID            json.RawMessage `json:"id"`
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

// ShareGPT imports a ShareGPT file: a JSON array of
// {"id", "conversations": [{"from": "human"|"gpt", "value"}]}. The first
// human turn becomes a one-message chat prompt (role "user"); the reply
// that follows it sets max_tokens as ApproxTokens(reply) unless
// opts.OutputLen overrides it. Conversations that do not start with a
// human turn followed by a reply, or fail the length filters, are skipped
// and counted in the stats. The array is decoded one element at a time.
func ShareGPT(name string, r io.Reader, opts ShareGPTOptions) ([]Request, ImportStats, error) {
	var st ImportStats
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	tok, err := dec.Token()
	if err != nil {
		return nil, st, fmt.Errorf("%s: %v", name, jsonMsg(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, st, fmt.Errorf("%s: not a ShareGPT file: want a JSON array of conversations", name)
	}
	var reqs []Request
	ids := map[string]bool{}
	pick := &sample{n: opts.Num}
	keys := rand.New(rand.NewPCG(opts.Seed, 0x73687566666c65)) // "shuffle"
	for dec.More() {
		var c shareGPTConv
		if err := dec.Decode(&c); err != nil {
			return nil, st, fmt.Errorf("%s: conversation %d: %v", name, st.Read+1, jsonMsg(err))
		}
		st.Read++
		key := keys.Uint64()
		if len(c.Conversations) < 2 {
			st.skip("fewer than two turns")
			continue
		}
		h, g := c.Conversations[0], c.Conversations[1]
		if !isHuman(h.From) || !isReply(g.From) {
			st.skip("does not start with a human turn and a reply")
			continue
		}
		if h.Value == "" {
			st.skip("empty prompt")
			continue
		}
		in := opts.count(h.Value)
		out, reason := opts.filter(in, opts.count(g.Value))
		if reason != "" {
			st.skip(reason)
			continue
		}
		id := convID(c.ID, st.Read)
		if ids[id] {
			id = id + "#" + strconv.Itoa(st.Read)
		}
		ids[id] = true
		r := Request{
			ID:          id,
			Messages:    []Message{{Role: "user", Content: h.Value}},
			MaxTokens:   out,
			FixedLength: opts.FixedLength,
			Sampling:    opts.Sampling.clone(),
		}
		if opts.Tokenizer != nil {
			r.InputLen = in
		}
		if opts.Num > 0 {
			pick.offer(key, []Request{r})
		} else {
			reqs = append(reqs, r)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, st, fmt.Errorf("%s: after conversation %d: %v", name, st.Read, jsonMsg(err))
	}
	if opts.Num > 0 {
		reqs = pick.requests()
	}
	seeds := rand.New(rand.NewPCG(opts.Seed, streamSeeds))
	for i := range reqs {
		applySeed(&reqs[i], opts.ImportOptions, seeds)
	}
	st.Kept = len(reqs)
	if len(reqs) == 0 {
		return nil, st, fmt.Errorf("%s: no usable conversations: %s", name, st.why())
	}
	return reqs, st, nil
}

// filter applies the length filters to a prompt of in tokens and a reply
// of out tokens; it returns max_tokens, or why the conversation is skipped.
func (opts *ShareGPTOptions) filter(in, out int) (int, string) {
	if opts.MinLen > 0 && (in < opts.MinLen || (opts.OutputLen == 0 && out < opts.MinLen)) {
		return 0, "shorter than the minimum length"
	}
	if opts.OutputLen > 0 {
		out = opts.OutputLen
	}
	if opts.MaxInputLen > 0 && in > opts.MaxInputLen {
		return 0, "prompt longer than the maximum input length"
	}
	if opts.MaxTotalLen > 0 && in+out > opts.MaxTotalLen {
		return 0, "prompt + reply longer than the maximum total length"
	}
	return out, ""
}

func isHuman(from string) bool { return from == "human" || from == "user" }
func isReply(from string) bool { return from == "gpt" || from == "assistant" || from == "chatgpt" }

// convID turns a ShareGPT id (string or number) into a request id; the
// conversation's 1-based position when it has none.
func convID(raw json.RawMessage, n int) string {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && !math.IsNaN(f) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return "c" + strconv.Itoa(n)
}
