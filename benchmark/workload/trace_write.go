package workload

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
)

// traceWriter turns kept requests into workload lines.
type traceWriter struct {
	bt    *builtTrace
	text  *traceText // nil: token-id prompts
	seeds []int64    // per-request sampling seeds, when drawn
	// digits holds every token id's decimal text (with a leading comma),
	// at [at[t], at[t+1]): ids are formatted by copying.
	digits []byte
	at     []uint32
}

// maxDigitTable bounds the vocabulary whose ids are formatted by table.
const maxDigitTable = 1 << 21

// digitTable fills tw.digits for ids below vocab.
func (tw *traceWriter) digitTable(vocab int) {
	if vocab > maxDigitTable {
		return
	}
	tw.at = make([]uint32, vocab+1)
	for t := range vocab {
		tw.at[t] = uint32(len(tw.digits))
		tw.digits = strconv.AppendInt(append(tw.digits, ','), int64(t), 10)
	}
	tw.at[vocab] = uint32(len(tw.digits))
}

// header is the workload header of the trace's workload.
func (bt *builtTrace) header() *Header {
	h := &Header{Schema: Schema, Requests: len(bt.reqs), Prompt: KindTokens, Trace: bt.source()}
	if tp := bt.spec.Text; tp != nil {
		th := tp.header()
		h.Tokenizer, h.TokenizerHash, h.Prompt = th.Tokenizer, th.TokenizerHash, KindText
	}
	return h
}

// request is kept request i without its prompt.
func (tw *traceWriter) request(i int) Request {
	s := tw.bt.spec
	q := &tw.bt.reqs[i]
	off := q.offsetS
	r := Request{ID: "l" + strconv.Itoa(q.line), MaxTokens: q.out, FixedLength: s.FixedLength, InputLen: q.in,
		Sampling: s.Sampling.clone(), ArrivalOffsetS: &off}
	if tw.seeds != nil {
		v := tw.seeds[i]
		r.Sampling.Seed = &v
	}
	return r
}

// line appends request i's JSON line to dst; tok is scratch space for
// its token ids.
func (tw *traceWriter) line(dst []byte, i int, tok []int) ([]byte, []int, error) {
	r := tw.request(i)
	q := &tw.bt.reqs[i]
	blocks := tw.bt.arena[q.first : q.first+q.n]
	bs := tw.bt.spec.BlockSize
	if tw.text != nil {
		var err error
		if r.Prompt, err = tw.text.prompt(blocks, q.in); err != nil {
			return dst, tok, fmt.Errorf("%s: %v", r.ID, err)
		}
		if err := r.Validate(); err != nil {
			return dst, tok, err
		}
		b, err := marshalLine(&r)
		return append(dst, b...), tok, err
	}
	tok = tok[:0]
	for j, n := range blocks {
		tok = tw.bt.tree.appendTokens(tok, n, min(bs, q.in-j*bs))
	}
	r.PromptTokens = tok
	if err := r.Validate(); err != nil {
		return dst, tok, err
	}
	r.PromptTokens = nil // appendTokenLine writes them
	return tw.appendTokenLine(dst, &r, tok), tok, nil
}

// marshalLine encodes a request as WriteWithHeader does: compact, HTML
// characters unescaped, one line.
func marshalLine(r any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(r)
	return b.Bytes(), err
}

// appendTokenLine appends r's line with tokens as its prompt_token_ids:
// the bytes encoding/json writes for the whole request (the field comes
// right after the id), without building a large []int encoding.
func (tw *traceWriter) appendTokenLine(dst []byte, r *Request, tokens []int) []byte {
	b, _ := marshalLine(r) // a Request without a prompt always encodes
	id, _ := marshalLine(r.ID)
	at := len(`{"id":`) + len(id) - 1 // without the encoder's newline
	dst = append(dst, b[:at]...)
	dst = append(dst, `,"prompt_token_ids":[`...)
	start := len(dst)
	for _, t := range tokens {
		if t >= 0 && t+1 < len(tw.at) {
			dst = append(dst, tw.digits[tw.at[t]:tw.at[t+1]]...)
		} else {
			dst = strconv.AppendInt(append(dst, ','), int64(t), 10)
		}
	}
	if len(dst) > start {
		dst = append(dst[:start], dst[start+1:]...) // the first id's comma
	}
	dst = append(dst, ']')
	return append(dst, b[at:]...)
}

// traceBatch is the number of lines made together before they are
// written: memory holds at most three batches.
const traceBatch = 64

// batch is a run of consecutive lines.
type batch struct {
	lines [][]byte
	err   error
}

// write writes the header and every request line to w, the lines of
// each batch made on every CPU while the previous batch is written, and
// returns the sha256 of the bytes.
func (tw *traceWriter) write(ctx context.Context, w io.Writer) (string, error) {
	sum := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 1<<20)
	hb, err := json.Marshal(tw.bt.header())
	if err != nil {
		return "", err
	}
	bw.Write(append(hb, '\n'))
	ch := make(chan *batch, 1)
	stop := make(chan struct{})
	defer close(stop)
	var pool sync.Pool
	go tw.produce(ctx, ch, stop, &pool)
	for b := range ch {
		if b.err != nil {
			return "", b.err
		}
		for _, l := range b.lines {
			if _, err := bw.Write(l); err != nil {
				return "", err
			}
			pool.Put(l[:0])
		}
	}
	if err := bw.Flush(); err != nil {
		return "", err
	}
	return hex.EncodeToString(sum.Sum(nil)), nil
}

// produce makes the lines batch by batch, in order, until done or stop.
func (tw *traceWriter) produce(ctx context.Context, ch chan<- *batch, stop <-chan struct{}, pool *sync.Pool) {
	defer close(ch)
	n := len(tw.bt.reqs)
	workers := max(1, runtime.GOMAXPROCS(0))
	scratch := make([][]int, workers)
	for start := 0; start < n; start += traceBatch {
		b := &batch{lines: make([][]byte, min(traceBatch, n-start))}
		if ctx.Err() != nil {
			b.err = errors.New("interrupted: nothing written")
		} else {
			b.err = tw.fill(b.lines, start, scratch, pool)
		}
		select {
		case ch <- b:
		case <-stop:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// fill makes lines[k] for request start+k on len(scratch) goroutines.
func (tw *traceWriter) fill(lines [][]byte, start int, scratch [][]int, pool *sync.Pool) error {
	errs := make([]error, len(lines))
	var wg sync.WaitGroup
	for w := range scratch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < len(lines); k += len(scratch) {
				dst, _ := pool.Get().([]byte)
				lines[k], scratch[w], errs[k] = tw.line(dst, start+k, scratch[w])
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
