package workload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/servecmp/servecmp/internal/infile"

	"github.com/servecmp/servecmp/tokenizer"
	"github.com/servecmp/servecmp/tokenizer/chat"
)

// TextPrompts turns a random workload's prompts into real text of an exact
// token length under a tokenizer (tokenizer.Encode: no BOS or other
// special token the server adds is counted).
//
//   - KindText: a text prompt (/v1/completions) of PrefixLen+InputLen
//     tokens. A shared prefix is PrefixLen tokens of text ending in a blank
//     line, identical at the start of every prompt.
//   - KindChat: a user message of InputLen tokens, after a system message
//     of PrefixLen tokens when PrefixLen > 0 (the shared prefix); InputLen
//     is the sum of the message contents' tokens, and the server applies
//     its chat template.
//   - KindChat with Template: the messages are rendered client-side with
//     the template (generation prompt on, a leading BOS token text dropped
//     because the server adds BOS to a completions prompt) and sent as a
//     text prompt; the rendered text, template tokens included, has
//     exactly PrefixLen+InputLen tokens.
type TextPrompts struct {
	Tokenizer *tokenizer.Tokenizer
	Kind      Kind
	// Template, TemplateFile (base name) and TemplateHash (hex sha256 of
	// the file) are set together; see ReadTemplate.
	Template     *chat.Template
	TemplateFile string
	TemplateHash string
	// Source is the running text prompts are cut from; nil is the bundled
	// public-domain corpus.
	Source tokenizer.TextSource

	bos, eos string
}

// streamText seeds each request's own text stream (streamText + index), so
// prompts can be made in parallel and stay a pure function of the seed.
const streamText = 0x74657874 // "text"

// ReadTemplate parses a chat template file and returns it with the
// file's base name and hex sha256.
func ReadTemplate(path string) (*chat.Template, string, string, error) {
	data, err := infile.ReadFile(path)
	if err != nil {
		return nil, "", "", err
	}
	t, err := chat.Parse(path, string(data))
	if err != nil {
		return nil, "", "", err
	}
	sum := sha256.Sum256(data)
	return t, filepath.Base(path), hex.EncodeToString(sum[:]), nil
}

// header describes the prompts for the workload file's header.
func (tp *TextPrompts) header() *Header {
	return &Header{Tokenizer: filepath.Base(tp.Tokenizer.Path()), TokenizerHash: tp.Tokenizer.Hash(),
		Prompt: tp.Kind, ChatTemplate: tp.TemplateFile, ChatTemplateHash: tp.TemplateHash}
}

func (tp *TextPrompts) check() error {
	if tp.Tokenizer == nil {
		return fmt.Errorf("random workload: text prompts need a tokenizer")
	}
	if tp.Kind != KindText && tp.Kind != KindChat {
		return fmt.Errorf("random workload: --prompt %q: want text or chat with a tokenizer", tp.Kind)
	}
	if tp.Template != nil && tp.Kind != KindChat {
		return fmt.Errorf("random workload: --chat-template applies to --prompt chat only")
	}
	if tp.Source == nil {
		tp.Source = tokenizer.DefaultCorpus()
	}
	if id, ok := tp.Tokenizer.TokenID("bos"); ok {
		tp.bos = tp.Tokenizer.Decode([]int{id})
	}
	if id, ok := tp.Tokenizer.TokenID("eos"); ok {
		tp.eos = tp.Tokenizer.Decode([]int{id})
	}
	return nil
}

// fill gives reqs[i] a prompt of prefixLen+ins[i] tokens, in parallel on
// every CPU; each request draws from its own seeded stream. Once ctx ends
// (the first Ctrl-C) no request is started and ctx's error is returned.
func (tp *TextPrompts) fill(ctx context.Context, seed uint64, prefixLen int, reqs []Request, ins []int) error {
	if err := tp.check(); err != nil {
		return err
	}
	prefix, err := tp.prefix(rand.New(rand.NewPCG(seed, streamPrefix)), prefixLen)
	if err != nil {
		return err
	}
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	var next sync.Mutex
	i := 0
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= len(reqs) || ctx.Err() != nil {
					return
				}
				rng := rand.New(rand.NewPCG(seed, streamText+uint64(k)))
				errs[k] = tp.one(ctx, &reqs[k], prefix, prefixLen, ins[k], rng)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for k, e := range errs {
		if e != nil {
			return fmt.Errorf("random workload: request %s: %w", reqs[k].ID, e)
		}
	}
	if err := tp.Tokenizer.Err(); err != nil {
		return fmt.Errorf("random workload: %w: the prompts' lengths would not be exact", err)
	}
	return nil
}

// prefix is the shared prefix text of n tokens: for text prompts it ends
// in a blank line so that it tokenizes the same in front of any text.
func (tp *TextPrompts) prefix(rng *rand.Rand, n int) (string, error) {
	tok := tp.Tokenizer
	if n == 0 {
		return "", nil
	}
	if tp.Kind == KindChat {
		return tokenizer.ExactText(tok, n, tp.Source, rng)
	}
	for m := n - 1; m >= 0 && m >= n-4; m-- {
		base := ""
		if m > 0 {
			var err error
			if base, err = tokenizer.ExactText(tok, m, tp.Source, rng); err != nil {
				return "", err
			}
		}
		if p := base + "\n\n"; tok.Count(p) == n {
			return p, nil
		}
	}
	return "", fmt.Errorf("random workload: no text prefix of exactly %d tokens ending in a blank line (--prefix-len too small?)", n)
}

// one fills r's prompt.
func (tp *TextPrompts) one(ctx context.Context, r *Request, prefix string, prefixLen, in int, rng *rand.Rand) error {
	tok := tp.Tokenizer
	total := prefixLen + in
	switch {
	case tp.Kind == KindText:
		s, err := tokenizer.ExactTextAfter(tok, prefix, total, tp.Source, rng)
		r.Prompt = s
		r.InputLen = total
		return err
	case tp.Template != nil:
		s, err := tp.templated(ctx, prefix, total, in, rng)
		r.Prompt = s
		r.InputLen = total
		return err
	}
	user, err := tokenizer.ExactText(tok, in, tp.Source, rng)
	if err != nil {
		return err
	}
	if prefix != "" {
		r.Messages = append(r.Messages, Message{Role: "system", Content: prefix})
	}
	r.Messages = append(r.Messages, Message{Role: "user", Content: user})
	r.InputLen = total
	return nil
}

// templated renders [system prefix,] user through the template so that
// the rendered text has exactly total tokens, correcting the user
// message's length by what the template adds.
func (tp *TextPrompts) templated(ctx context.Context, system string, total, in int, rng *rand.Rand) (string, error) {
	need := in
	for range 8 {
		if need < 1 {
			return "", fmt.Errorf("%d tokens requested, fewer than the chat template adds", total)
		}
		user, err := tokenizer.ExactText(tp.Tokenizer, need, tp.Source, rng)
		if err != nil {
			return "", err
		}
		var msgs []chat.Message
		if system != "" {
			msgs = append(msgs, chat.Message{Role: "system", Content: system})
		}
		msgs = append(msgs, chat.Message{Role: "user", Content: user})
		text, err := tp.render(ctx, msgs)
		if err != nil {
			return "", err
		}
		got := tp.Tokenizer.Count(text)
		if got == total {
			return text, nil
		}
		need += total - got
	}
	return "", fmt.Errorf("no rendered chat prompt of exactly %d tokens after 8 tries", total)
}

// render applies the template with a generation prompt and drops a
// leading BOS token text: the server adds BOS to a completions prompt.
func (tp *TextPrompts) render(ctx context.Context, msgs []chat.Message) (string, error) {
	s, err := tp.Template.RenderContext(ctx, msgs, chat.Options{AddGenerationPrompt: true, BOSToken: tp.bos, EOSToken: tp.eos})
	if err != nil {
		return "", err
	}
	if tp.bos != "" {
		s = strings.TrimPrefix(s, tp.bos)
	}
	return s, nil
}
