package workload

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// DatasetOptions map a dataset's records (JSONL, JSON array or Parquet
// rows) to requests.
type DatasetOptions struct {
	ImportOptions
	// Format is FormatJSONL, FormatJSON or FormatParquet; "" picks it from
	// the file name.
	Format string
	// IDField names the record id ("" tries "id", else "d<record number>").
	IDField string
	// PromptField names a text field: one request per record, a user
	// message (PromptKind KindChat, the default) or a text prompt
	// (KindText).
	PromptField string
	PromptKind  Kind
	// MessagesField names a list of messages, objects with RoleKey and
	// ContentKey ("" tries role/content, then ShareGPT's from/value).
	// Roles human/user, gpt/assistant/chatgpt/model and system are
	// understood. Without PromptField or MessagesField the first of
	// messages, conversations, conversation, prompt that the first record
	// has is used.
	MessagesField       string
	RoleKey, ContentKey string
	// OutputLenField names a whole-number field for max_tokens; without it
	// (and without ImportOptions.OutputLen) a turn's max_tokens is the
	// token count of the assistant reply that follows it.
	OutputLenField string
	// MultiTurn makes every user turn of a conversation a request of one
	// session (Request.Session, Turn); otherwise only the first turn is.
	MultiTurn bool
	// Num, when > 0, keeps that many usable records, a seeded random
	// sample in a seeded random order, reading the file once and holding
	// no more than Num records at a time.
	Num int
}

// turn is one user turn of a conversation: what it adds and the reply.
type turn struct {
	msgs  []Message
	reply string
	// replied is false for a last user turn with no answer.
	replied bool
}

// Dataset imports a dataset file. Errors name the file and, for a
// missing field, the field and the fields the file has.
func Dataset(path string, opts DatasetOptions) ([]Request, ImportStats, error) {
	var st ImportStats
	if opts.PromptField != "" && opts.MessagesField != "" {
		return nil, st, errors.New("give --prompt-field or --messages-field, not both")
	}
	if opts.PromptKind == "" {
		opts.PromptKind = KindChat
	}
	if opts.MultiTurn && opts.PromptField != "" {
		return nil, st, errors.New("--multi-turn needs conversations (--messages-field), not --prompt-field")
	}
	var (
		reqs  []Request
		pick  = &sample{n: opts.Num}
		ids   = map[string]bool{}
		keys  = rand.New(rand.NewPCG(opts.Seed, 0x73687566666c65)) // "shuffle"
		guess = opts.PromptField == "" && opts.MessagesField == ""
	)
	err := eachRecord(path, opts.Format, []string{opts.IDField, opts.PromptField, opts.MessagesField, opts.OutputLenField}, func(i int, r record) error {
		if guess {
			var err error
			if opts.MessagesField, opts.PromptField, err = guessField(path, r); err != nil {
				return err
			}
			guess = false
		}
		st.Read++
		key := keys.Uint64()
		got, reason, err := opts.record(path, i, r, ids)
		switch {
		case err != nil:
			return err
		case reason != "":
			st.skip(reason)
		case opts.Num > 0:
			pick.offer(key, got)
		default:
			reqs = append(reqs, got...)
		}
		return nil
	})
	if err != nil {
		return nil, st, err
	}
	if st.Read == 0 {
		return nil, st, fmt.Errorf("%s: no records", path)
	}
	if opts.Num > 0 {
		reqs = pick.requests()
	}
	seeds := rand.New(rand.NewPCG(opts.Seed, streamSeeds))
	for k := range reqs {
		applySeed(&reqs[k], opts.ImportOptions, seeds)
	}
	st.Kept = len(reqs)
	if len(reqs) == 0 {
		return nil, st, fmt.Errorf("%s: no usable records: %s", path, st.why())
	}
	return reqs, st, nil
}

// sample keeps, of the records offered, the n with the smallest keys (a
// uniform random sample when the keys are random), holding no more than
// n at a time: --num over a dataset of any size.
type sample struct {
	n    int
	keep keyedHeap
}

type keyed struct {
	key  uint64
	reqs []Request
}

// keyedHeap is a max-heap on key.
type keyedHeap []keyed

func (h keyedHeap) Len() int           { return len(h) }
func (h keyedHeap) Less(i, j int) bool { return h[i].key > h[j].key }
func (h keyedHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *keyedHeap) Push(x any)        { *h = append(*h, x.(keyed)) }
func (h *keyedHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (s *sample) offer(key uint64, reqs []Request) {
	switch {
	case len(s.keep) < s.n:
		heap.Push(&s.keep, keyed{key, reqs})
	case key < s.keep[0].key:
		s.keep[0] = keyed{key, reqs}
		heap.Fix(&s.keep, 0)
	}
}

// requests are the kept records' requests in the order of their keys (a
// seeded shuffle).
func (s *sample) requests() []Request {
	slices.SortFunc(s.keep, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	var out []Request
	for _, k := range s.keep {
		out = append(out, k.reqs...)
	}
	return out
}

// guessField picks the prompt or conversation field from the first record.
func guessField(path string, r record) (messages, prompt string, err error) {
	for _, k := range []string{"messages", "conversations", "conversation"} {
		if _, ok := r[k]; ok {
			return k, "", nil
		}
	}
	if _, ok := r["prompt"]; ok {
		return "", "prompt", nil
	}
	return "", "", fmt.Errorf("%s: no messages, conversations or prompt field (fields: %s): give --prompt-field or --messages-field", path, keys(r))
}

func keys(r record) string {
	var ks []string
	for k := range r {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// field returns a record's field or an error naming the file, the record
// and the field.
func field(path string, i int, r record, name string) (any, error) {
	v, ok := r[name]
	if !ok {
		return nil, fmt.Errorf("%s: record %d: no field %q (fields: %s)", path, i+1, name, keys(r))
	}
	return v, nil
}

// record turns one record into its requests, or a reason to skip it.
func (o *DatasetOptions) record(path string, i int, r record, ids map[string]bool) ([]Request, string, error) {
	id, err := o.recordID(path, i, r, ids)
	if err != nil {
		return nil, "", err
	}
	turns, reason, err := o.turns(path, i, r)
	if err != nil || reason != "" {
		return nil, reason, err
	}
	fixedOut := o.OutputLen
	if fixedOut == 0 && o.OutputLenField != "" {
		v, err := field(path, i, r, o.OutputLenField)
		if err != nil {
			return nil, "", err
		}
		n, ok := toInt(v)
		if !ok || n <= 0 {
			return nil, "no positive whole " + strconv.Quote(o.OutputLenField), nil
		}
		fixedOut = n
	}
	if !o.MultiTurn {
		turns = turns[:1]
	}
	var out []Request
	for k, t := range turns {
		maxTok := fixedOut
		if maxTok == 0 && t.replied {
			maxTok = max(o.count(t.reply), 1)
		}
		if maxTok == 0 {
			break // a last turn with no reply and no output length
		}
		q := Request{ID: id, Messages: t.msgs, MaxTokens: maxTok, FixedLength: o.FixedLength, Sampling: o.Sampling.clone()}
		if o.MultiTurn {
			q.ID, q.Session, q.Turn = id+"/t"+strconv.Itoa(k), id, k
		} else if o.PromptField != "" && o.PromptKind == KindText {
			q.Prompt, q.Messages = t.msgs[0].Content, nil
		}
		q.InputLen = o.inputLen(&q)
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, "no output length: no reply, --output-len-field or --output-len", nil
	}
	return out, "", nil
}

// recordID is the record's unique id.
func (o *DatasetOptions) recordID(path string, i int, r record, ids map[string]bool) (string, error) {
	name := o.IDField
	if name == "" {
		name = "id"
	}
	id := ""
	if v, ok := r[name]; ok && v != nil {
		id = strings.TrimSpace(fmt.Sprint(v))
	} else if o.IDField != "" {
		return "", fmt.Errorf("%s: record %d: no field %q (fields: %s)", path, i+1, name, keys(r))
	}
	if id == "" {
		id = "d" + strconv.Itoa(i+1)
	}
	if ids[id] {
		id += "#" + strconv.Itoa(i+1)
	}
	ids[id] = true
	return id, nil
}

// turns reads a record's prompt or conversation as user turns.
func (o *DatasetOptions) turns(path string, i int, r record) ([]turn, string, error) {
	if o.PromptField != "" {
		v, err := field(path, i, r, o.PromptField)
		if err != nil {
			return nil, "", err
		}
		s, ok := toText(v)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, "empty prompt", nil
		}
		return []turn{{msgs: []Message{{Role: "user", Content: s}}}}, "", nil
	}
	v, err := field(path, i, r, o.MessagesField)
	if err != nil {
		return nil, "", err
	}
	list, ok := unwrapList(v)
	if !ok {
		return nil, "", fmt.Errorf("%s: record %d: field %q is not a list of messages", path, i+1, o.MessagesField)
	}
	var msgs []Message
	for j, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("%s: record %d: %s[%d] is not an object", path, i+1, o.MessagesField, j)
		}
		role, content, err := o.message(m)
		if err != nil {
			return nil, "", fmt.Errorf("%s: record %d: %s[%d]: %v", path, i+1, o.MessagesField, j, err)
		}
		msgs = append(msgs, Message{Role: role, Content: content})
	}
	return splitTurns(msgs)
}

// message reads one message object's role (normalised) and content.
func (o *DatasetOptions) message(m map[string]any) (role, content string, err error) {
	get := func(given string, defaults ...string) (any, string, bool) {
		if given != "" {
			defaults = []string{given}
		}
		for _, k := range defaults {
			if v, ok := m[k]; ok {
				return v, k, true
			}
		}
		return nil, strings.Join(defaults, " or "), false
	}
	rv, rk, ok := get(o.RoleKey, "role", "from")
	if !ok {
		return "", "", fmt.Errorf("no key %s (keys: %s)", rk, keys(m))
	}
	cv, ck, ok := get(o.ContentKey, "content", "value")
	if !ok {
		return "", "", fmt.Errorf("no key %s (keys: %s)", ck, keys(m))
	}
	r, _ := rv.(string)
	switch strings.ToLower(r) {
	case "user", "human":
		role = "user"
	case "assistant", "gpt", "chatgpt", "model", "bard", "bing":
		role = "assistant"
	case "system":
		role = "system"
	default:
		return "", "", fmt.Errorf("%s %q is not a user, assistant or system role", rk, r)
	}
	content, ok = toText(cv)
	if !ok {
		return "", "", fmt.Errorf("%s is not text", ck)
	}
	return role, content, nil
}

// splitTurns cuts a conversation into user turns: each turn is the
// messages up to the next assistant message, which is its reply. Leading
// system messages belong to the first turn.
func splitTurns(msgs []Message) ([]turn, string, error) {
	var out []turn
	var cur []Message
	for _, m := range msgs {
		if m.Role != "assistant" {
			cur = append(cur, m)
			continue
		}
		if !slices.ContainsFunc(cur, func(x Message) bool { return x.Role == "user" }) {
			if len(out) == 0 {
				return nil, "does not start with a user turn", nil
			}
			return nil, "two replies without a user turn between them", nil
		}
		out = append(out, turn{msgs: cur, reply: m.Content, replied: true})
		cur = nil
	}
	if slices.ContainsFunc(cur, func(x Message) bool { return x.Role == "user" }) {
		out = append(out, turn{msgs: cur})
	}
	if len(out) == 0 {
		return nil, "no user turn", nil
	}
	return out, "", nil
}
