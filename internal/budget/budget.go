// Package budget bounds the computation servecmp does on input it does
// not trust: a profiler trace, a chat template, a dataset, a server's
// answer. One Budget is made per untrusted job (one trace read, one
// template render) with the limits of that job, and is charged as the
// job goes:
//
//   - Step charges units of work (events read, template instructions,
//     rows): past Limits.Steps the job stops;
//   - Enter and Leave track nesting (a template's calls and blocks, a
//     document's depth): past Limits.Depth the job stops;
//   - Grow charges bytes produced (a rendered text, a held value, a
//     decompressed stream; Reader charges what passes through it): past
//     Limits.Bytes the job stops;
//   - every charge checks the context every CheckEvery steps (Err at once),
//     so that an interrupt stops the job at its next step.
//
// A limit of 0 is no limit. A job past a limit gets an *ExceededError
// (errors.Is ErrExceeded) naming the job, the resource and the limit: a
// clear one-line error, never an exhausted memory or a hang. A Budget is
// not safe for concurrent use: each job has its own.
//
// Units: steps are counts, depth a nesting level, bytes bytes.
package budget

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// ErrExceeded is matched (errors.Is) by the error of a job past a limit.
var ErrExceeded = errors.New("budget exceeded")

// CheckEvery is how many steps pass between two checks of the context.
const CheckEvery = 1024

// Limits are a job's bounds; 0 is none.
type Limits struct {
	Steps int64
	Depth int
	Bytes int64
}

// Budget is the account of one job.
type Budget struct {
	ctx   context.Context
	what  string
	lim   Limits
	steps int64
	depth int
	bytes int64
}

// New returns the budget of the job called what ("chat template
// x.jinja", "trace y.json.gz") under ctx (nil: never cancelled).
func New(ctx context.Context, what string, lim Limits) *Budget {
	if ctx == nil {
		ctx = context.Background()
	}
	return &Budget{ctx: ctx, what: what, lim: lim}
}

// ExceededError is a job past one of its limits.
type ExceededError struct {
	What, Resource string // the job; "steps", "nesting depth" or "bytes"
	Limit          int64
}

func (e *ExceededError) Error() string {
	return fmt.Sprintf("%s: more than %d %s (the bound on untrusted input)", e.What, e.Limit, e.Resource)
}

func (e *ExceededError) Unwrap() error { return ErrExceeded }

func (b *Budget) exceeded(resource string, limit int64) error {
	return &ExceededError{What: b.what, Resource: resource, Limit: limit}
}

// Err is the context's error: non-nil once the job is to stop.
func (b *Budget) Err() error { return context.Cause(b.ctx) }

// Step charges one step.
func (b *Budget) Step() error { return b.Steps(1) }

// Steps charges n steps.
func (b *Budget) Steps(n int64) error {
	before := b.steps
	b.steps += n
	if b.lim.Steps > 0 && b.steps > b.lim.Steps {
		return b.exceeded("steps", b.lim.Steps)
	}
	if before/CheckEvery != b.steps/CheckEvery || n >= CheckEvery {
		return b.Err()
	}
	return nil
}

// Used is the number of steps charged so far.
func (b *Budget) Used() int64 { return b.steps }

// Enter goes one level deeper; call Leave when coming back.
func (b *Budget) Enter() error {
	b.depth++
	if b.lim.Depth > 0 && b.depth > b.lim.Depth {
		return b.exceeded("levels of nesting", int64(b.lim.Depth))
	}
	return nil
}

// Leave comes back one level.
func (b *Budget) Leave() { b.depth-- }

// Grow charges n bytes.
func (b *Budget) Grow(n int64) error {
	b.bytes += n
	if b.lim.Bytes > 0 && b.bytes > b.lim.Bytes {
		return b.exceeded("bytes", b.lim.Bytes)
	}
	return nil
}

// Bytes is the number of bytes charged so far.
func (b *Budget) Bytes() int64 { return b.bytes }

// Reader returns r charging every byte read to the budget's Bytes, and
// stopping with the budget's error once past it or once the context
// ends.
func (b *Budget) Reader(r io.Reader) io.Reader { return &reader{r: r, b: b} }

type reader struct {
	r   io.Reader
	b   *Budget
	err error
}

func (r *reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if err := r.b.Err(); err != nil {
		r.err = err
		return 0, err
	}
	n, err := r.r.Read(p)
	if gerr := r.b.Grow(int64(n)); gerr != nil {
		r.err = gerr
		return n, gerr
	}
	return n, err
}

// Ratio returns a reader of the decompressed stream out that fails once
// more than minOut bytes came out and out/in exceeds ratio, in being the
// compressed bytes read so far (count them with Counter): the mark of a
// decompression bomb. what names the stream in the error.
func Ratio(out io.Reader, in *Counter, ratio, minOut int64, what string) io.Reader {
	return &ratioReader{r: out, in: in, ratio: ratio, min: minOut, what: what}
}

type ratioReader struct {
	r             io.Reader
	in            *Counter
	ratio, min, n int64
	what          string
	err           error
}

func (r *ratioReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.r.Read(p)
	r.n += int64(n)
	if r.n > r.min && r.n > r.ratio*max(r.in.N, 1) {
		r.err = fmt.Errorf("%s: %w: %d bytes out of %d compressed, more than %d-fold (a decompression bomb?)", r.what, ErrExceeded, r.n, r.in.N, r.ratio)
		return n, r.err
	}
	return n, err
}

// Counter counts the bytes read through it.
type Counter struct {
	R io.Reader
	N int64
}

func (c *Counter) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
