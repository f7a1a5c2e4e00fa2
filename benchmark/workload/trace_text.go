package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/servecmp/servecmp/tokenizer"
)

// traceText makes a trace's prompts real text (--prompt text): every
// block is text of exactly BlockSize tokens under the tokenizer that
// keeps that count wherever it is placed, so a prompt of blocks has
// exactly its input length, and blocks shared by two prompts are the same
// text.
//
// A block is a marker word and corpus text: "␠Marker body…" (the block
// that starts a prompt has its marker from a second list, counted at the
// start of a text). Markers are single-token words of the vocabulary; the
// block tree's head picks the marker, so blocks that follow the same
// prefix start with different tokens. Each marker starts a new
// pre-tokenizer piece after any text, so tokens never merge across a block
// boundary; every prompt is re-tokenized to make sure. A partial last
// block is the block's text cut after its first tokens.
type traceText struct {
	tp         *TextPrompts
	bt         *builtTrace
	start, mid []string // markers: at a prompt's start, after a block
	ctx        string   // stands for the block before
	ctxN       int

	mu       sync.Mutex
	cache    map[int32]string // block texts, at most cacheMax
	cacheMax int
}

// maxTextCache bounds the block texts kept; others are made again (the
// same text: a block's text is a pure function of the seed and the block).
const maxTextCache = 1 << 15

const streamBlockText = 0x626c6f636b // "block"

// newTraceText finds the tokenizer's marker words.
func newTraceText(tp *TextPrompts) (*traceText, error) {
	tt := &traceText{tp: tp, ctx: "end", cache: map[int32]string{}, cacheMax: maxTextCache}
	tok := tp.Tokenizer
	tt.ctxN = tok.Count(tt.ctx)
	// Which ids make markers is checked on every CPU; the lists are then
	// built in id order, so they are a pure function of the tokenizer.
	const isMid, isStart = 1, 2
	kind := make([]uint8, tok.VocabSize())
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := w; id < len(kind); id += workers {
				word := strings.TrimPrefix(tok.Decode([]int{id}), " ")
				if len(word) < 3 || len(word) > 12 || !isLetters(word) {
					continue
				}
				if tok.Count(tt.ctx+" "+word) == tt.ctxN+1 {
					kind[id] |= isMid
				}
				if tok.Count(word) == 1 {
					kind[id] |= isStart
				}
			}
		}()
	}
	wg.Wait()
	seenMid, seenStart := map[string]bool{}, map[string]bool{}
	for id, k := range kind {
		if k == 0 {
			continue
		}
		word := strings.TrimPrefix(tok.Decode([]int{id}), " ")
		if w := " " + word; k&isMid != 0 && !seenMid[w] {
			seenMid[w] = true
			tt.mid = append(tt.mid, w)
		}
		if k&isStart != 0 && !seenStart[word] {
			seenStart[word] = true
			tt.start = append(tt.start, word)
		}
	}
	if len(tt.mid) < 16 || len(tt.start) < 16 {
		return nil, fmt.Errorf("%s: too few single-token words to start text blocks with (%d, %d)", tok.Path(), len(tt.mid), len(tt.start))
	}
	return tt, nil
}

func isLetters(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// markers is how many distinct heads text blocks can have.
func (tt *traceText) markers() int { return min(len(tt.start), len(tt.mid)) }

// prompt is the text of a prompt of in tokens over blocks, re-tokenized.
func (tt *traceText) prompt(blocks []int32, in int) (string, error) {
	bs := tt.bt.spec.BlockSize
	var b strings.Builder
	for j, n := range blocks {
		txt, err := tt.block(n)
		if err != nil {
			return "", err
		}
		if l := in - j*bs; l < bs {
			if txt, err = tt.partial(n, txt, l); err != nil {
				return "", err
			}
		}
		b.WriteString(txt)
	}
	s := b.String()
	c, err := tt.tp.Tokenizer.CountChecked(s)
	if err != nil {
		return "", err
	}
	if c != in {
		return "", fmt.Errorf("the text prompt re-tokenizes to %d tokens, not %d (a block boundary merged under this tokenizer)", c, in)
	}
	return s, nil
}

// root reports whether block n starts its prompts.
func (tt *traceText) root(n int32) bool { return tt.bt.tree.parent[n] < 0 }

// block is block n's full text.
func (tt *traceText) block(n int32) (string, error) {
	tt.mu.Lock()
	s, ok := tt.cache[n]
	tt.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := tt.makeBlock(n)
	if err != nil {
		return "", err
	}
	tt.mu.Lock()
	if len(tt.cache) >= tt.cacheMax {
		for k := range tt.cache {
			delete(tt.cache, k)
			break
		}
	}
	tt.cache[n] = s
	tt.mu.Unlock()
	return s, nil
}

// makeBlock cuts block n's text: its marker, then corpus text drawn from
// the block's own stream, BlockSize tokens in all where the block sits.
func (tt *traceText) makeBlock(n int32) (string, error) {
	t, tok, bs := tt.bt.tree, tt.tp.Tokenizer, tt.bt.spec.BlockSize
	k := int(t.head[n]) - FirstTokenID
	marker, ctx, base := tt.mid[k], tt.ctx, tt.ctxN
	if tt.root(n) {
		marker, ctx, base = tt.start[k], "", 0
	}
	if bs == 1 {
		return marker, nil
	}
	rng := rand.New(rand.NewPCG(t.seed^streamBlockText, uint64(t.id[n])))
	for range 8 {
		s, err := tokenizer.ExactTextAfter(tok, ctx+marker+" ", base+bs, tt.tp.Source, rng)
		if err != nil {
			continue
		}
		s = s[len(ctx):]
		if r, _ := utf8.DecodeLastRuneInString(s); !unicode.IsSpace(r) {
			return s, nil
		}
	}
	return "", fmt.Errorf("no text block of exactly %d tokens after 8 tries", bs)
}

// partial is the first l tokens of block n's text txt: a prefix of txt
// that counts l tokens where the block sits (cut near its l-th token).
func (tt *traceText) partial(n int32, txt string, l int) (string, error) {
	tok := tt.tp.Tokenizer
	ctx, base := tt.ctx, tt.ctxN
	if tt.root(n) {
		ctx, base = "", 0
	}
	count := func(s string) int { return tok.Count(ctx+s) - base }
	ids := tok.Encode(ctx + txt)
	lead := tok.Decode(ids[:base]) // decoded as the cut will be: in context
	for m := max(1, l-2); m <= min(len(ids)-base, l+2); m++ {
		d := validPrefix(tok.Decode(ids[:base+m]))
		cut, ok := strings.CutPrefix(d, lead)
		if ok && strings.HasPrefix(txt, cut) && count(cut) == l {
			return cut, nil
		}
	}
	return "", errors.New("no cut of a text block with exactly its tokens")
}

// validPrefix drops a trailing partial UTF-8 sequence.
func validPrefix(s string) string {
	for k := 0; k < utf8.UTFMax && len(s) > 0 && !utf8.ValidString(s); k++ {
		s = s[:len(s)-1]
	}
	return s
}
